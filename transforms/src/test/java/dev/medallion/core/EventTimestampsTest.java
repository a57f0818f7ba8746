package dev.medallion.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
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
}
