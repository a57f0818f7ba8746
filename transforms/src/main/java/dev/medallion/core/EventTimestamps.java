package dev.medallion.core;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import org.joda.time.Instant;

/**
 * The one timestamp rule of every Medallion record ({@code ts} of sensor events, {@code
 * event_timestamp} of user events): an ISO-8601 instant with {@code Z} or an explicit offset, or
 * epoch milliseconds as a JSON integer. Anything else (a local date-time without offset, a number
 * with a fraction, a numeric string, a boolean, an instant outside years 1970..9999) is invalid.
 */
public final class EventTimestamps {

  /** Epoch millis of 10000-01-01T00:00:00Z: the first instant we no longer accept. */
  private static final long MAX_EPOCH_MILLIS = 253402300800000L;

  private static final DateTimeFormatter DATE = DateTimeFormatter.ofPattern("yyyy-MM-dd");
  private static final DateTimeFormatter ISO_MILLIS =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'");

  private EventTimestamps() {}

  /**
   * Parses a JSON timestamp value.
   *
   * @throws InvalidRecordException with reason {@code invalid_ts} when the value is not one of the
   *     accepted forms; the caller names the field in the exception's detail.
   */
  public static Instant parse(JsonNode value, String field) {
    if (value == null || value.isNull() || value.isMissingNode()) {
      throw new InvalidRecordException("missing_" + field, field + " is missing or null");
    }
    long millis;
    if (value.isIntegralNumber()) {
      if (!value.canConvertToLong()) {
        throw new InvalidRecordException("invalid_" + field, field + " is out of range: " + value);
      }
      millis = value.asLong();
    } else if (value.isTextual()) {
      millis = parseIso(value.asText(), field);
    } else {
      throw new InvalidRecordException(
          "invalid_" + field,
          field
              + " must be an ISO-8601 instant with offset or epoch millis, got "
              + value.getNodeType().name().toLowerCase()
              + " "
              + value);
    }
    if (millis < 0 || millis >= MAX_EPOCH_MILLIS) {
      throw new InvalidRecordException(
          "invalid_" + field, field + " is outside 1970..9999: " + value);
    }
    return new Instant(millis);
  }

  private static long parseIso(String text, String field) {
    try {
      return OffsetDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME)
          .toInstant()
          .toEpochMilli();
    } catch (DateTimeParseException | ArithmeticException e) {
      throw new InvalidRecordException(
          "invalid_" + field,
          field + " is not an ISO-8601 instant with Z or an offset: \"" + text + "\"");
    }
  }

  /** {@code YYYY-MM-DD} of the instant in UTC: the date partition value. */
  public static String utcDate(Instant instant) {
    return DATE.format(
        java.time.Instant.ofEpochMilli(instant.getMillis()).atOffset(ZoneOffset.UTC));
  }

  /** Hour of day 0..23 of the instant in UTC: the hour partition value. */
  public static int utcHour(Instant instant) {
    return java.time.Instant.ofEpochMilli(instant.getMillis()).atOffset(ZoneOffset.UTC).getHour();
  }

  /** {@code yyyy-MM-dd'T'HH:mm:ss.SSS'Z'} in UTC. */
  public static String isoMillis(Instant instant) {
    return ISO_MILLIS.format(
        java.time.Instant.ofEpochMilli(instant.getMillis()).atOffset(ZoneOffset.UTC));
  }
}
