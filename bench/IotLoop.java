import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;

/**
 * The benchmark's practical limit for the IoT replay: the IoT tables of one NDJSON file in one pass
 * of a hand-written Java loop, with no framework and no table catalog. The rules are those of
 * {@code testdata/iot/compute_expected.py} and {@code testdata/rules.py} (written from the issues,
 * not from the project's code) with the default sensor catalog: Bronze keeps every JSON-object
 * line with a device and a valid {@code ts} (a reading if it has {@code sensor_type}, else a
 * heartbeat if it has a heartbeat field); Silver checks each record's types, unit (Fahrenheit
 * converted to Celsius), range and device, and enriches it from the registry; Gold counts a resent
 * event once and adds up per device, per site and per device and sensor type each minute. The
 * tables have the project's columns and are written as Parquet (Snappy, {@link LoopTables}).
 *
 * <p>What it leaves out of the project's work: the table catalog and its commits, the run's report,
 * and the exact texts of the dead letters (its reasons are the rules' names, its details the same
 * as the reasons) and of Bronze's {@code extra} (the names of the fields it does not know, not
 * their JSON).
 *
 * <p>It holds what Gold needs (each minute's totals per device and sensor type, and the identity
 * of each event, to count a resent one once); every other row is written as it is decided. One
 * thread reads, parses and decides; each table's rows are encoded on a thread of its own.
 *
 * <pre>java -cp tools-classpath:classes IotLoop input=FILE devices=CSV out=DIR</pre>
 *
 * <p>Prints the counts tab-separated, with a header line: lines, bronze, bronze_dead, silver,
 * quarantined, device_minute, site_minute, sensor_minute.
 */
public final class IotLoop {
  private static final JsonFactory JSON =
      JsonFactory.builder()
          .enable(com.fasterxml.jackson.core.StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .build();
  private static final Pattern ISO =
      Pattern.compile(
          "\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:\\d{2})");
  private static final long MAX_MS = 253402300800000L; // 10000-01-01
  private static final long MINUTE = 60_000L;
  private static final long DAY = 86_400_000L;

  private static final MessageType BRONZE =
      schema(
          "event_kind:S device_id:S event_ts:T raw_payload:S source:S source_kind:S source_name:S"
              + " source_partition:i source_offset:L received_at:t ingest_ts:T schema_version:I"
              + " date:S hour:I sensor_type:s value:d unit:s seq:l battery_pct:d rssi_dbm:l"
              + " status:s type_errors:s extra:s");
  private static final String ENRICHED =
      "device_id:S site:S zone:S latitude:d longitude:d model:s ";
  private static final String LINEAGE =
      " event_ts:T date:S raw_payload:S source:S source_name:S received_at:t ingest_ts:T extra:s";
  private static final MessageType READINGS =
      schema(
          ENRICHED
              + "sensor_type:S value:D unit:S original_value:D original_unit:S seq:l"
              + LINEAGE);
  private static final MessageType HEARTBEATS =
      schema(ENRICHED + "battery_pct:D rssi_dbm:L status:S" + LINEAGE);
  private static final MessageType DEAD =
      schema(
          "stage:S reason:S detail:S original_payload:S source:S source_name:S event_ts:t at:T"
              + " date:S");
  private static final String AGGREGATES =
      "reading_count:L temperature_avg:d temperature_min:d temperature_max:d humidity_avg:d"
          + " pressure_avg:d heartbeat_count:L battery_pct_min:d rssi_dbm_avg:d";
  private static final String PANE = " pane_index:L pane_timing:S date:S written_at:t";
  private static final MessageType DEVICE_MINUTE =
      schema(
          "device_id:S site:S zone:S window_start:T window_end:T "
              + AGGREGATES
              + " last_status:s"
              + PANE);
  private static final MessageType SITE_MINUTE =
      schema("site:S window_start:T window_end:T device_count:L " + AGGREGATES + PANE);
  private static final MessageType SENSOR_MINUTE =
      schema(
          "device_id:S site:S zone:S sensor_type:S unit:S window_start:T window_end:T"
              + " reading_count:L value_avg:D value_min:D value_max:D"
              + PANE.replace("written_at:t", "written_at:T"));

  /** The project's columns whose values are (nearly) all different: no dictionary. */
  private static final Set<String> NO_DICTIONARY =
      Set.of("raw_payload", "original_payload", "source", "source_offset", "event_ts",
          "received_at");

  /** The raw text, which nothing filters on: no min/max statistics. */
  private static final Set<String> NO_STATISTICS = Set.of("raw_payload", "original_payload");

  /** The default sensor catalog's types: index, kept unit, range. */
  private static final String[] TYPES = {"temperature", "humidity", "pressure"};
  private static final String[] UNITS = {"C", "%", "hPa"};
  private static final double[] LO = {-40, 0, 300};
  private static final double[] HI = {125, 100, 1100};
  private static final Set<String> STATUSES = Set.of("ok", "degraded", "error");

  private IotLoop() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> a =
        LoopTables.arguments(
            args, "IotLoop input=FILE devices=CSV out=DIR", "input", "devices", "out");
    LoopTables.print(
        run(Path.of(a.get("input")), Path.of(a.get("devices")), Path.of(a.get("out"))));
  }

  /** Writes the IoT tables of {@code input} under {@code out}; returns the counts. */
  public static Map<String, Long> run(Path input, Path registry, Path out) throws IOException {
    Map<String, Device> devices = devices(registry);
    long ingestMicros = System.currentTimeMillis() * 1000;
    String ingestDate = date(Math.floorDiv(ingestMicros / 1000, DAY));
    String sourceName = input.toAbsolutePath().toString();
    String sourcePrefix = "file:" + sourceName + "#";
    Map<Long, String> days = new HashMap<>();
    Map<Long, String> hours = new HashMap<>();
    long lines = 0, bronze = 0, bronzeDead = 0, silver = 0, quarantined = 0;
    Map<DeviceMinute, Minute> perDevice = new HashMap<>();
    Map<SensorKey, Sensor> perSensor = new HashMap<>();
    Set<ReadingId> readingIds = new HashSet<>();
    Set<HeartbeatId> heartbeatIds = new HashSet<>();
    Map<String, Long> counts = new LinkedHashMap<>();
    try (LoopTables t = new LoopTables(out, NO_DICTIONARY, NO_STATISTICS);
        BufferedReader in = Files.newBufferedReader(input, StandardCharsets.UTF_8)) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        lines++;
        String source = sourcePrefix + lines;
        Event e = parse(line);
        String dead =
            e == null ? "not_json"
                : e.device == null ? "missing_device_id"
                : e.ts == null ? "invalid_ts"
                : e.kind == null ? "unknown_event_kind"
                : null;
        if (dead != null) {
          bronzeDead++;
          t.write("quarantine/iot_events", DEAD, "stage=bronze/date=" + ingestDate,
              new Object[] {"bronze", dead, dead, line, source, sourceName, null, ingestMicros,
                ingestDate});
          continue;
        }
        bronze++;
        long ts = e.ts;
        long tsMicros = ts * 1000;
        long day = Math.floorDiv(ts, DAY);
        String date = days.computeIfAbsent(day, IotLoop::date);
        int hour = (int) (Math.floorMod(ts, DAY) / 3_600_000L);
        String hourPart =
            hours.computeIfAbsent(day * 24 + hour, k -> "date=" + date + "/hour=" + hour);
        t.write("bronze/iot_events", BRONZE, hourPart,
            new Object[] {e.kind, e.device, tsMicros, line, source, "file", sourceName, null,
              lines, null, ingestMicros, 1, date, hour, e.sensorType, e.value, e.unit, e.seq,
              e.battery, e.rssi, e.status, e.typeErrors, e.extra});
        Device d = devices.get(e.device);
        String reason = e.kind.equals("reading") ? checkReading(e, d) : checkHeartbeat(e, d);
        if (reason != null) {
          quarantined++;
          t.write("quarantine/iot_events", DEAD, "stage=silver/date=" + ingestDate,
              new Object[] {"silver", reason, reason, line, source, sourceName, tsMicros,
                ingestMicros, ingestDate});
          continue;
        }
        silver++;
        long minute = ts - Math.floorMod(ts, MINUTE);
        DeviceMinute key = new DeviceMinute(d.number, minute);
        Minute m = perDevice.computeIfAbsent(key, k -> new Minute(d, minute));
        if (e.kind.equals("reading")) {
          int type = e.type;
          double value = e.type == 0 && e.unit.equals("F") ? (e.value - 32) * 5 / 9 : e.value;
          t.write("silver/sensor_readings", READINGS, "date=" + date,
              new Object[] {d.id, d.site, d.zone, d.latitude, d.longitude, d.model, e.sensorType,
                value, UNITS[type], e.value, e.unit, e.seq, tsMicros, date, line, source,
                sourceName, null, ingestMicros, e.extra});
          if (readingIds.add(new ReadingId(d.number, type, ts, e.seq))) {
            m.reading(type, value);
            perSensor.computeIfAbsent(new SensorKey(key, type), k -> new Sensor()).add(value);
          }
        } else {
          t.write("silver/device_heartbeats", HEARTBEATS, "date=" + date,
              new Object[] {d.id, d.site, d.zone, d.latitude, d.longitude, d.model, e.battery,
                e.rssi, e.status, tsMicros, date, line, source, sourceName, null, ingestMicros,
                e.extra});
          if (heartbeatIds.add(new HeartbeatId(d.number, ts))) {
            m.heartbeat(e.battery, e.rssi, e.status, ts);
          }
        }
      }
      long writtenAt = System.currentTimeMillis() * 1000;
      Map<String, Minute> perSite = new TreeMap<>();
      for (Minute m : perDevice.values()) {
        String date = days.computeIfAbsent(Math.floorDiv(m.start, DAY), IotLoop::date);
        t.write("gold/device_minute", DEVICE_MINUTE, "date=" + date,
            m.row(new Object[] {m.device.id, m.device.site, m.device.zone}, m.lastStatus, date,
                writtenAt));
        perSite.computeIfAbsent(m.device.site + "\t" + m.start, k -> new Minute(m.device, m.start))
            .add(m);
      }
      for (Minute s : perSite.values()) {
        String date = days.get(Math.floorDiv(s.start, DAY));
        t.write("gold/site_minute", SITE_MINUTE, "date=" + date,
            s.row(new Object[] {s.device.site}, null, date, writtenAt));
      }
      for (Map.Entry<SensorKey, Sensor> e : perSensor.entrySet()) {
        int type = e.getKey().type();
        Minute m = perDevice.get(e.getKey().minute());
        Sensor s = e.getValue();
        String date = days.get(Math.floorDiv(m.start, DAY));
        t.write("gold/sensor_minute", SENSOR_MINUTE, "date=" + date,
            new Object[] {m.device.id, m.device.site, m.device.zone, TYPES[type], UNITS[type],
              m.start * 1000, (m.start + MINUTE) * 1000, s.count, s.sum / s.count, s.min, s.max,
              0L, "ON_TIME", date, writtenAt});
      }
      counts.put("lines", lines);
      counts.put("bronze", bronze);
      counts.put("bronze_dead", bronzeDead);
      counts.put("silver", silver);
      counts.put("quarantined", quarantined);
      counts.put("device_minute", (long) perDevice.size());
      counts.put("site_minute", (long) perSite.size());
      counts.put("sensor_minute", (long) perSensor.size());
    }
    return counts;
  }

  /** Why a Bronze reading is not a Silver one (compute_expected.py's order), or null. */
  private static String checkReading(Event e, Device d) {
    if (e.sensorType == null) {
      return "missing_sensor_type";
    }
    if (e.value == null || !Double.isFinite(e.value)) {
      return "wrong_type:value";
    }
    if (e.unit == null) {
      return "missing_unit";
    }
    if (e.seqWrong) {
      return "wrong_type:seq";
    }
    int type = List.of(TYPES).indexOf(e.sensorType);
    if (type < 0) {
      return "invalid_sensor_type";
    }
    if (!e.unit.equals(UNITS[type]) && !(type == 0 && e.unit.equals("F"))) {
      return "invalid_unit";
    }
    double v = type == 0 && e.unit.equals("F") ? (e.value - 32) * 5 / 9 : e.value;
    if (v < LO[type] || v > HI[type]) {
      return "out_of_range:value";
    }
    if (d == null) {
      return "unknown_device";
    }
    e.type = type;
    return null;
  }

  /** Why a Bronze heartbeat is not a Silver one, or null. */
  private static String checkHeartbeat(Event e, Device d) {
    if (e.battery == null || !Double.isFinite(e.battery) || e.rssi == null || e.status == null) {
      return "wrong_type";
    }
    if (e.battery < 0 || e.battery > 100) {
      return "out_of_range:battery_pct";
    }
    if (!STATUSES.contains(e.status)) {
      return "invalid_status";
    }
    return d == null ? "unknown_device" : null;
  }

  /** A device of the registry, numbered in file order. */
  private record Device(
      int number, String id, String site, String zone, Double latitude, Double longitude,
      String model) {}

  /** The registry CSV: device_id, site, zone, latitude, longitude, model, … (no quoted cells). */
  private static Map<String, Device> devices(Path csv) throws IOException {
    List<String> rows = Files.readAllLines(csv, StandardCharsets.UTF_8);
    List<String> header = List.of(rows.get(0).split(",", -1));
    Map<String, Device> devices = new HashMap<>();
    int number = 0;
    for (String row : rows.subList(1, rows.size())) {
      if (row.isBlank()) {
        continue;
      }
      String[] c = row.split(",", -1);
      String id = c[header.indexOf("device_id")];
      devices.put(
          id,
          new Device(number++, id, c[header.indexOf("site")], c[header.indexOf("zone")],
              number(c[header.indexOf("latitude")]), number(c[header.indexOf("longitude")]),
              c[header.indexOf("model")].isEmpty() ? null : c[header.indexOf("model")]));
    }
    return devices;
  }

  private static Double number(String s) {
    return s.isEmpty() ? null : Double.valueOf(s);
  }

  /** A reading's identity: a resend repeats it (no seq: Long.MIN_VALUE). */
  private record ReadingId(int device, int type, long ts, long seq) {
    ReadingId(int device, int type, long ts, Long seq) {
      this(device, type, ts, seq == null ? Long.MIN_VALUE : seq);
    }
  }

  private record HeartbeatId(int device, long ts) {}

  /** A device's minute (its start, epoch milliseconds). */
  private record DeviceMinute(int device, long start) {}

  /** A device's minute of one sensor type. */
  private record SensorKey(DeviceMinute minute, int type) {}

  /** One device's (or, added up, one site's) minute: Gold's totals. */
  private static final class Minute {
    final Device device;
    final long start;
    long readings, heartbeats, rssiSum, devices; // devices: a site's
    long tCount, hCount, pCount;
    double tSum, hSum, pSum;
    double tMin = Double.POSITIVE_INFINITY, tMax = Double.NEGATIVE_INFINITY;
    double batteryMin = Double.POSITIVE_INFINITY;
    long lastTs = Long.MIN_VALUE;
    String lastStatus;

    Minute(Device device, long start) {
      this.device = device;
      this.start = start;
    }

    void reading(int type, double v) {
      readings++;
      switch (type) {
        case 0 -> {
          tCount++;
          tSum += v;
          tMin = Math.min(tMin, v);
          tMax = Math.max(tMax, v);
        }
        case 1 -> {
          hCount++;
          hSum += v;
        }
        default -> {
          pCount++;
          pSum += v;
        }
      }
    }

    void heartbeat(double battery, long rssi, String status, long ts) {
      heartbeats++;
      batteryMin = Math.min(batteryMin, battery);
      rssiSum += rssi;
      if (ts >= lastTs) {
        lastTs = ts;
        lastStatus = status;
      }
    }

    /** Adds a device's minute to this site's. */
    void add(Minute m) {
      devices++;
      readings += m.readings;
      heartbeats += m.heartbeats;
      rssiSum += m.rssiSum;
      tCount += m.tCount;
      hCount += m.hCount;
      pCount += m.pCount;
      tSum += m.tSum;
      hSum += m.hSum;
      pSum += m.pSum;
      tMin = Math.min(tMin, m.tMin);
      tMax = Math.max(tMax, m.tMax);
      batteryMin = Math.min(batteryMin, m.batteryMin);
    }

    /** The keys, then the totals, then {@code last} if given, then the pane's columns. */
    Object[] row(Object[] keys, String last, String date, long writtenAt) {
      List<Object> r = new ArrayList<>(List.of(keys));
      if (keys.length == 1) {
        r.addAll(List.of(start * 1000, (start + MINUTE) * 1000, devices));
      } else {
        r.addAll(List.of(start * 1000, (start + MINUTE) * 1000));
      }
      r.add(readings);
      r.add(tCount == 0 ? null : tSum / tCount);
      r.add(tCount == 0 ? null : tMin);
      r.add(tCount == 0 ? null : tMax);
      r.add(hCount == 0 ? null : hSum / hCount);
      r.add(pCount == 0 ? null : pSum / pCount);
      r.add(heartbeats);
      r.add(heartbeats == 0 ? null : batteryMin);
      r.add(heartbeats == 0 ? null : (double) rssiSum / heartbeats);
      if (keys.length > 1) {
        r.add(last);
      }
      r.addAll(List.of(0L, "ON_TIME", date));
      r.add(writtenAt);
      return r.toArray();
    }
  }

  /** One device's, sensor type's minute. */
  private static final class Sensor {
    long count;
    double sum;
    double min = Double.POSITIVE_INFINITY, max = Double.NEGATIVE_INFINITY;

    void add(double v) {
      count++;
      sum += v;
      min = Math.min(min, v);
      max = Math.max(max, v);
    }
  }

  /** The fields of a line that is one JSON object; a field of another JSON type is a type error. */
  private static final class Event {
    String kind, device, sensorType, unit, status, typeErrors, extra;
    Long ts, seq, rssi;
    Double value, battery;
    boolean seqWrong;
    int type;

    void typeError(String field) {
      typeErrors = typeErrors == null ? field : typeErrors + "," + field;
    }
  }

  /** The line's event, read with a streaming parser; null when it is not one JSON object. */
  private static Event parse(String line) {
    if (line.isBlank()) {
      return null;
    }
    try (JsonParser p = JSON.createParser(line)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      Event e = new Event();
      boolean reading = false, heartbeat = false;
      JsonToken t;
      while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken v = p.nextToken();
        String text = v == JsonToken.VALUE_STRING ? p.getText() : null;
        boolean isInt =
            v == JsonToken.VALUE_NUMBER_INT
                && p.getNumberType() != JsonParser.NumberType.BIG_INTEGER;
        switch (name) {
          case "device_id" -> e.device = text == null || text.isBlank() ? null : text;
          case "ts" -> e.ts = isInt ? inRange(p.getLongValue()) : text == null ? null : iso(text);
          case "sensor_type" -> {
            reading = true;
            e.sensorType = text;
          }
          case "value" -> e.value = v.isNumeric() ? p.getDoubleValue() : typeError(e, name, v);
          case "unit" -> e.unit = text;
          case "seq" -> {
            e.seq = isInt ? p.getLongValue() : null;
            e.seqWrong = !isInt && v != JsonToken.VALUE_NULL;
          }
          case "battery_pct" -> {
            heartbeat = true;
            e.battery = v.isNumeric() ? p.getDoubleValue() : typeError(e, name, v);
          }
          case "rssi_dbm" -> {
            heartbeat = true;
            e.rssi = isInt ? p.getLongValue() : typeError(e, name, v);
          }
          case "status" -> {
            heartbeat = true;
            e.status = text;
          }
          default -> e.extra = e.extra == null ? name : e.extra + "," + name;
        }
        p.skipChildren(); // an object or array value, read through (and checked)
      }
      if (t != JsonToken.END_OBJECT || p.nextToken() != null) {
        return null;
      }
      e.kind = reading ? "reading" : heartbeat ? "heartbeat" : null;
      return e;
    } catch (IOException e) {
      return null;
    }
  }

  private static <T> T typeError(Event e, String field, JsonToken v) {
    if (v != JsonToken.VALUE_NULL) {
      e.typeError(field);
    }
    return null;
  }

  private static Long inRange(long ms) {
    return ms >= 0 && ms < MAX_MS ? ms : null;
  }

  /** Epoch milliseconds of an ISO-8601 instant with Z or an offset; else null. */
  private static Long iso(String s) {
    Long fast = isoMillisZ(s);
    if (fast != null) {
      return inRange(fast);
    }
    if (!ISO.matcher(s).matches()) {
      return null;
    }
    try {
      return inRange(OffsetDateTime.parse(s).toInstant().toEpochMilli());
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  /** {@code yyyy-MM-ddTHH:mm:ss.SSSZ}, the generator's form, without a parser; else null. */
  private static Long isoMillisZ(String s) {
    if (s.length() != 24
        || s.charAt(4) != '-'
        || s.charAt(7) != '-'
        || s.charAt(10) != 'T'
        || s.charAt(13) != ':'
        || s.charAt(16) != ':'
        || s.charAt(19) != '.'
        || s.charAt(23) != 'Z') {
      return null;
    }
    int y = digits(s, 0, 4), mo = digits(s, 5, 2), d = digits(s, 8, 2);
    int h = digits(s, 11, 2), mi = digits(s, 14, 2), sec = digits(s, 17, 2);
    int ms = digits(s, 20, 3);
    if (y < 0 || mo < 1 || mo > 12 || d < 1 || h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0
        || sec > 59 || ms < 0 || d > LocalDate.of(y, mo, 1).lengthOfMonth()) {
      return null;
    }
    long day = LocalDate.of(y, mo, d).toEpochDay();
    return day * DAY + h * 3_600_000L + mi * 60_000L + sec * 1000L + ms;
  }

  private static int digits(String s, int from, int n) {
    int v = 0;
    for (int i = from; i < from + n; i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      v = v * 10 + (c - '0');
    }
    return v;
  }

  private static String date(long day) {
    return LocalDate.ofEpochDay(day).toString();
  }

  /**
   * "name:type ..." as a schema: S string, T timestamp (UTC micros), L int64, I int32, D double are
   * required; lower case the same, optional.
   */
  private static MessageType schema(String columns) {
    StringBuilder b = new StringBuilder("message topLevelRecord {");
    for (String c : columns.trim().split("\\s+")) {
      String[] nt = c.split(":");
      char k = nt[1].charAt(0);
      b.append(Character.isUpperCase(k) ? "required " : "optional ")
          .append(
              switch (Character.toLowerCase(k)) {
                case 's' -> "binary " + nt[0] + " (STRING)";
                case 't' -> "int64 " + nt[0] + " (TIMESTAMP(MICROS,true))";
                case 'l' -> "int64 " + nt[0];
                case 'i' -> "int32 " + nt[0];
                default -> "double " + nt[0];
              })
          .append(';');
    }
    return MessageTypeParser.parseMessageType(b.append("}").toString());
  }
}
