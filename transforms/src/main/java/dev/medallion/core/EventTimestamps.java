package dev.medallion.core;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Duration;
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

  private EventTimestamps() {}

  /**
   * The allowed timestamp skew ({@code DoFn#getAllowedTimestampSkew}) of a step that stamps a
   * record with its own event time, which may be earlier than its input's timestamp by any amount:
   * half of {@code Long.MAX_VALUE} milliseconds, more than the whole range of Beam's timestamps.
   * Not {@code Long.MAX_VALUE} itself: a runner checks each stamped output against the input's
   * timestamp minus the skew, and from an input at Beam's minimum timestamp (a file's lines) that
   * subtraction overflows, so Joda throws and the runner catches an exception for every record. The
   * IoT replay of 1M lines created one per Bronze record, about 2 s of CPU (JFR's exception
   * statistics: 1,031,082 throwables in one run).
   */
  public static final Duration ANY_EARLIER = Duration.millis(Long.MAX_VALUE / 2);

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
    Instant at = isoInstant(text);
    if (at == null) {
      throw new InvalidRecordException(
          "invalid_" + field,
          field + " is not an ISO-8601 instant with Z or an offset: \"" + text + "\"");
    }
    return at.getMillis();
  }

  /** The instant of an ISO-8601 date-time with Z or an offset, or null when it is none. */
  public static @Nullable Instant isoInstant(String text) {
    long fast = utcIsoMillis(text);
    if (fast != NOT_FAST) {
      return new Instant(fast);
    }
    try {
      return new Instant(
          OffsetDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME)
              .toInstant()
              .toEpochMilli());
    } catch (DateTimeParseException | ArithmeticException e) {
      return null;
    }
  }

  /** What {@link #utcIsoMillis} returns for a text it leaves to the full parser. */
  public static final long NOT_FAST = Long.MIN_VALUE;

  /**
   * The instant of the usual shape, {@code yyyy-MM-ddTHH:mm:ss.SSSZ} or {@code
   * yyyy-MM-ddTHH:mm:ssZ} (what the generator and most producers write), read digit by digit: the
   * same value the ISO parser gives, at a fraction of its cost (it was 4 % of a batch job's CPU).
   * {@link #NOT_FAST} for any other text, and for a date or time out of range, which the ISO parser
   * then accepts or rejects with its own message.
   */
  public static long utcIsoMillis(String t) {
    int n = t.length();
    if ((n != 24 && n != 20)
        || t.charAt(4) != '-'
        || t.charAt(7) != '-'
        || t.charAt(10) != 'T'
        || t.charAt(13) != ':'
        || t.charAt(16) != ':'
        || t.charAt(n - 1) != 'Z'
        || (n == 24 && t.charAt(19) != '.')) {
      return NOT_FAST;
    }
    int year = digits(t, 0, 4);
    int month = digits(t, 5, 2);
    int day = digits(t, 8, 2);
    int hour = digits(t, 11, 2);
    int minute = digits(t, 14, 2);
    int second = digits(t, 17, 2);
    int millis = n == 24 ? digits(t, 20, 3) : 0;
    if ((year | month | day | hour | minute | second | millis) < 0) {
      return NOT_FAST;
    }
    try {
      return LocalDateTime.of(year, month, day, hour, minute, second).toEpochSecond(ZoneOffset.UTC)
              * 1000
          + millis;
    } catch (DateTimeException outOfRange) {
      return NOT_FAST;
    }
  }

  /** The ASCII digits {@code t[from, from + count)} as a number, or -1 if one is not a digit. */
  private static int digits(String t, int from, int count) {
    int value = 0;
    for (int i = from; i < from + count; i++) {
      char c = t.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return value;
  }

  /** {@code YYYY-MM-DD} of the instant in UTC: the date partition value. */
  public static String utcDate(Instant instant) {
    long millis = instant.getMillis();
    if (millis >= 0 && millis < MAX_EPOCH_MILLIS) {
      // Years 1970..9999: ISO's yyyy-MM-dd, without a formatter (one per event and table row),
      // and once per day seen lately: a batch's events span a few days.
      long epochDay = millis / MILLIS_PER_DAY;
      int slot = (int) (epochDay & (RECENT_DAYS.length - 1));
      Day day = RECENT_DAYS[slot];
      if (day == null || day.epochDay() != epochDay) {
        day = new Day(epochDay, LocalDate.ofEpochDay(epochDay).toString());
        RECENT_DAYS[slot] = day; // threads that race here only format the same day twice
      }
      return day.date();
    }
    return DATE.format(java.time.Instant.ofEpochMilli(millis).atOffset(ZoneOffset.UTC));
  }

  private static final long MILLIS_PER_DAY = 86_400_000L;

  /** A day's date text (immutable, so safely shared between threads without a lock). */
  private record Day(long epochDay, String date) {}

  /** The dates of days seen lately, by epoch day modulo 64. */
  private static final Day[] RECENT_DAYS = new Day[64];

  /** Hour of day 0..23 of the instant in UTC: the hour partition value. */
  public static int utcHour(Instant instant) {
    // UTC's days are all 24 hours long (no leap seconds in epoch millis), so no calendar is needed.
    return (int) (Math.floorMod(instant.getMillis(), MILLIS_PER_DAY) / MILLIS_PER_HOUR);
  }

  private static final long MILLIS_PER_HOUR = 3_600_000L;

  /** Epoch millis of 0000-01-01T00:00:00Z. */
  private static final long MIN_FOUR_DIGIT_YEAR_MILLIS = -62167219200000L;

  /**
   * {@code yyyy-MM-dd'T'HH:mm:ss.SSS'Z'} in UTC, the text of Joda's {@code Instant.toString()}: for
   * the years 0 to 9999 written digit by digit, for any other year by Joda (which signs the year:
   * {@code -0070-06-10T00:22:18.869Z}, 71 BC).
   */
  public static String isoMillis(Instant instant) {
    long millis = instant.getMillis();
    if (millis < MIN_FOUR_DIGIT_YEAR_MILLIS || millis >= MAX_EPOCH_MILLIS) {
      return new Instant(millis).toString();
    }
    LocalDate date = LocalDate.ofEpochDay(Math.floorDiv(millis, MILLIS_PER_DAY));
    int ofDay = (int) Math.floorMod(millis, MILLIS_PER_DAY);
    char[] s = "0000-00-00T00:00:00.000Z".toCharArray();
    put(s, 0, date.getYear(), 4);
    put(s, 5, date.getMonthValue(), 2);
    put(s, 8, date.getDayOfMonth(), 2);
    put(s, 11, ofDay / 3_600_000, 2);
    put(s, 14, ofDay / 60_000 % 60, 2);
    put(s, 17, ofDay / 1000 % 60, 2);
    put(s, 20, ofDay % 1000, 3);
    return new String(s);
  }

  /** Writes {@code value} as {@code count} ASCII digits at {@code s[from]}. */
  private static void put(char[] s, int from, int value, int count) {
    for (int i = from + count - 1; i >= from; i--) {
      s[i] = (char) ('0' + value % 10);
      value /= 10;
    }
  }
}
