package dev.medallion.generator;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Iterator;
import java.util.Locale;
import java.util.NoSuchElementException;
import java.util.SplittableRandom;

/**
 * Generates user events (the batch pipeline's input) as NDJSON lines, deterministic for a seed:
 * {@code events} events of {@code users} users spread evenly over {@code days} days from {@code
 * start}. Knobs: malformed lines, resent duplicates (the same event again with its timestamp in
 * another form: offset or epoch millis), records with a missing or null key field, and a price of
 * the wrong type.
 */
public final class UserEventGenerator implements Iterator<String> {
  private static final String[] TYPES = {
    "view", "view", "view", "click", "click", "add_to_cart", "purchase"
  };
  private static final String[] DEVICES = {"mobile", "desktop", "tablet"};
  private static final String[] COUNTRIES = {"DE", "FR", "ES", "NO", "US"};
  private static final DateTimeFormatter OFFSET =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSxxx");

  private final SplittableRandom random;
  private final int users;
  private final long events;
  private final long startMillis;
  private final long spanMillis;
  private final double malformed;
  private final double duplicates;
  private final double missingKeys;
  private final double badPrice;
  private long n;
  private String resend;

  public UserEventGenerator(
      long seed,
      int users,
      long events,
      Instant start,
      int days,
      double malformed,
      double duplicates,
      double missingKeys,
      double badPrice) {
    this.random = new SplittableRandom(seed);
    this.users = users;
    this.events = events;
    this.startMillis = start.toEpochMilli();
    this.spanMillis = days * 86_400_000L;
    this.malformed = malformed;
    this.duplicates = duplicates;
    this.missingKeys = missingKeys;
    this.badPrice = badPrice;
  }

  @Override
  public boolean hasNext() {
    return resend != null || n < events;
  }

  @Override
  public String next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    if (resend != null) {
      String line = resend;
      resend = null;
      return line;
    }
    n++;
    long ts = startMillis + (spanMillis * (n - 1)) / Math.max(1, events) + random.nextInt(0, 1000);
    String user = String.format(Locale.ROOT, "u-%05d", 1 + random.nextInt(users));
    String type = TYPES[random.nextInt(TYPES.length)];
    String price =
        random.nextDouble() < badPrice
            ? "\"n/a\""
            : String.format(Locale.ROOT, "%.2f", 1 + random.nextInt(20000) / 100.0);
    String userField = "\"user_id\":\"" + user + "\"";
    if (random.nextDouble() < missingKeys) {
      userField = random.nextBoolean() ? "\"user_id\":null" : "\"user_id_missing\":true";
    }
    String line = line(n, userField, type, "\"" + Instant.ofEpochMilli(ts) + "\"", price);
    if (random.nextDouble() < duplicates) {
      String other =
          random.nextBoolean()
              ? String.valueOf(ts)
              : "\""
                  + OFFSET.format(Instant.ofEpochMilli(ts).atOffset(ZoneOffset.ofHours(2)))
                  + "\"";
      resend = line(n, userField, type, other, price);
    }
    if (random.nextDouble() < malformed) {
      return line.substring(0, line.length() / 2);
    }
    return line;
  }

  private String line(long id, String userField, String type, String ts, String price) {
    return String.format(
        Locale.ROOT,
        "{\"event_id\":\"e-%08d\",%s,\"event_type\":\"%s\",\"event_timestamp\":%s,"
            + "\"session_id\":\"s-%03d\",\"product_id\":\"p-%04d\",\"price\":%s,\"device\":\"%s\",\"country\":\"%s\"}",
        id,
        userField,
        type,
        ts,
        id % 997,
        id % 5000,
        price,
        DEVICES[(int) (id % DEVICES.length)],
        COUNTRIES[(int) (id % COUNTRIES.length)]);
  }
}
