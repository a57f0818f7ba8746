package dev.medallion.iot;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.schemas.SchemaRegistry;
import org.apache.beam.sdk.util.CoderUtils;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * Gold's batch coders give back the very records they were given, every field with and without its
 * nullable values, and agree with the records' schema coders on them.
 */
class SilverRecordCodersTest {
  private static final SensorReading FULL = reading(true);
  private static final SensorReading SPARSE = reading(false);
  private static final Heartbeat FULL_HEARTBEAT = heartbeat(true);
  private static final Heartbeat SPARSE_HEARTBEAT = heartbeat(false);

  /** A reading with every field set, or with its nullable fields null. */
  private static SensorReading reading(boolean full) {
    return SensorReading.builder()
        .setDeviceId("dev-0001")
        .setSite("berlin")
        .setZone("hall-2")
        .setLatitude(full ? 52.52 : null)
        .setLongitude(full ? 13.405 : null)
        .setModel(full ? "TH-200" : null)
        .setSensorType("temperature")
        .setValue(21.5)
        .setUnit("C")
        .setOriginalValue(70.7)
        .setOriginalUnit("F")
        .setSeq(full ? 7L : null)
        .setEventTs(Instant.parse("2026-11-29T10:15:10.123Z"))
        .setDate("2026-11-29")
        .setRawPayload("{\"device_id\":\"dev-0001\",\"note\":\"ünïcödé ✓\"}")
        .setSource("file:/data/a.ndjson#12")
        .setSourceName("a.ndjson")
        .setReceivedAt(full ? Instant.parse("2026-11-29T10:15:11Z") : null)
        .setIngestTs(Instant.parse("2026-11-29T10:16:00Z"))
        .setExtra(full ? "{\"firmware\":\"2.1\"}" : null)
        .build();
  }

  /** A heartbeat with every field set, or with its nullable fields null. */
  private static Heartbeat heartbeat(boolean full) {
    return Heartbeat.builder()
        .setDeviceId("dev-0002")
        .setSite("paris")
        .setZone("roof")
        .setLatitude(full ? 48.85 : null)
        .setLongitude(full ? 2.35 : null)
        .setModel(full ? "HB-1" : null)
        .setBatteryPct(80.5)
        .setRssiDbm(-61)
        .setStatus("degraded")
        .setEventTs(Instant.parse("2026-11-29T10:15:30Z"))
        .setDate("2026-11-29")
        .setRawPayload("{\"device_id\":\"dev-0002\",\"status\":\"degraded\"}")
        .setSource("kafka:iot/0@17")
        .setSourceName("iot")
        .setReceivedAt(full ? Instant.parse("2026-11-29T10:15:31Z") : null)
        .setIngestTs(Instant.parse("2026-11-29T10:16:00Z"))
        .setExtra(full ? "{\"uptime_s\":12}" : null)
        .build();
  }

  @Test
  void readingsComeBackEqualWithAndWithoutTheirNullableFields() throws Exception {
    for (SensorReading r : List.of(FULL, SPARSE)) {
      assertThat(roundTrip(SilverRecordCoders.READING, r)).isEqualTo(r);
    }
    assertThat(FULL).isNotEqualTo(SPARSE);
  }

  @Test
  void heartbeatsComeBackEqualWithAndWithoutTheirNullableFields() throws Exception {
    for (Heartbeat h : List.of(FULL_HEARTBEAT, SPARSE_HEARTBEAT)) {
      assertThat(roundTrip(SilverRecordCoders.HEARTBEAT, h)).isEqualTo(h);
    }
    assertThat(FULL_HEARTBEAT).isNotEqualTo(SPARSE_HEARTBEAT);
  }

  @Test
  void theyDecodeWhatTheSchemaCodersDo() throws Exception {
    SchemaRegistry registry = SchemaRegistry.createDefault();
    Coder<SensorReading> readings = registry.getSchemaCoder(SensorReading.class);
    Coder<Heartbeat> heartbeats = registry.getSchemaCoder(Heartbeat.class);
    assertThat(roundTrip(SilverRecordCoders.READING, roundTrip(readings, FULL)))
        .isEqualTo(roundTrip(readings, FULL));
    assertThat(roundTrip(SilverRecordCoders.HEARTBEAT, roundTrip(heartbeats, FULL_HEARTBEAT)))
        .isEqualTo(roundTrip(heartbeats, FULL_HEARTBEAT));
  }

  private static <T> T roundTrip(Coder<T> coder, T value) throws Exception {
    return CoderUtils.decodeFromByteArray(coder, CoderUtils.encodeToByteArray(coder, value));
  }
}
