package dev.medallion.iot;

import static dev.medallion.testing.Events.reading;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
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
