package dev.medallion.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.medallion.iot.BronzeEvent;
import dev.medallion.iot.DeviceMinute;
import dev.medallion.iot.Heartbeat;
import dev.medallion.iot.SensorMinute;
import dev.medallion.iot.SensorReading;
import dev.medallion.iot.SiteMinute;
import dev.medallion.testing.RandomRows;
import dev.medallion.users.UserEventBronze;
import dev.medallion.users.UserFeatures;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.util.Utf8;
import org.apache.beam.sdk.extensions.avro.schemas.utils.AvroUtils;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.schemas.SchemaRegistry;
import org.apache.beam.sdk.values.Row;
import org.joda.time.ReadableInstant;
import org.junit.jupiter.api.Test;

/**
 * Rows read directly from Avro records equal Beam's strict conversion of the same records, for the
 * schemas of every table; what it does not know is left to that conversion.
 */
class AvroRowsTest {
  private static final String[] TEXTS = {"", "dev-0001", "ünï \"q\" 温度"};
  private static final double[] DOUBLES = {0.0, 72.7, 1003.99, Double.MAX_VALUE};
  private static final List<Class<?>> TABLES =
      List.of(
          BronzeEvent.class,
          SensorReading.class,
          Heartbeat.class,
          DeadLetter.class,
          DeviceMinute.class,
          SiteMinute.class,
          SensorMinute.class,
          UserEventBronze.class,
          UserFeatures.class);

  @Test
  void rowsEqualBeamsStrictConversionForEveryTable() throws Exception {
    SchemaRegistry registry = SchemaRegistry.createDefault();
    Random random = new Random(5);
    int compared = 0;
    for (Class<?> type : TABLES) {
      Schema schema = registry.getSchema(type);
      org.apache.avro.Schema avro = AvroUtils.toAvroSchema(schema);
      AvroRows direct = AvroRows.of(schema, avro);
      assertThat(direct).as(type.getSimpleName()).isNotNull();
      for (int n = 0; n < 300; n++) {
        GenericRecord record = record(avro, RandomRows.of(schema, random, TEXTS, DOUBLES));
        Row expected = AvroUtils.toBeamRowStrict(record, schema);
        RandomRows.assertSameValues(schema, direct.apply(record), expected);
        compared++;
      }
    }
    assertThat(compared).isEqualTo(300 * TABLES.size());
  }

  @Test
  void columnsAreFoundByNameAndMicrosecondsBecomeMilliseconds() throws Exception {
    Schema schema = SchemaRegistry.createDefault().getSchema(Heartbeat.class);
    // The file: its columns in reverse order, an extra one, no "extra" (nullable), and its
    // instants in microseconds, as Iceberg asks.
    List<org.apache.avro.Schema.Field> fields = new ArrayList<>();
    org.apache.avro.Schema millis = AvroUtils.toAvroSchema(schema);
    for (org.apache.avro.Schema.Field f : millis.getFields()) {
      if (!f.name().equals("extra")) {
        org.apache.avro.Schema type =
            new org.apache.avro.Schema.Parser()
                .parse(f.schema().toString().replace("timestamp-millis", "timestamp-micros"));
        fields.add(new org.apache.avro.Schema.Field(f.name(), type, null, (Object) null));
      }
    }
    fields.add(
        new org.apache.avro.Schema.Field(
            "other", org.apache.avro.Schema.create(org.apache.avro.Schema.Type.INT), null, 0));
    Collections.reverse(fields);
    org.apache.avro.Schema file =
        org.apache.avro.Schema.createRecord("f", null, "x", false, fields);
    AvroRows direct = AvroRows.of(schema, file);
    assertThat(direct).isNotNull();

    Row row = RandomRows.of(schema, new Random(9), TEXTS, DOUBLES);
    GenericRecord record = new GenericData.Record(file);
    for (org.apache.avro.Schema.Field f : file.getFields()) {
      if (f.name().equals("other")) {
        record.put(f.pos(), 7);
        continue;
      }
      Object v = row.getValue(f.name());
      record.put(
          f.pos(),
          v instanceof ReadableInstant at
              ? at.getMillis() * 1000 + 999 // the microseconds within the millisecond go
              : v instanceof String s ? new Utf8(s) : v);
    }
    Row read = direct.apply(record);
    for (Schema.Field f : schema.getFields()) {
      Object expected = f.getName().equals("extra") ? null : row.getValue(f.getName());
      Object actual = read.getValue(f.getName());
      if (expected instanceof ReadableInstant e) {
        assertThat(((ReadableInstant) actual).getMillis()).isEqualTo(e.getMillis());
      } else {
        assertThat(actual).as(f.getName()).isEqualTo(expected);
      }
    }
  }

  @Test
  void whatItDoesNotKnowIsLeftToBeamsConversion() throws Exception {
    Schema schema = SchemaRegistry.createDefault().getSchema(SensorReading.class);
    org.apache.avro.Schema avro = AvroUtils.toAvroSchema(schema);
    // An instant stored as a plain long, and a union of two types: no converter for the file.
    assertThat(AvroRows.of(schema, withField(avro, "event_ts", "\"long\""))).isNull();
    assertThat(AvroRows.of(schema, withField(avro, "seq", "[\"null\",\"long\",\"string\"]")))
        .isNull();
    // A required column the file lacks: none either.
    assertThat(AvroRows.of(schema, withoutField(avro, "device_id"))).isNull();

    AvroRows direct = AvroRows.of(schema, avro);
    GenericRecord good = record(avro, RandomRows.of(schema, new Random(1), TEXTS, DOUBLES));
    assertThat(direct.apply(good)).isNotNull();
    // A required column null, or a value of an unexpected class: no row for that record.
    GenericRecord nullDevice = new GenericData.Record(avro);
    avro.getFields().forEach(f -> nullDevice.put(f.pos(), good.get(f.pos())));
    nullDevice.put("device_id", null);
    assertThat(direct.apply(nullDevice)).isNull();
    GenericRecord textValue = new GenericData.Record(avro);
    avro.getFields().forEach(f -> textValue.put(f.pos(), good.get(f.pos())));
    textValue.put("value", "12.5");
    assertThat(direct.apply(textValue)).isNull();
  }

  private static org.apache.avro.Schema withField(
      org.apache.avro.Schema avro, String name, String type) {
    List<org.apache.avro.Schema.Field> fields = new ArrayList<>();
    for (org.apache.avro.Schema.Field f : avro.getFields()) {
      org.apache.avro.Schema s =
          f.name().equals(name) ? new org.apache.avro.Schema.Parser().parse(type) : f.schema();
      fields.add(new org.apache.avro.Schema.Field(f.name(), s, null, (Object) null));
    }
    return org.apache.avro.Schema.createRecord("f", null, "x", false, fields);
  }

  private static org.apache.avro.Schema withoutField(org.apache.avro.Schema avro, String name) {
    List<org.apache.avro.Schema.Field> fields = new ArrayList<>();
    for (org.apache.avro.Schema.Field f : avro.getFields()) {
      if (!f.name().equals(name)) {
        fields.add(new org.apache.avro.Schema.Field(f.name(), f.schema(), null, (Object) null));
      }
    }
    return org.apache.avro.Schema.createRecord("f", null, "x", false, fields);
  }

  /** {@code row} as the Avro record a Parquet reader gives: strings as {@link Utf8}. */
  private static GenericRecord record(org.apache.avro.Schema avro, Row row) {
    GenericRecord record = new GenericData.Record(avro);
    for (org.apache.avro.Schema.Field f : avro.getFields()) {
      Object v = row.getValue(f.name());
      record.put(
          f.pos(),
          v instanceof ReadableInstant at
              ? at.getMillis()
              : v instanceof String s ? new Utf8(s) : v);
    }
    return record;
  }
}
