package dev.medallion.core;

import static dev.medallion.testing.Events.reading;
import static org.assertj.core.api.Assertions.assertThat;

import dev.medallion.iot.BronzeEvent;
import dev.medallion.iot.DeviceMinute;
import dev.medallion.iot.Heartbeat;
import dev.medallion.iot.SensorMinute;
import dev.medallion.iot.SensorReading;
import dev.medallion.iot.SiteMinute;
import dev.medallion.users.UserEvent;
import dev.medallion.users.UserEventBronze;
import dev.medallion.users.UserFeatures;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.extensions.avro.coders.AvroCoder;
import org.apache.beam.sdk.extensions.avro.schemas.utils.AvroUtils;
import org.apache.beam.sdk.io.FileIO;
import org.apache.beam.sdk.io.parquet.ParquetIO;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.schemas.SchemaRegistry;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.values.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The column order of a table is fixed by its record's declaration ({@code @SchemaFieldNumber}),
 * not by reflection, and a table is read by column name: a file written with another column order
 * (an older build, another tool) reads back the same records.
 */
class ColumnOrderTest {
  @TempDir Path dir;

  @Test
  void everyTableHasItsDeclaredColumnOrder() throws Exception {
    SchemaRegistry registry = SchemaRegistry.createDefault();
    assertThat(registry.getSchema(SensorReading.class).getFieldNames())
        .startsWith("device_id", "site", "zone", "latitude", "longitude", "model", "sensor_type");
    assertThat(registry.getSchema(BronzeEvent.class).getFieldNames())
        .startsWith("event_kind", "device_id", "event_ts", "raw_payload");
    assertThat(registry.getSchema(UserEventBronze.class).getFieldNames())
        .startsWith("user_id", "event_type", "event_timestamp", "event_date", "raw_line");
    for (Class<?> table :
        List.of(
            BronzeEvent.class,
            SensorReading.class,
            Heartbeat.class,
            DeviceMinute.class,
            SiteMinute.class,
            SensorMinute.class,
            DeadLetter.class,
            UserEventBronze.class,
            UserEvent.class,
            UserFeatures.class)) {
      // Declared order: the order of the getters in the source, which the annotation pins.
      List<String> declared = new ArrayList<>();
      for (java.lang.reflect.Method m : sortedByFieldNumber(table)) {
        declared.add(m.getName());
      }
      assertThat(declared).as(table.getSimpleName()).isNotEmpty();
      assertThat(registry.getSchema(table).getFieldCount())
          .as(table.getSimpleName() + ": every getter has a @SchemaFieldNumber")
          .isEqualTo(declared.size());
    }
  }

  private static List<java.lang.reflect.Method> sortedByFieldNumber(Class<?> type) {
    List<java.lang.reflect.Method> getters = new ArrayList<>();
    for (java.lang.reflect.Method m : type.getDeclaredMethods()) {
      if (m.isAnnotationPresent(org.apache.beam.sdk.schemas.annotations.SchemaFieldNumber.class)) {
        getters.add(m);
      }
    }
    getters.sort(
        java.util.Comparator.comparingInt(
            m ->
                Integer.parseInt(
                    m.getAnnotation(org.apache.beam.sdk.schemas.annotations.SchemaFieldNumber.class)
                        .value())));
    return getters;
  }

  @Test
  void aFileWithAnotherColumnOrderReadsByName() throws Exception {
    List<SensorReading> rows =
        List.of(
            reading(
                "dev-0001", "temperature", 21.5, "2026-11-29T10:15:10Z", "2026-11-29T10:15:11Z"),
            reading("dev-0002", "humidity", 40.0, "2026-11-29T10:16:00Z", null));
    String table = dir.resolve("silver/sensor_readings").toString();
    SchemaRegistry registry = SchemaRegistry.createDefault();
    org.apache.beam.sdk.schemas.Schema beamSchema = registry.getSchema(SensorReading.class);
    Schema declared = AvroUtils.toAvroSchema(beamSchema);
    List<Schema.Field> fields = new ArrayList<>();
    for (Schema.Field f : declared.getFields()) {
      fields.add(new Schema.Field(f, f.schema()));
    }
    Collections.reverse(fields);
    Schema reversed =
        Schema.createRecord(declared.getName(), null, declared.getNamespace(), false, fields);

    // One file in the declared order (WriteTable), one file with every column reversed.
    List<GenericRecord> reversedRecords = new ArrayList<>();
    for (SensorReading r : rows) {
      Row row = registry.getToRowFunction(SensorReading.class).apply(r);
      GenericRecord inOrder = AvroUtils.toGenericRecord(row, declared);
      GenericRecord out = new GenericData.Record(reversed);
      for (Schema.Field f : reversed.getFields()) {
        out.put(f.name(), inOrder.get(f.name()));
      }
      reversedRecords.add(out);
    }
    Pipeline write = Pipeline.create(PipelineOptionsFactory.create());
    write
        .apply("Declared", Create.of(rows.get(0)))
        .apply(WriteTable.<SensorReading>to(table, r -> "date=" + r.getDate(), "a"));
    write
        .apply("Reversed", Create.of(reversedRecords).withCoder(AvroCoder.of(reversed)))
        .apply(
            FileIO.<GenericRecord>write()
                .via(ParquetIO.sink(reversed))
                .to(table + "/date=2026-11-29")
                .withPrefix("part-b")
                .withSuffix(".parquet")
                .withNumShards(1));
    write.run().waitUntilFinish();

    Pipeline read = Pipeline.create(PipelineOptionsFactory.create());
    List<SensorReading> expected = List.of(rows.get(0), rows.get(0), rows.get(1));
    PAssert.that(read.apply(ReadTable.of(table, SensorReading.class))).containsInAnyOrder(expected);
    read.run().waitUntilFinish();
  }
}
