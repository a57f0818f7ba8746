package dev.medallion.iot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.medallion.core.CoderInRuns;
import dev.medallion.core.RawEvent;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.ListCoder;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.schemas.SchemaCoder;
import org.apache.beam.sdk.schemas.SchemaRegistry;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.Row;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * Bronze's and Silver's record coders give back the very records they were given: records built
 * from the records' schema with a distinct value in every field, and with every nullable field
 * null, so a field added to a record and not to its coder fails here. They also agree with Beam's
 * schema coders, are schema coders of the records' own schemas, and are the coders of the layers'
 * outputs.
 */
class IotRecordCodersTest {
  private static final SchemaRegistry SCHEMAS = SchemaRegistry.createDefault();

  @Test
  void bronzeEventsComeBackEqualWithEveryFieldAndWithTheirNullableFieldsNull() throws Exception {
    roundTripsEveryField(BronzeEvent.class, IotRecordCoders.BRONZE);
  }

  @Test
  void readingsComeBackEqualWithEveryFieldAndWithTheirNullableFieldsNull() throws Exception {
    roundTripsEveryField(SensorReading.class, IotRecordCoders.READING);
  }

  @Test
  void heartbeatsComeBackEqualWithEveryFieldAndWithTheirNullableFieldsNull() throws Exception {
    roundTripsEveryField(Heartbeat.class, IotRecordCoders.HEARTBEAT);
  }

  @Test
  void theyAreSchemaCodersOfTheRecordsOwnSchemasAndRowFunctions() throws Exception {
    for (SchemaCoder<?> coder :
        List.of(IotRecordCoders.BRONZE, IotRecordCoders.READING, IotRecordCoders.HEARTBEAT)) {
      Class<?> type = coder.getEncodedTypeDescriptor().getRawType();
      assertThat(coder.getSchema()).isEqualTo(SCHEMAS.getSchema(type));
      Row row = recordRow(SCHEMAS.getSchema(type), false);
      assertThat(toRow(coder, SCHEMAS.getFromRowFunction(type).apply(row))).isEqualTo(row);
    }
  }

  @Test
  void bronzeAndSilverOutputsAreEncodedByThem() {
    Pipeline p = Pipeline.create();
    PCollectionTuple bronze =
        p.apply(Create.of(RawEvent.of("{}", "file", "x", null, 1, null)))
            .apply(IngestToBronze.create());
    PCollectionTuple silver =
        bronze.get(IngestToBronze.EVENTS).apply(ValidateAndEnrich.withRegistry(Map.of()));
    assertThat(bronze.get(IngestToBronze.EVENTS).getCoder()).isSameAs(IotRecordCoders.BRONZE);
    assertThat(silver.get(ValidateAndEnrich.READINGS).getCoder()).isSameAs(IotRecordCoders.READING);
    assertThat(silver.get(ValidateAndEnrich.HEARTBEATS).getCoder())
        .isSameAs(IotRecordCoders.HEARTBEAT);
  }

  /**
   * Gold's batches: records with every field and with their nullable fields null, several sharing
   * their text, come back in order with the fields Gold reads and the others left empty (written
   * out here field by field); each distinct string is written once per batch, so a batch of one
   * device's readings is smaller than the same readings encoded one by one, and without their raw
   * payloads less than a third of them.
   */
  @Test
  void batchesCarryWhatGoldReadsAndWriteRepeatedTextOnce() throws Exception {
    Schema readingSchema = SCHEMAS.getSchema(SensorReading.class);
    SensorReading full = record(SensorReading.class, readingSchema, false);
    SensorReading sparse = record(SensorReading.class, readingSchema, true);
    List<SensorReading> readings =
        List.of(full, sparse, readingWithPayload("{\"a\":1}"), full, readingWithPayload("é"));
    assertThat(roundTrip(IotRecordCoders.READING_BATCH, readings))
        .isEqualTo(readings.stream().map(IotRecordCodersTest::asGoldReadsIt).toList());
    assertThat(roundTrip(IotRecordCoders.READING_BATCH, List.of())).isEmpty();
    SensorReading read = roundTrip(IotRecordCoders.READING_BATCH, List.of(full)).get(0);
    assertThat(read.getRawPayload()).isEmpty();
    assertThat(read.getLatitude()).isNull();
    assertThat(read.getValue()).isEqualTo(full.getValue());
    assertThat(read.getSource()).isEqualTo(full.getSource());

    Schema heartbeatSchema = SCHEMAS.getSchema(Heartbeat.class);
    List<Heartbeat> heartbeats =
        List.of(
            record(Heartbeat.class, heartbeatSchema, true),
            record(Heartbeat.class, heartbeatSchema, false),
            record(Heartbeat.class, heartbeatSchema, true));
    assertThat(roundTrip(IotRecordCoders.HEARTBEAT_BATCH, heartbeats))
        .isEqualTo(heartbeats.stream().map(IotRecordCodersTest::asGoldReadsIt).toList());

    List<SensorReading> sameDevice = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      sameDevice.add(
          readingWithPayload(
              "{\"device_id\":\"dev-0001\",\"sensor_type\":\"temperature\",\"value\":21.5,"
                  + "\"unit\":\"C\",\"ts\":\"2026-11-29T10:15:10.123Z\",\"seq\":"
                  + i
                  + "}"));
    }
    int batch = CoderUtils.encodeToByteArray(IotRecordCoders.READING_BATCH, sameDevice).length;
    int oneByOne =
        CoderUtils.encodeToByteArray(ListCoder.of(IotRecordCoders.READING), sameDevice).length;
    assertThat(batch).isLessThan(oneByOne / 3);
  }

  /**
   * A reading as Gold's batches give it back: the fields Gold reads, the raw payload and date
   * empty, the registry's coordinates and model, the arrival instant and the extra fields null, the
   * original value and unit those after conversion, the ingest instant the event's.
   */
  private static SensorReading asGoldReadsIt(SensorReading r) {
    return leftEmpty(
        IotRecordCoders.READING,
        r,
        Map.of(
            "original_value", r.getValue(),
            "original_unit", r.getUnit(),
            "ingest_ts", r.getEventTs()));
  }

  /**
   * A heartbeat as Gold's batches give it back, left empty as a reading ({@link #asGoldReadsIt}).
   */
  private static Heartbeat asGoldReadsIt(Heartbeat h) {
    return leftEmpty(IotRecordCoders.HEARTBEAT, h, Map.of("ingest_ts", h.getEventTs()));
  }

  /** {@code record} with the fields Gold's batches leave out empty or null, and {@code values}. */
  private static <T> T leftEmpty(SchemaCoder<T> coder, T record, Map<String, Object> values) {
    Row.FieldValueBuilder row =
        Row.fromRow(coder.getToRowFunction().apply(record))
            .withFieldValue("raw_payload", "")
            .withFieldValue("date", "")
            .withFieldValue("latitude", null)
            .withFieldValue("longitude", null)
            .withFieldValue("model", null)
            .withFieldValue("received_at", null)
            .withFieldValue("extra", null);
    for (Map.Entry<String, Object> v : values.entrySet()) {
      row = row.withFieldValue(v.getKey(), v.getValue());
    }
    return coder.getFromRowFunction().apply(row.build());
  }

  /**
   * In a run ({@link CoderInRuns}): records written one after another by one run's coder come back
   * equal and in order from another run's coder, each distinct string written once in the run.
   */
  @Test
  void recordsInARunComeBackEqualAndWriteRepeatedTextOnce() throws Exception {
    for (SchemaCoder<?> coder :
        List.of(IotRecordCoders.BRONZE, IotRecordCoders.READING, IotRecordCoders.HEARTBEAT)) {
      runRoundTrips(coder);
    }
  }

  /**
   * A record's source is written around its source name (which the record carries): sources that
   * hold their name once, twice, at their start, or not at all, and an empty name, come back equal
   * alone, in a batch and in a run; and a batch of one file's readings does not repeat the file's
   * name in each record's source.
   */
  @Test
  void sourcesComeBackEqualAndDoNotRepeatTheirSourceName() throws Exception {
    List<SensorReading> readings =
        List.of(
            readingFrom("file:/data/a.ndjson#12", "/data/a.ndjson"),
            readingFrom("kafka:iot.raw/0#1042", "iot.raw"),
            readingFrom("aa#aa", "a"),
            readingFrom("/x.ndjson#1", "/x.ndjson"),
            readingFrom("generator:seed=42#7", "elsewhere"),
            readingFrom("x", ""),
            readingFrom("file:/é/ü.ndjson#3", "/é/ü.ndjson"));
    for (SensorReading r : readings) {
      assertThat(roundTrip(IotRecordCoders.READING, r)).isEqualTo(r);
    }
    assertThat(roundTrip(IotRecordCoders.READING_BATCH, readings))
        .isEqualTo(readings.stream().map(IotRecordCodersTest::asGoldReadsIt).toList());
    ByteArrayOutputStream run = new ByteArrayOutputStream();
    Coder<SensorReading> writer =
        ((CoderInRuns<SensorReading>) IotRecordCoders.READING).forOneRun();
    for (SensorReading r : readings) {
      writer.encode(r, run);
    }
    ByteArrayInputStream in = new ByteArrayInputStream(run.toByteArray());
    Coder<SensorReading> reader =
        ((CoderInRuns<SensorReading>) IotRecordCoders.READING).forOneRun();
    for (SensorReading r : readings) {
      assertThat(reader.decode(in)).isEqualTo(r);
    }

    String name = "/data/sensors/2026-11-29/site-berlin.ndjson";
    List<SensorReading> ofOneFile = new ArrayList<>();
    List<SensorReading> elsewhere = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      ofOneFile.add(readingFrom("file:" + name + "#" + i, name));
      elsewhere.add(readingFrom("file:" + name + "#" + i, "another name of the same length....."));
    }
    int around = CoderUtils.encodeToByteArray(IotRecordCoders.READING_BATCH, ofOneFile).length;
    int whole = CoderUtils.encodeToByteArray(IotRecordCoders.READING_BATCH, elsewhere).length;
    assertThat(around).isLessThan(whole - 100 * (name.length() - 2));
  }

  private static SensorReading readingFrom(String source, String sourceName) throws Exception {
    Row row =
        Row.fromRow(recordRow(SCHEMAS.getSchema(SensorReading.class), false))
            .withFieldValue("source", source)
            .withFieldValue("source_name", sourceName)
            .build();
    return SCHEMAS.getFromRowFunction(SensorReading.class).apply(row);
  }

  @SuppressWarnings("unchecked") // the coder's own type, and its own runs
  private static <T> void runRoundTrips(SchemaCoder<T> coder) throws Exception {
    Class<T> type = (Class<T>) coder.getEncodedTypeDescriptor().getRawType();
    Schema schema = SCHEMAS.getSchema(type);
    T full = record(type, schema, false);
    T sparse = record(type, schema, true);
    List<T> records = List.of(full, sparse, full, full, sparse);
    ByteArrayOutputStream run = new ByteArrayOutputStream();
    Coder<T> writer = ((CoderInRuns<T>) coder).forOneRun();
    for (T r : records) {
      writer.encode(r, run);
    }
    ByteArrayInputStream in = new ByteArrayInputStream(run.toByteArray());
    Coder<T> reader = ((CoderInRuns<T>) coder).forOneRun();
    for (T r : records) {
      assertThat(reader.decode(in)).isEqualTo(r);
    }
    assertThat(in.available()).isZero();
    int oneByOne = CoderUtils.encodeToByteArray(ListCoder.of(coder), records).length;
    assertThat(run.size()).as(type.getSimpleName()).isLessThan(oneByOne * 2 / 3);
  }

  private static SensorReading readingWithPayload(String payload) throws Exception {
    Row row =
        Row.fromRow(recordRow(SCHEMAS.getSchema(SensorReading.class), false))
            .withFieldValue("raw_payload", payload)
            .build();
    return SCHEMAS.getFromRowFunction(SensorReading.class).apply(row);
  }

  @SuppressWarnings("unchecked") // the row functions of the coder's own type
  private static <T> Row toRow(SchemaCoder<T> coder, Object record) {
    return coder.getToRowFunction().apply((T) record);
  }

  private static <T> void roundTripsEveryField(Class<T> type, Coder<T> coder) throws Exception {
    Schema schema = SCHEMAS.getSchema(type);
    T full = record(type, schema, false);
    T sparse = record(type, schema, true);
    assertThat(full).isNotEqualTo(sparse);
    Coder<T> schemaCoder = SCHEMAS.getSchemaCoder(type);
    for (T r : List.of(full, sparse)) {
      assertThat(roundTrip(coder, r)).isEqualTo(r);
      assertThat(roundTrip(coder, roundTrip(schemaCoder, r))).isEqualTo(roundTrip(schemaCoder, r));
    }
  }

  /** A record of the schema: field i holds a value made from i (null if nullable and sparse). */
  private static <T> T record(Class<T> type, Schema schema, boolean sparse) throws Exception {
    return SCHEMAS.getFromRowFunction(type).apply(recordRow(schema, sparse));
  }

  private static Row recordRow(Schema schema, boolean sparse) {
    Row.Builder row = Row.withSchema(schema);
    for (int i = 0; i < schema.getFieldCount(); i++) {
      Schema.Field field = schema.getField(i);
      if (sparse && field.getType().getNullable()) {
        row.addValue(null);
        continue;
      }
      row.addValue(
          switch (field.getType().getTypeName()) {
            case STRING -> field.getName() + " ✓ " + i;
            case DOUBLE -> i + 0.25;
            case INT64 -> 1000L + i;
            case INT32 -> 100 + i;
            case DATETIME -> new Instant(1_764_000_000_000L + i);
            default -> throw new IllegalStateException("no test value for " + field);
          });
    }
    return row.build();
  }

  private static <T> T roundTrip(Coder<T> coder, T value) throws Exception {
    return CoderUtils.decodeFromByteArray(coder, CoderUtils.encodeToByteArray(coder, value));
  }
}
