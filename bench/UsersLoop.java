import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.security.MessageDigest;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;

/**
 * The benchmark's practical limit: the user-features tables in one pass of a hand-written Java
 * loop, with no framework. The same rules as {@code bench/users.sql} (written from the README,
 * not from the project's code): Bronze keeps every JSON-object line with its file, line number
 * and ingest time; Silver checks the keys, quarantines with a reason and keeps the first copy of
 * each (user_id, instant) in file and line order; Gold is one row per user as of the latest event
 * date with the SHA-256 feature hash. Every table is written as Parquet (Snappy), partitioned like
 * the project's. One thread reads, parses and decides; each table's rows are encoded on a thread
 * of its own ({@link LoopTables}: Parquet encoding is most of the work), so both cores are busy.
 *
 * <pre>java -cp tools-classpath:classes UsersLoop input=GLOB out=DIR</pre>
 *
 * <p>Prints the counts tab-separated (lines, bronze, bronze_dead, silver, quarantined, duplicates,
 * gold), with a header line, as {@code users.sql} does. It holds per user its totals and the
 * instants seen (for the dedupe); every row is written as it is decided.
 */
public final class UsersLoop {
  private static final JsonFactory JSON = new JsonFactory();
  private static final Pattern ISO =
      Pattern.compile(
          "\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:\\d{2})");
  private static final long MAX_MS = 253402300800000L; // 10000-01-01
  private static final long FUTURE_MS = 30L * 24 * 3600 * 1000;
  private static final DateTimeFormatter HASH_TS =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);
  private static final String TS = "optional int64 %s (TIMESTAMP(MICROS,false));";
  private static final String STR = "optional binary %s (STRING);";

  private static final MessageType BRONZE =
      schema(
          "bronze",
          "user_id:s event_type:s event_timestamp:t raw_line:s source:s source_file:s"
              + " line_number:l ingest_ts:t event_id:s session_id:s product_id:s price:d"
              + " invalid_fields:s device:s country:s");
  private static final MessageType SILVER =
      schema(
          "silver",
          "event_id:s user_id:s event_type:s event_timestamp:t session_id:s product_id:s price:d"
              + " device:s country:s invalid_fields:s raw_line:s source:s source_file:s"
              + " line_number:l ingest_ts:t");
  private static final MessageType DEAD =
      schema("quarantine", "reason:s original_payload:s source:s");
  private static final MessageType GOLD =
      schema(
          "gold",
          "user_id:s last_event_timestamp:t last_event_type:s click_count:l purchase_count:l"
              + " view_count:l add_to_cart_count:l event_count:l first_event_timestamp:t"
              + " days_since_last_event:l last_feature_hash:s");

  /** Columns whose values are (nearly) all different: no dictionary (it is tried per row group). */
  private static final Set<String> NO_DICTIONARY =
      Set.of("raw_line", "original_payload", "source", "event_id", "session_id", "event_timestamp",
          "line_number");

  /** The raw text, which nothing filters on: no min/max statistics. */
  private static final Set<String> NO_STATISTICS = Set.of("raw_line", "original_payload", "source");

  private UsersLoop() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> a =
        LoopTables.arguments(args, "UsersLoop input=GLOB out=DIR", "input", "out");
    LoopTables.print(run(files(a.get("input")), Path.of(a.get("out"))));
  }

  /** The files a glob names (only its last part may hold wildcards), sorted by path. */
  public static List<Path> files(String glob) throws IOException {
    Path p = Path.of(glob).toAbsolutePath();
    if (!p.getFileName().toString().matches(".*[*?\\[{].*")) {
      return List.of(p);
    }
    PathMatcher m = p.getFileSystem().getPathMatcher("glob:" + p);
    try (Stream<Path> s = Files.list(p.getParent())) {
      return s.filter(m::matches).sorted().toList();
    }
  }

  /** Writes the four tables under {@code out}; returns the counts. */
  public static Map<String, Long> run(List<Path> inputs, Path out) throws IOException {
    long ingestMs = System.currentTimeMillis();
    long ingestMicros = ingestMs * 1000;
    String ingestDate = date(Math.floorDiv(ingestMs, 86_400_000L));
    long lines = 0, bronze = 0, bronzeDead = 0, silver = 0, quarantined = 0, duplicates = 0;
    Map<String, User> users = new HashMap<>();
    String bronzePart = "ingest_date=" + ingestDate;
    Map<Long, String> dayParts = new HashMap<>();
    try (LoopTables t = new LoopTables(out, NO_DICTIONARY, NO_STATISTICS)) {
      for (Path file : inputs) {
        String sourceFile = file.toString();
        long lineNumber = 0;
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
          for (String line = in.readLine(); line != null; line = in.readLine()) {
            lines++;
            lineNumber++;
            String source = "file:" + sourceFile + "#" + lineNumber;
            Fields o = fields(line);
            if (o == null) {
              bronzeDead++;
              t.write("quarantine", DEAD, "stage=bronze",
                  new Object[] {line.isBlank() ? "empty_line" : "not_json", line, source});
              continue;
            }
            String userId = o.userId, eventType = o.eventType, invalid = o.invalid;
            Long ts = o.ts;
            Double price = o.price;
            Long tsMicros = ts == null ? null : ts * 1000;
            String eventId = o.eventId, session = o.session, product = o.product;
            String device = o.device, country = o.country;
            bronze++;
            t.write("bronze", BRONZE, bronzePart,
                new Object[] {userId, eventType, tsMicros, line, source, sourceFile, lineNumber,
                  ingestMicros, eventId, session, product, price, invalid, device, country});
            String reason =
                userId == null || userId.isBlank() ? "missing_user_id"
                    : eventType == null || eventType.isBlank() ? "missing_event_type"
                    : ts == null ? "missing_event_timestamp"
                    : ts > ingestMs + FUTURE_MS ? "future_event_timestamp"
                    : null;
            if (reason != null) {
              quarantined++;
              t.write("quarantine", DEAD, "stage=silver", new Object[] {reason, line, source});
              continue;
            }
            User u = users.computeIfAbsent(userId, k -> new User());
            if (!u.firstTime(ts)) {
              duplicates++;
              t.write("quarantine", DEAD, "stage=silver", new Object[] {"duplicate", line, source});
              continue;
            }
            u.add(eventType, ts);
            silver++;
            String day =
                dayParts.computeIfAbsent(
                    Math.floorDiv(ts, 86_400_000L), d -> "event_date=" + date(d));
            t.write("silver", SILVER, day,
                new Object[] {eventId, userId, eventType, tsMicros, session, product, price,
                  device, country, invalid, line, source, sourceFile, lineNumber, ingestMicros});
          }
        }
      }
      long asOf = Long.MIN_VALUE; // the latest event date, as a day number (none: no Gold)
      for (User u : users.values()) {
        asOf = Math.max(asOf, Math.floorDiv(u.last, 86_400_000L));
      }
      String asOfDate = users.isEmpty() ? "" : LocalDate.ofEpochDay(asOf).toString();
      for (Map.Entry<String, User> e : new TreeMap<>(users).entrySet()) {
        User u = e.getValue();
        String hash =
            sha256(e.getKey() + "|" + u.click + "|" + u.purchase + "|" + u.lastType + "|"
                + HASH_TS.format(Instant.ofEpochMilli(u.last)));
        t.write("gold", GOLD, "as_of_date=" + asOfDate,
            new Object[] {e.getKey(), u.last * 1000, u.lastType, u.click, u.purchase, u.view,
              u.cart, u.count, u.first * 1000, asOf - Math.floorDiv(u.last, 86_400_000L), hash});
      }
    }
    Map<String, Long> counts = new LinkedHashMap<>();
    counts.put("lines", lines);
    counts.put("bronze", bronze);
    counts.put("bronze_dead", bronzeDead);
    counts.put("silver", silver);
    counts.put("quarantined", quarantined);
    counts.put("duplicates", duplicates);
    counts.put("gold", (long) users.size());
    return counts;
  }

  /** A user's Gold totals and the instants of its events kept so far. */
  private static final class User {
    long[] seen = new long[4];
    int n;
    long last = Long.MIN_VALUE;
    long first = Long.MAX_VALUE;
    String lastType;
    long click, purchase, view, cart, count;

    boolean firstTime(long ts) {
      for (int i = 0; i < n; i++) {
        if (seen[i] == ts) {
          return false;
        }
      }
      if (n == seen.length) {
        seen = Arrays.copyOf(seen, n * 2);
      }
      seen[n++] = ts;
      return true;
    }

    void add(String type, long ts) {
      count++;
      switch (type) {
        case "click" -> click++;
        case "purchase" -> purchase++;
        case "view" -> view++;
        case "add_to_cart" -> cart++;
        default -> {}
      }
      if (ts > last) {
        last = ts;
        lastType = type;
      }
      first = Math.min(first, ts);
    }
  }

  /** The fields of a line that is one JSON object (a field of another JSON type: null). */
  private static final class Fields {
    String eventId, userId, eventType, session, product, device, country, invalid;
    Long ts;
    Double price;
  }

  /** The line's fields, read with a streaming parser; null when it is not one JSON object. */
  private static Fields fields(String line) {
    if (line.isBlank()) {
      return null;
    }
    try (JsonParser p = JSON.createParser(line)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      Fields f = new Fields();
      JsonToken t;
      while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken v = p.nextToken();
        String text = v == JsonToken.VALUE_STRING ? p.getText() : null;
        switch (name) {
          case "event_id" -> f.eventId = text;
          case "user_id" -> f.userId = text;
          case "event_type" -> f.eventType = text;
          case "session_id" -> f.session = text;
          case "product_id" -> f.product = text;
          case "device" -> f.device = text;
          case "country" -> f.country = text;
          case "event_timestamp" -> f.ts = timestamp(p, v, text);
          case "price" -> {
            f.price = v.isNumeric() ? p.getDoubleValue() : null;
            f.invalid = v.isNumeric() || v == JsonToken.VALUE_NULL ? null : "price";
          }
          default -> {}
        }
        p.skipChildren(); // an object or array value, read through (and checked)
      }
      return t == JsonToken.END_OBJECT && p.nextToken() == null ? f : null;
    } catch (IOException e) {
      return null;
    }
  }

  /** Epoch milliseconds: an ISO-8601 string with Z or an offset, or an integer; else null. */
  private static Long timestamp(JsonParser p, JsonToken v, String text) throws IOException {
    Long ms = null;
    if (v == JsonToken.VALUE_NUMBER_INT && p.getNumberType() != JsonParser.NumberType.BIG_INTEGER) {
      ms = p.getLongValue();
    } else if (text != null && ISO.matcher(text).matches()) {
      try {
        ms = OffsetDateTime.parse(text).toInstant().toEpochMilli();
      } catch (DateTimeParseException e) {
        return null;
      }
    }
    return ms != null && ms >= 0 && ms < MAX_MS ? ms : null;
  }

  private static String date(long day) {
    return LocalDate.ofEpochDay(day).toString();
  }

  private static String sha256(String s) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      return HexFormat.of().formatHex(sha.digest(s.getBytes(StandardCharsets.UTF_8)));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** "name:type ..." (s string, t timestamp, l long, d double) as an all-optional schema. */
  private static MessageType schema(String name, String columns) {
    StringBuilder b = new StringBuilder("message " + name + " {");
    for (String c : columns.split(" ")) {
      String[] nt = c.split(":");
      b.append(
          switch (nt[1]) {
            case "s" -> String.format(STR, nt[0]);
            case "t" -> String.format(TS, nt[0]);
            case "l" -> "optional int64 " + nt[0] + ";";
            default -> "optional double " + nt[0] + ";";
          });
    }
    return MessageTypeParser.parseMessageType(b.append("}").toString());
  }
}
