package dev.medallion.core;

import static java.time.ZoneOffset.UTC;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class EventTimestampsTest {
  private static JsonNode json(String literal) throws Exception {
    return Json.mapper().readTree(literal);
  }

  // 2026-11-29T10:15:30.123Z, worked out by hand: 20786 days * 86400000 + 36930123 ms.
  private static final long EXPECTED_MILLIS = 20786L * 86_400_000L + 36_930_123L;

  @ParameterizedTest
  @ValueSource(
      strings = {
        "\"2026-11-29T10:15:30.123Z\"",
        "\"2026-11-29T05:15:30.123-05:00\"",
        "\"2026-11-29T12:15:30.123+02:00\"",
        "1795947330123"
      })
  void acceptsTheSameInstantInEveryForm(String literal) throws Exception {
    assertThat(EventTimestamps.parse(json(literal), "ts")).isEqualTo(new Instant(EXPECTED_MILLIS));
  }

  @Test
  void anyEarlierLetsEveryTimestampThroughFromAnyInputWithoutOverflow() {
    // a runner's check of a stamped output: no earlier than the input's timestamp minus the skew
    Instant fromEarliest = BoundedWindow.TIMESTAMP_MIN_VALUE.minus(EventTimestamps.ANY_EARLIER);
    Instant fromLatest = BoundedWindow.TIMESTAMP_MAX_VALUE.minus(EventTimestamps.ANY_EARLIER);
    assertThat(fromEarliest).isLessThan(BoundedWindow.TIMESTAMP_MIN_VALUE);
    assertThat(fromLatest).isLessThanOrEqualTo(BoundedWindow.TIMESTAMP_MIN_VALUE);
  }

  @Test
  void epochLiteralAgreesWithHandComputation() {
    assertThat(EXPECTED_MILLIS).isEqualTo(1795947330123L);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "\"2026-11-29T10:15:30.123\"", // no offset
        "\"2026-11-29\"", // a date
        "\"yesterday\"",
        "\"1795947330123\"", // millis as a string
        "1795947330123.5", // fractional millis
        "true",
        "{}",
        "-5",
        "99999999999999999999"
      })
  void rejectsEverythingElseAsInvalid(String literal) throws Exception {
    assertThatThrownBy(() -> EventTimestamps.parse(json(literal), "ts"))
        .isInstanceOf(InvalidRecordException.class)
        .extracting(e -> ((InvalidRecordException) e).getReason())
        .isEqualTo("invalid_ts");
  }

  @Test
  void nullOrAbsentIsMissing() throws Exception {
    assertThatThrownBy(() -> EventTimestamps.parse(json("null"), "ts"))
        .extracting(e -> ((InvalidRecordException) e).getReason())
        .isEqualTo("missing_ts");
    assertThatThrownBy(() -> EventTimestamps.parse(null, "ts"))
        .extracting(e -> ((InvalidRecordException) e).getReason())
        .isEqualTo("missing_ts");
  }

  @Test
  void partitionsAreUtc() {
    Instant t = new Instant(EXPECTED_MILLIS);
    assertThat(EventTimestamps.utcDate(t)).isEqualTo("2026-11-29");
    assertThat(EventTimestamps.utcHour(t)).isEqualTo(10);
    assertThat(EventTimestamps.isoMillis(t)).isEqualTo("2026-11-29T10:15:30.123Z");
  }

  /** The hour partition is java.time's hour of day in UTC, at each hour's edges and before 1970. */
  @Test
  void theHourIsJavaTimesHourOfDay() {
    Random random = new Random(7);
    List<Long> millis = new ArrayList<>();
    for (long edge : new long[] {0, EXPECTED_MILLIS, 253402300799999L, -62167219200000L}) {
      for (long d = -3_600_001L; d <= 3_600_001L; d += 1_200_000L) {
        millis.addAll(List.of(edge + d, edge + d + 1, edge + d - 1));
      }
    }
    for (int i = 0; i < 10_000; i++) {
      millis.add(random.nextLong() % 300_000_000_000_000L);
    }
    for (long m : millis) {
      int javaTime = java.time.Instant.ofEpochMilli(m).atOffset(UTC).getHour();
      assertThat(EventTimestamps.utcHour(new Instant(m))).as("%d", m).isEqualTo(javaTime);
    }
  }

  /** The ISO parser's reading of a text, or null where it refuses it. */
  private static Long isoParser(String text) {
    try {
      return OffsetDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME)
          .toInstant()
          .toEpochMilli();
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  @Test
  void theUsualShapeIsReadWithoutTheIsoParserToTheSameInstant() {
    Random random = new Random(7);
    for (int i = 0; i < 20_000; i++) {
      long millis = (long) (random.nextDouble() * 253402300799999L);
      String text = EventTimestamps.isoMillis(new Instant(millis));
      assertThat(EventTimestamps.utcIsoMillis(text)).as(text).isEqualTo(millis);
      String noFraction = text.substring(0, 19) + "Z";
      assertThat(EventTimestamps.utcIsoMillis(noFraction))
          .as(noFraction)
          .isEqualTo(millis - millis % 1000)
          .isEqualTo(isoParser(noFraction));
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "2027-02-29T00:00:00.000Z", // not a leap year
        "2026-13-01T00:00:00.000Z",
        "2026-00-10T00:00:00.000Z",
        "2026-04-31T00:00:00Z",
        "2026-11-29T24:00:00.000Z",
        "2026-11-29T10:60:00.000Z",
        "2026-11-29T10:15:60.000Z", // a leap second: the ISO parser refuses it too
        "2026-11-29T10:15:30,123Z",
        "2026-11-29T10:15:3a.123Z",
        "2026-11-29 10:15:30.123Z",
        "2026-11-29T10:15:30.123z",
        "+2026-11-29T10:15:30.12Z",
        "2026-11-29T10:15:30.123+00:00", // other shapes: to the ISO parser
        "2026-11-29T10:15:30.1234Z",
        "2026-11-29T10:15Z",
        "２026-11-29T10:15:30.123Z" // a full-width digit
      })
  void everyOtherTextIsLeftToTheIsoParser(String text) {
    assertThat(EventTimestamps.utcIsoMillis(text)).isEqualTo(EventTimestamps.NOT_FAST);
  }

  @Test
  void whatTheIsoParserRefusesIsStillInvalid() throws Exception {
    for (String text : List.of("2027-02-29T00:00:00.000Z", "2026-11-29T24:00:00.000Z")) {
      assertThat(isoParser(text)).isNull();
      assertThatThrownBy(() -> EventTimestamps.parse(json("\"" + text + "\""), "ts"))
          .extracting(e -> ((InvalidRecordException) e).getReason())
          .isEqualTo("invalid_ts");
    }
  }

  @Test
  void datesAgreeWithTheFormatterFrom1970To9999() {
    DateTimeFormatter formatter = DateTimeFormatter.ofPattern("yyyy-MM-dd");
    Random random = new Random(11);
    List<Long> instants = new ArrayList<>(List.of(0L, 86_399_999L, 86_400_000L, 253402300799999L));
    for (int i = 0; i < 20_000; i++) {
      instants.add((long) (random.nextDouble() * 253402300799999L));
    }
    // Days seen again, and days 64 apart (which share a slot of the recent days), alternating.
    long day = 86_400_000L;
    for (int i = 0; i < 2_000; i++) {
      long base = 1_795_000_000_000L + random.nextInt(3) * 64 * day;
      instants.add(base + random.nextInt(3) * day + random.nextInt(86_400_000));
    }
    for (long millis : instants) {
      assertThat(EventTimestamps.utcDate(new Instant(millis)))
          .as("%d", millis)
          .isEqualTo(formatter.format(java.time.Instant.ofEpochMilli(millis).atOffset(UTC)));
    }
  }
}
