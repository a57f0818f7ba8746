package dev.medallion.tools;

import dev.medallion.core.CsvRecords;
import dev.medallion.core.InputFormat;
import dev.medallion.core.JsonDocuments;
import dev.medallion.iot.Device;
import dev.medallion.iot.DeviceRegistry;
import dev.medallion.iot.SensorCatalog;
import dev.medallion.lakehouse.Catalog;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code validate}: checks each layer of a lakehouse (local, or {@code s3://} mirrored into the
 * object cache) on its own and prints a pass/fail report; exits 1 when a check fails. Bronze holds
 * every input line exactly once; Silver conforms to its schema and {@code bronze = silver +
 * quarantined} per source; Gold's windows are aligned, each device-minute appears once, and its
 * aggregates equal a recomputation from Silver in SQL.
 */
@Command(
    name = "validate",
    mixinStandardHelpOptions = true,
    description = "Check every layer of a lakehouse; exit code 1 when a check fails.")
public class Validate implements Callable<Integer> {
  @picocli.CommandLine.Mixin LakehouseArgs lake = new LakehouseArgs();

  /** Beam flags for the lakehouse's file system: --awsRegion, --endpoint, … */
  @picocli.CommandLine.Unmatched List<String> beamArgs = new java.util.ArrayList<>();

  @Option(
      names = "--input",
      description =
          "The NDJSON files the run read (a glob such as 'data/*.ndjson'), to check that Bronze holds each line exactly once.")
  String input;

  @Option(
      names = "--devices",
      description =
          "The device registry CSV the runs enriched with, to check that every Silver row's device"
              + " is in it with the site and zone it says.")
  String devices;

  @Option(
      names = "--deviceColumns",
      description = "The registry's own column names for ours (<its column>=<ours>,…), as for run.")
  String deviceColumns;

  @Option(
      names = "--sensorCatalog",
      description =
          "The sensor catalog (YAML or JSON) the runs used, to check Silver's readings against its"
              + " types, units and ranges. Default: the built-in catalog.")
  String sensorCatalog;

  @Option(
      names = "--maxRejectPct",
      defaultValue = "50",
      description =
          "The most of a source's lines (%) that may be rejected (Bronze dead letters and Silver"
              + " quarantine) before the check fails (default ${DEFAULT-VALUE}).")
  double maxRejectPct = 50;

  /** SQL true for a reading of a type of {@code catalog} in its unit and range. */
  static String validReading(SensorCatalog catalog) {
    List<String> types = new ArrayList<>();
    for (SensorCatalog.Sensor t : catalog.sensors()) {
      types.add(
          "(sensor_type = "
              + literal(t.type())
              + " AND unit = "
              + literal(t.unit())
              + (t.lo() == null ? "" : " AND value >= " + t.lo())
              + (t.hi() == null ? "" : " AND value <= " + t.hi())
              + ")");
    }
    return String.join(" OR ", types);
  }

  /**
   * Silver's quarantine reasons that are no rejection: a later copy of an event ({@code duplicate})
   * and a version a later change replaced ({@code cdc_superseded}, {@code cdc_deleted}).
   */
  static final String NOT_REJECTED = "('duplicate', 'cdc_superseded', 'cdc_deleted')";

  /** One check's outcome. */
  public record Check(String layer, String name, boolean passed, String detail) {}

  private final List<Check> checks = new ArrayList<>();

  @Override
  public Integer call() throws Exception {
    LakeSql.loadDuckDbEarly();
    lake.configureFileSystems(beamArgs);
    List<Check> result = run(lake.lakehouse, lake.cache);
    for (Check c : result) {
      System.out.printf(
          "%-4s %-7s %-45s %s%n", c.passed() ? "PASS" : "FAIL", c.layer(), c.name(), c.detail());
    }
    long failed = result.stream().filter(c -> !c.passed()).count();
    System.out.println(
        failed == 0
            ? "all " + result.size() + " checks passed"
            : failed + " of " + result.size() + " checks FAILED");
    return failed == 0 ? 0 : 1;
  }

  public static List<Check> validate(String lakehouse, String input) throws Exception {
    return validate(lakehouse, null, input);
  }

  public static List<Check> validate(String lakehouse, Path cache, String input) throws Exception {
    Validate v = new Validate();
    v.input = input;
    return v.run(lakehouse, cache);
  }

  /** With a registry to check Silver against and a limit on rejections. */
  public static List<Check> validate(
      String lakehouse, String input, String devices, double maxRejectPct) throws Exception {
    Validate v = new Validate();
    v.input = input;
    v.devices = devices;
    v.maxRejectPct = maxRejectPct;
    return v.run(lakehouse, null);
  }

  List<Check> run(String lakehouse, Path cache) throws Exception {
    Map<String, Device> registry =
        devices == null
            ? null
            : DeviceRegistry.load(devices, DeviceRegistry.columns(deviceColumns));
    SensorCatalog catalog =
        sensorCatalog == null ? SensorCatalog.DEFAULT : SensorCatalog.load(sensorCatalog);
    try (LakeSql sql = LakeSql.open(lakehouse, cache)) {
      boolean users = sql.has(U_BRONZE) || sql.has(U_SILVER) || sql.has(U_GOLD);
      boolean iot = sql.has("bronze_iot_events") || sql.has(QUARANTINE);
      if (iot || !users) {
        bronze(sql, input);
        silver(sql, catalog);
        if (registry != null) {
          registry(sql, registry);
        }
        rejectedPerSource(sql);
        gold(sql, catalog);
      }
      if (users) {
        users(sql);
      }
    }
    return checks;
  }

  private static final String U_BRONZE = "bronze_user_events";
  private static final String U_SILVER = "silver_user_events";
  private static final String U_GOLD = "gold_user_features";
  private static final String U_QUARANTINE = "quarantine_user_events";

  /**
   * The users tables: Bronze holds each line at most once; per source file, Bronze = Silver +
   * quarantined + duplicates removed, and the rejected share is within the limit; Silver holds one
   * row per user and instant; Gold one row per user, each with the event count and last event that
   * Silver gives as of its date.
   */
  private void users(LakeSql sql) throws Exception {
    if (!sql.has(U_BRONZE) || !sql.has(U_SILVER)) {
      check("users", "bronze and silver user_events exist", false, "a layer has no files");
      return;
    }
    conforms(sql, "users", U_BRONZE);
    conforms(sql, "users", U_SILVER);
    String dead =
        sql.has(U_QUARANTINE)
            ? U_QUARANTINE
            : "(SELECT NULL::VARCHAR AS source, NULL::VARCHAR AS source_name,"
                + " NULL::VARCHAR AS stage, NULL::VARCHAR AS reason WHERE false)";
    long twice =
        sql.scalarLong(
            "SELECT count(*) FROM (SELECT source FROM (SELECT source FROM "
                + U_BRONZE
                + " UNION ALL SELECT source FROM "
                + dead
                + " WHERE stage = 'bronze') GROUP BY 1 HAVING count(*) > 1)");
    check("users", "bronze: every line at most once", twice == 0, twice + " held twice");
    List<List<Object>> perFile =
        sql.rows(
            "WITH b AS (SELECT source_file AS f, count(*) AS n FROM "
                + U_BRONZE
                + " GROUP BY 1), s AS (SELECT source_file AS f, count(*) AS n FROM "
                + U_SILVER
                + " GROUP BY 1), q AS (SELECT source_name AS f,"
                + " count(*) FILTER (WHERE stage = 'bronze') AS dead,"
                + " count(*) FILTER (WHERE stage = 'silver' AND reason NOT IN "
                + NOT_REJECTED
                + ") AS quarantined,"
                + " count(*) FILTER (WHERE stage = 'silver' AND reason IN "
                + NOT_REJECTED
                + ") AS dups FROM "
                + dead
                + " GROUP BY 1)"
                + " SELECT f, coalesce(b.n, 0), coalesce(s.n, 0), coalesce(quarantined, 0),"
                + " coalesce(dups, 0), coalesce(dead, 0) FROM b FULL JOIN s USING (f)"
                + " FULL JOIN q USING (f) ORDER BY f");
    List<String> unbalanced = new ArrayList<>();
    List<String> over = new ArrayList<>();
    long bronze = 0;
    for (List<Object> r : perFile) {
      long b = ((Number) r.get(1)).longValue();
      long kept = ((Number) r.get(2)).longValue();
      long quarantined = ((Number) r.get(3)).longValue();
      long dups = ((Number) r.get(4)).longValue();
      long deadLetters = ((Number) r.get(5)).longValue();
      bronze += b;
      if (b != kept + quarantined + dups) {
        unbalanced.add(r.get(0) + ": " + b + " <> " + kept + " + " + quarantined + " + " + dups);
      }
      long lines = b + deadLetters;
      double pct = lines == 0 ? 0 : Math.round(1000.0 * (deadLetters + quarantined) / lines) / 10.0;
      if (pct > maxRejectPct) {
        over.add(
            r.get(0)
                + ": "
                + (deadLetters + quarantined)
                + " of "
                + lines
                + " lines ("
                + pct
                + " %)");
      }
    }
    check(
        "users",
        "bronze = silver + quarantined + duplicates, per file",
        unbalanced.isEmpty(),
        unbalanced.isEmpty()
            ? bronze + " rows in " + perFile.size() + " file(s)"
            : String.join("; ", unbalanced));
    check(
        "users",
        "each file's rejected share <= "
            + BigDecimal.valueOf(maxRejectPct).stripTrailingZeros().toPlainString()
            + " %",
        over.isEmpty(),
        over.isEmpty() ? perFile.size() + " file(s)" : String.join("; ", over));
    long repeated =
        sql.scalarLong(
            "SELECT count(*) FROM (SELECT user_id, event_timestamp FROM "
                + U_SILVER
                + " GROUP BY ALL HAVING count(*) > 1)");
    check(
        "users",
        "silver: one row per user and instant",
        repeated == 0,
        repeated + " instants held more than once");
    if (!sql.has(U_GOLD)) {
      check("users", "gold user_features exists", false, "no files under gold/user_features");
      return;
    }
    conforms(sql, "users", U_GOLD);
    long users =
        sql.scalarLong(
            "SELECT count(*) FROM "
                + U_GOLD
                + " WHERE as_of_date = (SELECT max(as_of_date) FROM "
                + U_GOLD
                + ")");
    long wrong =
        sql.scalarLong(
            "WITH g AS (SELECT * FROM "
                + U_GOLD
                + " WHERE as_of_date = (SELECT max(as_of_date) FROM "
                + U_GOLD
                + ")), s AS (SELECT user_id, count(*) AS n, max(event_timestamp) AS last FROM "
                + U_SILVER
                + " WHERE event_date <= (SELECT max(CAST(as_of_date AS VARCHAR)) FROM g)"
                + " GROUP BY 1)"
                + " SELECT count(*) FROM g FULL JOIN s USING (user_id)"
                + " WHERE g.user_id IS NULL OR s.user_id IS NULL OR g.event_count <> s.n"
                + " OR g.last_event_timestamp <> s.last"
                + " OR (SELECT count(*) FROM g g2 WHERE g2.user_id = g.user_id) > 1");
    check(
        "users",
        "gold (newest as_of_date): one row per user, as Silver gives it",
        wrong == 0,
        users + " users, " + wrong + " missing, extra or different");
  }

  /** Every Silver row's device is in the registry, with the registry's site and zone. */
  private void registry(LakeSql sql, Map<String, Device> registry) throws Exception {
    List<String> tables = new ArrayList<>();
    for (String t : List.of("silver_sensor_readings", "silver_device_heartbeats")) {
      if (sql.has(t)) {
        tables.add("SELECT device_id, site, zone FROM " + t);
      }
    }
    if (tables.isEmpty()) {
      return;
    }
    sql.execute(
        "CREATE OR REPLACE TEMP TABLE registry (device_id VARCHAR, site VARCHAR, zone VARCHAR)");
    StringBuilder values = new StringBuilder();
    for (Device d : registry.values()) {
      values
          .append(values.length() == 0 ? "" : ", ")
          .append("(")
          .append(literal(d.getDeviceId()))
          .append(", ")
          .append(literal(d.getSite()))
          .append(", ")
          .append(literal(d.getZone()))
          .append(")");
    }
    if (values.length() > 0) {
      sql.execute("INSERT INTO registry VALUES " + values);
    }
    List<List<Object>> wrong =
        sql.rows(
            "SELECT s.device_id, s.site, s.zone, r.site, r.zone, count(*) FROM ("
                + String.join(" UNION ALL ", tables)
                + ") s LEFT JOIN registry r USING (device_id)"
                + " WHERE r.device_id IS NULL OR s.site IS DISTINCT FROM r.site"
                + " OR s.zone IS DISTINCT FROM r.zone GROUP BY ALL ORDER BY 1 LIMIT 10");
    check(
        "silver",
        "devices as the registry says (" + registry.size() + " devices)",
        wrong.isEmpty(),
        wrong.isEmpty()
            ? "every row's device, site and zone"
            : "rows whose device is missing or differs (device, site, zone, registry's site,"
                + " zone, rows): "
                + wrong);
  }

  private static String literal(String s) {
    return "'" + s.replace("'", "''") + "'";
  }

  /** No source had more than {@code --maxRejectPct} of its lines rejected. */
  private void rejectedPerSource(LakeSql sql) throws Exception {
    if (!sql.has("bronze_iot_events") && !sql.has(QUARANTINE)) {
      return;
    }
    String bronze =
        sql.has("bronze_iot_events")
            ? "bronze_iot_events"
            : "(SELECT NULL::VARCHAR AS source_name WHERE false)";
    List<List<Object>> rates =
        sql.rows(
            "WITH b AS (SELECT source_name, count(*) AS kept FROM "
                + bronze
                + " GROUP BY 1),"
                + " q AS (SELECT source_name, count(*) FILTER (WHERE stage = 'bronze') AS dead,"
                + " count(*) FILTER (WHERE stage = 'silver') AS quarantined FROM "
                + deadLetters(sql, null)
                + " GROUP BY 1)"
                + " SELECT source_name, lines, rejected, round(100.0 * rejected / lines, 1) AS pct"
                + " FROM (SELECT source_name, coalesce(kept, 0) + coalesce(dead, 0) AS lines,"
                + " coalesce(dead, 0) + coalesce(quarantined, 0) AS rejected"
                + " FROM b FULL JOIN q USING (source_name))"
                + " WHERE lines > 0 ORDER BY pct DESC, source_name");
    List<String> over = new ArrayList<>();
    for (List<Object> r : rates) {
      if (((Number) r.get(3)).doubleValue() > maxRejectPct) {
        over.add(r.get(0) + ": " + r.get(2) + " of " + r.get(1) + " lines (" + r.get(3) + " %)");
      }
    }
    String limit = BigDecimal.valueOf(maxRejectPct).stripTrailingZeros().toPlainString();
    check(
        "silver",
        "each source's rejected share <= " + limit + " %",
        over.isEmpty(),
        over.isEmpty()
            ? rates.size()
                + " source(s), the most: "
                + (rates.isEmpty()
                    ? "none"
                    : rates.get(0).get(3) + " % (" + rates.get(0).get(0) + ")")
            : "over the limit (--maxRejectPct): " + String.join("; ", over));
  }

  private void check(String layer, String name, boolean passed, String detail) {
    checks.add(new Check(layer, name, passed, detail));
  }

  private static final String QUARANTINE = "quarantine_iot_events";

  /** The quarantine's rows of one stage, or of all stages when {@code stage} is null. */
  private String deadLetters(LakeSql sql, String stage) {
    return sql.has(QUARANTINE)
        ? "(SELECT * FROM "
            + QUARANTINE
            + (stage == null ? "" : " WHERE stage = '" + stage + "'")
            + ")"
        : "(SELECT NULL::VARCHAR AS source, NULL::VARCHAR AS source_name, NULL::VARCHAR AS stage WHERE false)";
  }

  private void bronze(LakeSql sql, String input) throws Exception {
    if (!sql.has("bronze_iot_events")) {
      check("bronze", "table exists", false, "no Parquet files under bronze/iot_events");
      return;
    }
    String all =
        "(SELECT source, source_name FROM bronze_iot_events UNION ALL SELECT source, source_name FROM "
            + deadLetters(sql, "bronze")
            + ")";
    long dup =
        sql.scalarLong(
            "SELECT count(*) FROM (SELECT source FROM "
                + all
                + " GROUP BY source HAVING count(*) > 1)");
    long total = sql.scalarLong("SELECT count(*) FROM " + all);
    check(
        "bronze",
        "every line at most once (rows + dead letters)",
        dup == 0,
        total + " lines, " + dup + " held more than once");
    conforms(sql, "bronze", "bronze_iot_events");
    if (input == null) {
      check("bronze", "every input line present", true, "skipped: no --input given");
      return;
    }
    Map<String, Long> lines = countLines(input);
    List<String> missing = new ArrayList<>();
    for (Map.Entry<String, Long> f : lines.entrySet()) {
      long held =
          sql.scalarLong(
              "SELECT count(*) FROM "
                  + all
                  + " WHERE source_name = '"
                  + f.getKey().replace("'", "''")
                  + "'");
      if (held != f.getValue()) {
        missing.add(f.getKey() + ": " + f.getValue() + " lines, Bronze holds " + held);
      }
    }
    check(
        "bronze",
        "every input line present",
        !lines.isEmpty() && missing.isEmpty(),
        lines.isEmpty()
            ? "no file matches " + input
            : missing.isEmpty()
                ? lines.size()
                    + " files, "
                    + lines.values().stream().mapToLong(Long::longValue).sum()
                    + " lines"
                : String.join("; ", missing));
  }

  private void silver(LakeSql sql, SensorCatalog catalog) throws Exception {
    if (!sql.has("silver_sensor_readings") && !sql.has("silver_device_heartbeats")) {
      check("silver", "tables exist", false, "no Parquet files under silver/");
      return;
    }
    String readings = sql.has("silver_sensor_readings") ? "silver_sensor_readings" : null;
    String heartbeats = sql.has("silver_device_heartbeats") ? "silver_device_heartbeats" : null;
    if (readings != null) {
      conforms(sql, "silver", readings);
      long bad =
          sql.scalarLong(
              "SELECT count(*) FROM "
                  + readings
                  + " WHERE NOT ("
                  + validReading(catalog)
                  + ") OR site IS NULL OR device_id IS NULL OR event_ts IS NULL");
      check("silver", "readings: types, units and ranges valid", bad == 0, bad + " invalid rows");
    }
    if (heartbeats != null) {
      conforms(sql, "silver", heartbeats);
      long bad =
          sql.scalarLong(
              "SELECT count(*) FROM "
                  + heartbeats
                  + " WHERE NOT (battery_pct BETWEEN 0 AND 100"
                  + " AND status IN ('ok', 'degraded', 'error')) OR site IS NULL");
      check("silver", "heartbeats: battery and status valid", bad == 0, bad + " invalid rows");
    }
    if (!sql.has("bronze_iot_events")) {
      return;
    }
    String kept =
        "("
            + (readings == null ? "" : "SELECT source, source_name FROM " + readings)
            + (readings != null && heartbeats != null ? " UNION ALL " : "")
            + (heartbeats == null ? "" : "SELECT source, source_name FROM " + heartbeats)
            + ")";
    List<List<Object>> unbalanced =
        sql.rows(
            "WITH b AS (SELECT source_name, count(*) n FROM bronze_iot_events GROUP BY 1),"
                + " s AS (SELECT source_name, count(*) n FROM "
                + kept
                + " GROUP BY 1),"
                + " q AS (SELECT source_name, count(*) n FROM "
                + deadLetters(sql, "silver")
                + " GROUP BY 1)"
                + " SELECT b.source_name, b.n, coalesce(s.n, 0), coalesce(q.n, 0) FROM b"
                + " LEFT JOIN s USING (source_name) LEFT JOIN q USING (source_name)"
                + " WHERE b.n <> coalesce(s.n, 0) + coalesce(q.n, 0)");
    long bronze = sql.scalarLong("SELECT count(*) FROM bronze_iot_events");
    long silver = sql.scalarLong("SELECT count(*) FROM " + kept);
    long quarantined = sql.scalarLong("SELECT count(*) FROM " + deadLetters(sql, "silver"));
    check(
        "silver",
        "bronze = silver + quarantined, per source",
        unbalanced.isEmpty(),
        unbalanced.isEmpty()
            ? bronze + " = " + silver + " + " + quarantined
            : "unbalanced (source, bronze, silver, quarantined): " + unbalanced);
  }

  private void gold(LakeSql sql, SensorCatalog catalog) throws Exception {
    if (!sql.has("gold_device_minute")) {
      check("gold", "table exists", false, "no Parquet files under gold/device_minute");
      return;
    }
    conforms(sql, "gold", "gold_device_minute");
    long misaligned =
        sql.scalarLong(
            "SELECT count(*) FROM gold_device_minute WHERE epoch_ms(window_start) % 60000 <> 0"
                + " OR epoch_ms(window_end) - epoch_ms(window_start) <> 60000");
    check(
        "gold",
        "windows aligned on the minute, 1 minute long",
        misaligned == 0,
        misaligned + " misaligned rows");
    long current = sql.scalarLong("SELECT count(*) FROM " + LakeSql.DEVICE_MINUTE_CURRENT);
    long samePane =
        sql.scalarLong(
            "SELECT count(*) FROM (SELECT device_id, window_start, pane_index, written_at"
                + " FROM gold_device_minute"
                + " GROUP BY ALL HAVING count(*) > 1)");
    check(
        "gold",
        "each device-minute once (one row per pane)",
        samePane == 0,
        current + " device-minutes, " + samePane + " with a pane written twice");

    if (!sql.has("silver_sensor_readings") && !sql.has("silver_device_heartbeats")) {
      check(
          "gold",
          "aggregates equal a recomputation from Silver",
          false,
          "no Silver tables to recompute from");
      return;
    }
    // The catalog's aggregate columns: each recomputed, each compared.
    List<String> sensorColumns = new ArrayList<>();
    StringBuilder sensorAggregates = new StringBuilder();
    StringBuilder sensorSelect = new StringBuilder();
    for (SensorCatalog.Sensor s : catalog.sensors()) {
      for (String a : s.gold()) {
        String column = s.type() + "_" + a;
        sensorColumns.add(column);
        sensorAggregates
            .append(", ")
            .append(a.equals("count") ? "count(*)" : a + "(value)")
            .append(" FILTER (WHERE sensor_type = '")
            .append(s.type())
            .append("') AS ")
            .append(column);
        sensorSelect
            .append(", ")
            .append(a.equals("count") ? "coalesce(" + column + ", 0) " + column : column);
      }
    }
    List<String> missing = new ArrayList<>(sensorColumns);
    missing.removeAll(Quality.columns(sql, "gold_device_minute"));
    if (!missing.isEmpty()) {
      check(
          "gold",
          "device_minute has the sensor catalog's columns",
          false,
          "no column "
              + String.join(", ", missing)
              + ": were the runs made with another --sensorCatalog? Pass the one they used");
      return;
    }
    String tooLate = "(SELECT source FROM " + deadLetters(sql, "gold") + ")";
    // One row per reading: its identity includes its seq when it has one; DISTINCT ON puts the
    // readings without seq of one device, sensor type and instant together.
    String readings =
        sql.has("silver_sensor_readings")
            ? "(SELECT DISTINCT ON (device_id, sensor_type, event_ts, seq) * FROM silver_sensor_readings"
                + " WHERE source NOT IN "
                + tooLate
                + " ORDER BY device_id, sensor_type, event_ts, seq, value, raw_payload)"
            : "(SELECT NULL::VARCHAR device_id, NULL::VARCHAR site, NULL::VARCHAR sensor_type, NULL::DOUBLE value, NULL::TIMESTAMPTZ event_ts WHERE false)";
    String heartbeats =
        sql.has("silver_device_heartbeats")
            ? "(SELECT DISTINCT ON (device_id, event_ts) * FROM silver_device_heartbeats"
                + " WHERE source NOT IN "
                + tooLate
                + " ORDER BY device_id, event_ts, battery_pct, rssi_dbm, status)"
            : "(SELECT NULL::VARCHAR device_id, NULL::VARCHAR site, NULL::DOUBLE battery_pct, NULL::BIGINT rssi_dbm, NULL::VARCHAR status, NULL::TIMESTAMPTZ event_ts WHERE false)";
    String expected =
        "WITH r AS (SELECT device_id, time_bucket(INTERVAL 1 minute, event_ts) AS w, count(*) AS reading_count"
            + sensorAggregates
            + " FROM "
            + readings
            + " GROUP BY ALL),"
            + " h AS (SELECT device_id, time_bucket(INTERVAL 1 minute, event_ts) AS w, count(*) AS heartbeat_count,"
            + " min(battery_pct) AS battery_pct_min, avg(rssi_dbm) AS rssi_dbm_avg, arg_max(status, event_ts) AS last_status"
            + " FROM "
            + heartbeats
            + " GROUP BY ALL)"
            + " SELECT device_id, w, coalesce(reading_count, 0) reading_count"
            + sensorSelect
            + ", coalesce(heartbeat_count, 0) heartbeat_count,"
            + " battery_pct_min, rssi_dbm_avg, last_status FROM r FULL OUTER JOIN h USING (device_id, w)";
    StringBuilder sensorDiffers = new StringBuilder();
    for (String column : sensorColumns) {
      sensorDiffers.append(" OR ").append(differs(column));
    }
    String diff =
        "WITH e AS ("
            + expected
            + "), g AS (SELECT * FROM "
            + LakeSql.DEVICE_MINUTE_CURRENT
            + ")"
            + " SELECT coalesce(e.device_id, g.device_id), coalesce(e.w, g.window_start) FROM e FULL OUTER JOIN g"
            + " ON e.device_id = g.device_id AND e.w = g.window_start"
            + " WHERE e.device_id IS NULL OR g.device_id IS NULL"
            + " OR e.reading_count <> g.reading_count OR e.heartbeat_count <> g.heartbeat_count"
            + sensorDiffers
            + " OR "
            + differs("battery_pct_min")
            + " OR "
            + differs("rssi_dbm_avg")
            + " OR e.last_status IS DISTINCT FROM g.last_status"
            + " ORDER BY 2, 1 LIMIT 5";
    List<List<Object>> wrong = sql.rows(diff);
    check(
        "gold",
        "device_minute equals a recomputation from Silver",
        wrong.isEmpty(),
        wrong.isEmpty()
            ? current + " device-minutes recomputed"
            : "differs at (device, window) " + wrong);
    if (sql.has("gold_sensor_minute") || sql.has("silver_sensor_readings")) {
      sensorMinute(sql, readings);
    }
  }

  /** gold_sensor_minute's newest panes against the same one-row-per-reading Silver. */
  private void sensorMinute(LakeSql sql, String readings) throws Exception {
    if (!sql.has("gold_sensor_minute")) {
      check("gold", "sensor_minute exists", false, "Silver has readings, gold/sensor_minute none");
      return;
    }
    conforms(sql, "gold", "gold_sensor_minute");
    String diff =
        "WITH e AS (SELECT device_id, sensor_type, time_bucket(INTERVAL 1 minute, event_ts) AS w,"
            + " count(*) AS reading_count, avg(value) AS value_avg, min(value) AS value_min,"
            + " max(value) AS value_max FROM "
            + readings
            + " GROUP BY ALL), g AS (SELECT * FROM "
            + LakeSql.SENSOR_MINUTE_CURRENT
            + ") SELECT coalesce(e.device_id, g.device_id), coalesce(e.sensor_type, g.sensor_type),"
            + " coalesce(e.w, g.window_start) FROM e FULL OUTER JOIN g"
            + " ON e.device_id = g.device_id AND e.sensor_type = g.sensor_type"
            + " AND e.w = g.window_start"
            + " WHERE e.device_id IS NULL OR g.device_id IS NULL"
            + " OR e.reading_count <> g.reading_count OR "
            + differs("value_avg")
            + " OR "
            + differs("value_min")
            + " OR "
            + differs("value_max")
            + " ORDER BY 3, 1, 2 LIMIT 5";
    List<List<Object>> wrong = sql.rows(diff);
    long rows = sql.scalarLong("SELECT count(*) FROM " + LakeSql.SENSOR_MINUTE_CURRENT);
    check(
        "gold",
        "sensor_minute equals a recomputation from Silver",
        wrong.isEmpty(),
        wrong.isEmpty()
            ? rows + " device-type-minutes recomputed"
            : "differs at (device, type, window) " + wrong);
  }

  private static String differs(String column) {
    return "(e."
        + column
        + " IS NULL) <> (g."
        + column
        + " IS NULL) OR abs(e."
        + column
        + " - g."
        + column
        + ") > 1e-9";
  }

  /** Column names and types of a table against its declared schema. */
  private void conforms(LakeSql sql, String layer, String view) throws Exception {
    Catalog.Table table = sql.declared(view);
    List<String> problems = Quality.schemaProblems(sql, table);
    check(
        layer,
        view + " conforms to its schema",
        problems.isEmpty(),
        problems.isEmpty()
            ? table.schema().getFieldCount() + " columns"
            : String.join("; ", problems));
  }

  /**
   * The records of an input file as the read counts them: its rows when its name says CSV, its
   * documents when it is JSON over several lines ({@link InputFormat#detect}), else its lines
   * (bytes: a line that is not UTF-8 counts too).
   */
  private static long countRecords(Path f) throws IOException {
    if (InputFormat.isCsvName(f.getFileName().toString())) {
      try (InputStream in = Files.newInputStream(f)) {
        return CsvRecords.count(in, f.toString());
      }
    }
    InputFormat format;
    try (InputStream in = Files.newInputStream(f)) {
      format = InputFormat.detect(in);
    }
    if (format == InputFormat.JSON) {
      try (InputStream in = Files.newInputStream(f)) {
        return JsonDocuments.count(in);
      }
    }
    long lines = 0;
    try (BufferedReader r = Files.newBufferedReader(f, StandardCharsets.ISO_8859_1)) {
      while (r.readLine() != null) {
        lines++;
      }
    }
    return lines;
  }

  private static Map<String, Long> countLines(String glob) throws IOException {
    Path base = Path.of(glob).toAbsolutePath();
    Path dir = base.getParent();
    while (dir != null && dir.toString().matches(".*[*?\\[{].*")) {
      dir = dir.getParent();
    }
    PathMatcher matcher = FileSystems.getDefault().getPathMatcher("glob:" + base);
    Map<String, Long> out = new LinkedHashMap<>();
    if (dir == null || !Files.isDirectory(dir)) {
      return out;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f :
          (Iterable<Path>)
              files.filter(Files::isRegularFile).filter(matcher::matches).sorted()::iterator) {
        out.put(f.toString(), countRecords(f));
      }
    }
    return out;
  }
}
