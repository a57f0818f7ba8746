package dev.medallion.iot;

import static dev.medallion.testing.Events.heartbeat;
import static dev.medallion.testing.Events.reading;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.beam.sdk.util.CoderUtils;
import org.junit.jupiter.api.Test;

/**
 * Which readings are one reading: the same device, sensor type, instant and {@code seq}, or,
 * without {@code seq}, the same device, sensor type and instant.
 */
class MinuteStatsTest {
  private static final String TS = "2026-11-29T10:15:10Z";
  private static final List<Heartbeat> NO_HEARTBEATS = List.of();

  private static MinuteStats of(SensorReading... readings) {
    return MinuteStats.of(List.of(readings), NO_HEARTBEATS);
  }

  @Test
  void twoReadingsAtOneInstantWithDifferentSeqBothCount() {
    MinuteStats s =
        of(
            reading("dev-0001", "temperature", 20.0, TS, null, 1L),
            reading("dev-0001", "temperature", 23.0, TS, null, 2L));

    assertThat(s.getReadingCount()).isEqualTo(2);
    assertThat(agg(s, "temperature", "avg")).isEqualTo(21.5);
    assertThat(agg(s, "temperature", "min")).isEqualTo(20.0);
    assertThat(agg(s, "temperature", "max")).isEqualTo(23.0);
  }

  @Test
  void aResendWithTheSameSeqCountsOnce() {
    MinuteStats s =
        of(
            reading("dev-0001", "temperature", 20.0, TS, null, 1L),
            reading("dev-0001", "temperature", 23.0, TS, null, 2L),
            reading("dev-0001", "temperature", 20.0, TS, "2026-11-29T10:15:13Z", 1L));

    assertThat(s.getReadingCount()).isEqualTo(2);
    assertThat(agg(s, "temperature", "avg")).isEqualTo(21.5);
  }

  @Test
  void theSameInstantWrittenWithAnOffsetAndTheSameSeqIsAResend() {
    MinuteStats s =
        of(
            reading("dev-0001", "humidity", 40.0, TS, null, 7L),
            reading("dev-0001", "humidity", 40.0, "2026-11-29T12:15:10+02:00", null, 7L));

    assertThat(s.getReadingCount()).isEqualTo(1);
    assertThat(agg(s, "humidity", "avg")).isEqualTo(40.0);
  }

  @Test
  void ofTwoCopiesWithTheSameSeqTheSmallerValueIsKept() {
    MinuteStats s =
        of(
            reading("dev-0001", "temperature", 24.0, TS, null, 1L),
            reading("dev-0001", "temperature", 21.0, TS, null, 1L));

    assertThat(s.getReadingCount()).isEqualTo(1);
    assertThat(agg(s, "temperature", "avg")).isEqualTo(21.0);
  }

  @Test
  void twoReadingsWithoutSeqAtOneInstantCountOnceAndTheSmallerValueIsKept() {
    MinuteStats s =
        of(
            reading("dev-0001", "pressure", 1003.0, TS, null),
            reading("dev-0001", "pressure", 1001.0, TS, null));

    assertThat(s.getReadingCount()).isEqualTo(1);
    assertThat(agg(s, "pressure", "avg")).isEqualTo(1001.0);
  }

  /**
   * Two heartbeats of a device at one instant are one: the copy with the smaller battery (then
   * RSSI, then status) is kept, whichever comes first.
   */
  @Test
  void ofTwoHeartbeatsAtOneInstantTheSmallerBatteryIsKeptInEitherOrder() {
    Heartbeat high = heartbeat("dev-0001", 80, -60, "ok", TS, null);
    Heartbeat low = heartbeat("dev-0001", 40, -70, "degraded", TS, null);
    Heartbeat lowLouder = heartbeat("dev-0001", 40, -50, "ok", TS, null);
    Heartbeat lowInError = heartbeat("dev-0001", 40, -70, "error", TS, null);
    for (List<Heartbeat> order :
        List.of(
            List.of(high, low, lowLouder, lowInError), List.of(lowInError, lowLouder, low, high))) {
      MinuteStats s = MinuteStats.of(List.of(), order);

      assertThat(s.getHeartbeatCount()).isEqualTo(1);
      assertThat(s.getBatteryPctMin()).isEqualTo(40.0);
      assertThat(s.getRssiDbmAvg()).isEqualTo(-70.0);
      assertThat(s.getLastStatus()).isEqualTo("degraded");
    }
  }

  @Test
  void aReadingWithoutSeqIsNotTheSameAsOneWithSeq() {
    MinuteStats s =
        of(
            reading("dev-0001", "pressure", 1001.0, TS, null),
            reading("dev-0001", "pressure", 1003.0, TS, null, 5L));

    assertThat(s.getReadingCount()).isEqualTo(2);
    assertThat(agg(s, "pressure", "avg")).isEqualTo(1002.0);
  }

  @Test
  void theSameSeqOnAnotherSensorOrDeviceIsAnotherReading() {
    MinuteStats s =
        of(
            reading("dev-0001", "temperature", 20.0, TS, null, 1L),
            reading("dev-0001", "humidity", 40.0, TS, null, 1L),
            reading("dev-0002", "temperature", 22.0, TS, null, 1L));

    assertThat(s.getReadingCount()).isEqualTo(3);
    assertThat(s.getDeviceCount()).isEqualTo(2);
    assertThat(agg(s, "temperature", "avg")).isEqualTo(21.0);
  }

  @Test
  void readingsOfOtherCatalogTypesCountWithoutTouchingTheThreeAggregates() {
    MinuteStats s =
        of(
            reading("dev-0001", "temperature", 20.0, TS, null),
            reading("dev-0001", "vibration", 0.42, TS, null),
            reading("dev-0001", "tilt", 0.05, TS, null));

    assertThat(s.getReadingCount()).isEqualTo(3);
    assertThat(agg(s, "temperature", "avg")).isEqualTo(20.0);
    assertThat(agg(s, "temperature", "max")).isEqualTo(20.0);
    assertThat(agg(s, "humidity", "avg")).isNull();
    assertThat(agg(s, "pressure", "avg")).isNull();
  }

  @Test
  void theMergeOfDevicesAfterTheirCoderEqualsTheAggregatesOfAllTheirEvents() throws Exception {
    // Three devices of random readings (some resent) and heartbeats, two of them with heartbeats
    // at one instant (the larger device id's status wins): each device's aggregates, encoded
    // and decoded as between two steps, then merged, against the aggregates of every event at
    // once.
    Random random = new Random(7);
    List<String> devices = List.of("dev-0001", "dev-0002", "dev-0003");
    List<String> types = List.of("temperature", "humidity", "pressure", "vibration");
    List<SensorReading> all = new ArrayList<>();
    List<Heartbeat> allBeats = new ArrayList<>();
    List<MinuteStats> parts = new ArrayList<>();
    for (String device : devices) {
      List<SensorReading> readings = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        String ts = String.format("2026-11-29T10:15:%02dZ", random.nextInt(60));
        readings.add(
            reading(
                device,
                types.get(random.nextInt(types.size())),
                Math.round(random.nextDouble() * 10_000) / 100.0,
                ts,
                null,
                (long) random.nextInt(3)));
      }
      List<Heartbeat> beats =
          device.equals("dev-0003")
              ? List.of()
              : List.of(
                  heartbeat(device, 50 + random.nextInt(50), -90, "ok", TS, null),
                  heartbeat(device, 40, -60, device + "-last", "2026-11-29T10:15:50Z", null));
      all.addAll(readings);
      allBeats.addAll(beats);
      MinuteStats part = MinuteStats.of(readings, beats);
      parts.add(
          CoderUtils.decodeFromByteArray(
              MinuteStats.CODER, CoderUtils.encodeToByteArray(MinuteStats.CODER, part)));
    }

    MinuteStats merged = MinuteStats.merge(parts);
    MinuteStats whole = MinuteStats.of(all, allBeats);

    assertThat(merged.getReadingCount()).isEqualTo(whole.getReadingCount()).isLessThan(120);
    assertThat(merged.getHeartbeatCount()).isEqualTo(whole.getHeartbeatCount()).isEqualTo(4);
    assertThat(merged.getDeviceCount()).isEqualTo(3);
    assertThat(merged.getBatteryPctMin()).isEqualTo(whole.getBatteryPctMin()).isEqualTo(40.0);
    assertThat(merged.getRssiDbmAvg()).isEqualTo(whole.getRssiDbmAvg()).isEqualTo(-75.0);
    assertThat(merged.getLastStatus()).isEqualTo(whole.getLastStatus()).isEqualTo("dev-0002-last");
    assertThat(merged.byType().keySet()).isEqualTo(whole.byType().keySet()).hasSize(4);
    whole
        .byType()
        .forEach(
            (type, want) -> {
              MinuteStats.TypeStats got = merged.byType().get(type);
              assertThat(got.count()).as(type).isEqualTo(want.count());
              assertThat(got.min()).as(type).isEqualTo(want.min());
              assertThat(got.max()).as(type).isEqualTo(want.max());
              assertThat(got.unit()).as(type).isEqualTo(want.unit());
              assertThat(got.avg()).as(type).isCloseTo(want.avg(), within(1e-9));
            });
  }

  @Test
  void aMergeOfNothingHasNoAggregates() {
    MinuteStats none = MinuteStats.merge(List.of());

    assertThat(none.getReadingCount()).isZero();
    assertThat(none.getDeviceCount()).isZero();
    assertThat(none.getBatteryPctMin()).isNull();
    assertThat(none.getRssiDbmAvg()).isNull();
    assertThat(none.getLastStatus()).isNull();
    assertThat(none.byType()).isEmpty();
  }

  /** One aggregate of one sensor type, null when the type has no reading. */
  private static Double agg(MinuteStats s, String type, String aggregate) {
    MinuteStats.TypeStats t = s.byType().get(type);
    if (t == null) {
      return null;
    }
    return switch (aggregate) {
      case "avg" -> t.avg();
      case "min" -> t.min();
      default -> t.max();
    };
  }
}
