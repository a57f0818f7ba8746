package dev.medallion.tools;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.medallion.core.Json;
import dev.medallion.lakehouse.Catalog;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.beam.sdk.schemas.Schema;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code quality}: the data-quality job. Checks one table of a lakehouse against thresholds (row
 * count, distinct entities, nulls in key columns, duplicate keys, schema conformity against the
 * table's declared schema), writes {@code reports/<table>-<time>.json} and a generated {@code .md},
 * and exits 1 when a check fails.
 */
@Command(
    name = "quality",
    mixinStandardHelpOptions = true,
    description =
        "Data-quality checks of one table; writes JSON and Markdown reports; exit 1 on a failed check.")
public class Quality implements Callable<Integer> {
  @picocli.CommandLine.Mixin LakehouseArgs lake = new LakehouseArgs();

  /** Beam flags for the lakehouse's file system: --awsRegion, --endpoint, … */
  @picocli.CommandLine.Unmatched List<String> beamArgs = new java.util.ArrayList<>();

  @Option(
      names = "--table",
      defaultValue = "silver_user_events",
      description = "Table name from the catalog (default ${DEFAULT-VALUE}).")
  String table;

  @Option(
      names = "--reports",
      defaultValue = "reports",
      description = "Folder of the reports (default ${DEFAULT-VALUE}).")
  Path reports;

  @Option(
      names = "--maxNullPct",
      description = "Override: largest share of nulls in a key column, in percent.")
  Double maxNullPct;

  @Option(
      names = "--maxDuplicatePct",
      description = "Override: largest share of rows that repeat a key, in percent.")
  Double maxDuplicatePct;

  @Option(names = "--minRows", description = "Override: fewest rows the table must have.")
  Long minRows;

  /** What is checked for a table and the thresholds. */
  public record Profile(
      List<String> keyColumns,
      List<String> duplicateKey,
      String entity,
      double maxNullPct,
      double maxDuplicatePct,
      long minRows) {}

  static final Map<String, Profile> PROFILES =
      Map.of(
          "silver_user_events",
              new Profile(
                  List.of("user_id", "event_type", "event_timestamp"),
                  List.of("user_id", "event_timestamp"),
                  "user_id",
                  0,
                  0,
                  1),
          "bronze_user_events",
              new Profile(
                  List.of("user_id", "event_type", "event_timestamp"),
                  List.of("source"),
                  "user_id",
                  25,
                  0,
                  1),
          "gold_user_features",
              new Profile(
                  List.of(
                      "user_id", "last_event_timestamp", "last_event_type", "last_feature_hash"),
                  List.of("user_id", "as_of_date"),
                  "user_id",
                  0,
                  0,
                  1),
          "silver_sensor_readings",
              new Profile(
                  List.of("device_id", "sensor_type", "value", "event_ts"),
                  // a reading's identity, as in Gold: seq included (null seqs are one value)
                  List.of("device_id", "sensor_type", "event_ts", "seq"),
                  "device_id",
                  0,
                  5,
                  1),
          "silver_device_heartbeats",
              new Profile(
                  List.of("device_id", "battery_pct", "status", "event_ts"),
                  List.of("device_id", "event_ts"),
                  "device_id",
                  0,
                  5,
                  1));

  /** One check: what, its measured value, its threshold, the verdict. */
  public record Check(String name, String metric, double value, String threshold, boolean passed) {}

  /**
   * A table's report: when and where it was scanned, its rows, each column's nulls, the groups of
   * rows that share the duplicate key, the records removed before this layer (dead letters by stage
   * and reason, and Silver's duplicates), and the checks.
   */
  public record Report(
      String table,
      String scannedAt,
      String source,
      long rows,
      Map<String, Long> nullCounts,
      long duplicateGroups,
      Map<String, Long> removedUpstream,
      List<Check> checks) {
    public boolean passed() {
      return checks.stream().allMatch(Check::passed);
    }
  }

  @Override
  public Integer call() throws Exception {
    LakeSql.loadDuckDbEarly();
    lake.configureFileSystems(beamArgs);
    Report r = run(lake.lakehouse, lake.cache, table, maxNullPct, maxDuplicatePct, minRows);
    String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss"));
    Files.createDirectories(reports);
    Path json = reports.resolve(table + "-" + stamp + ".json");
    Path md = reports.resolve(table + "-" + stamp + ".md");
    Files.writeString(json, toJson(r), StandardCharsets.UTF_8);
    Files.writeString(md, toMarkdown(r), StandardCharsets.UTF_8);
    for (Check c : r.checks()) {
      System.out.printf(
          Locale.ROOT,
          "%-4s %-50s %s (threshold %s)%n",
          c.passed() ? "PASS" : "FAIL",
          c.name(),
          fmt(c.value()),
          c.threshold());
    }
    System.out.println((r.passed() ? "passed" : "FAILED") + "; reports: " + json + ", " + md);
    return r.passed() ? 0 : 1;
  }

  public static Report run(
      String lakehouse, String tableName, Double maxNull, Double maxDup, Long minRows)
      throws Exception {
    return run(lakehouse, null, tableName, maxNull, maxDup, minRows);
  }

  public static Report run(
      String lakehouse, Path cache, String tableName, Double maxNull, Double maxDup, Long minRows)
      throws Exception {
    Catalog.Table table = Catalog.table(tableName);
    Profile base =
        PROFILES.getOrDefault(tableName, new Profile(List.of(), List.of(), null, 100, 100, 1));
    Profile p =
        new Profile(
            base.keyColumns(),
            base.duplicateKey(),
            base.entity(),
            maxNull == null ? base.maxNullPct() : maxNull,
            maxDup == null ? base.maxDuplicatePct() : maxDup,
            minRows == null ? base.minRows() : minRows);
    List<Check> checks = new ArrayList<>();
    try (LakeSql sql = LakeSql.open(lakehouse, cache)) {
      String scannedAt = java.time.Instant.now().toString();
      String source = lakehouse.replaceAll("/+$", "") + "/" + table.path();
      if (!sql.has(tableName)) {
        checks.add(new Check("row count", "rows", 0, ">= " + p.minRows(), p.minRows() <= 0));
        return new Report(tableName, scannedAt, source, 0, Map.of(), 0, Map.of(), checks);
      }
      long rows = sql.scalarLong("SELECT count(*) FROM " + tableName);
      checks.add(new Check("row count", "rows", rows, ">= " + p.minRows(), rows >= p.minRows()));
      if (p.entity() != null) {
        long distinct =
            sql.scalarLong("SELECT count(DISTINCT " + p.entity() + ") FROM " + tableName);
        checks.add(new Check("distinct " + p.entity(), "count", distinct, ">= 1", distinct >= 1));
      }
      List<String> columns = columns(sql, tableName);
      Map<String, Long> nullCounts = new java.util.LinkedHashMap<>();
      List<Object> nulls0 =
          sql.rows(
                  "SELECT "
                      + String.join(
                          ", ",
                          columns.stream()
                              .map(c -> "count(*) - count(" + LakeSql.quote(c) + ")")
                              .toList())
                      + " FROM "
                      + tableName)
              .get(0);
      for (int i = 0; i < columns.size(); i++) {
        nullCounts.put(columns.get(i), ((Number) nulls0.get(i)).longValue());
      }
      long duplicateGroups = 0;
      for (String key : p.keyColumns()) {
        if (!columns.contains(key)) {
          continue; // reported by the schema check
        }
        long nulls =
            sql.scalarLong("SELECT count(*) FROM " + tableName + " WHERE " + key + " IS NULL");
        double pct = rows == 0 ? 0 : 100.0 * nulls / rows;
        checks.add(
            new Check(
                "nulls in " + key + " (" + nulls + " rows)",
                "percent",
                pct,
                "<= " + fmt(p.maxNullPct()) + " %",
                pct <= p.maxNullPct()));
      }
      if (!p.duplicateKey().isEmpty() && columns.containsAll(p.duplicateKey())) {
        String key = String.join(", ", p.duplicateKey());
        duplicateGroups =
            sql.scalarLong(
                "SELECT count(*) FROM (SELECT "
                    + key
                    + " FROM "
                    + tableName
                    + " GROUP BY ALL HAVING count(*) > 1)");
        long extra =
            rows
                - sql.scalarLong(
                    "SELECT count(*) FROM (SELECT DISTINCT " + key + " FROM " + tableName + ")");
        double pct = rows == 0 ? 0 : 100.0 * extra / rows;
        checks.add(
            new Check(
                "duplicates on (" + key + ") (" + extra + " extra rows)",
                "percent",
                pct,
                "<= " + fmt(p.maxDuplicatePct()) + " %",
                pct <= p.maxDuplicatePct()));
      }
      List<String> problems = schemaProblems(sql, sql.declared(tableName));
      checks.add(
          new Check(
              "schema conforms (" + (problems.isEmpty() ? "ok" : String.join("; ", problems)) + ")",
              "problems",
              problems.size(),
              "= 0",
              problems.isEmpty()));
      return new Report(
          tableName,
          scannedAt,
          source,
          rows,
          nullCounts,
          duplicateGroups,
          removedUpstream(sql, tableName),
          checks);
    }
  }

  /**
   * The records removed on the way to {@code table}, from its pipeline's quarantine: {@code
   * "<stage> <reason>"} → count, for every stage up to and including the table's own (for Silver:
   * Bronze's dead letters, Silver's quarantine and its duplicates).
   */
  static Map<String, Long> removedUpstream(LakeSql sql, String table) throws Exception {
    String quarantine = table.contains("user") ? "quarantine_user_events" : "quarantine_iot_events";
    List<String> stages =
        table.startsWith("gold")
            ? List.of("bronze", "silver", "gold")
            : table.startsWith("silver") ? List.of("bronze", "silver") : List.of("bronze");
    Map<String, Long> out = new java.util.TreeMap<>();
    if (stages.isEmpty() || !sql.has(quarantine)) {
      return out;
    }
    for (List<Object> row :
        sql.rows(
            "SELECT stage || ' ' || split_part(reason, ':', 1), count(*) FROM "
                + quarantine
                + " WHERE stage IN ('"
                + String.join("', '", stages)
                + "') GROUP BY 1 ORDER BY 1")) {
      out.put(String.valueOf(row.get(0)), ((Number) row.get(1)).longValue());
    }
    return out;
  }

  static List<String> columns(LakeSql sql, String view) throws Exception {
    List<String> out = new ArrayList<>();
    for (List<Object> row : sql.rows("DESCRIBE " + view)) {
      out.add(String.valueOf(row.get(0)));
    }
    return out;
  }

  /** Declared columns missing or of another type, and columns not declared. */
  static List<String> schemaProblems(LakeSql sql, Catalog.Table table) throws Exception {
    Map<String, String> actual = new java.util.LinkedHashMap<>();
    for (List<Object> row : sql.rows("DESCRIBE " + table.name())) {
      actual.put(String.valueOf(row.get(0)), String.valueOf(row.get(1)));
    }
    Schema schema = table.schema();
    List<String> problems = new ArrayList<>();
    for (Schema.Field f : schema.getFields()) {
      String want = LakeSql.duckType(f.getType());
      String got = actual.get(f.getName());
      if (got == null) {
        if (f.getType().getNullable()
            && !Catalog.table(table.name()).schema().hasField(f.getName())) {
          continue; // a column a run declared and no committed file has yet (a catalog's)
        }
        problems.add("missing " + f.getName());
      } else if (!got.equals(want)) {
        problems.add(f.getName() + " is " + got + ", declared " + want);
      }
    }
    for (String col : actual.keySet()) {
      if (!schema.hasField(col)) {
        problems.add("undeclared column " + col);
      }
    }
    return problems;
  }

  static String toJson(Report r) throws Exception {
    ObjectNode root = Json.mapper().createObjectNode();
    root.put("table", r.table());
    root.put("scanned_at", r.scannedAt());
    root.put("source", r.source());
    root.put("rows", r.rows());
    root.put("passed", r.passed());
    ObjectNode nulls = root.putObject("null_counts");
    r.nullCounts().forEach(nulls::put);
    root.put("duplicate_groups", r.duplicateGroups());
    ObjectNode removed = root.putObject("removed_upstream");
    r.removedUpstream().forEach(removed::put);
    ArrayNode checks = root.putArray("checks");
    for (Check c : r.checks()) {
      checks
          .addObject()
          .put("name", c.name())
          .put("metric", c.metric())
          .put("value", c.value())
          .put("threshold", c.threshold())
          .put("passed", c.passed());
    }
    return Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n";
  }

  static String toMarkdown(Report r) {
    StringBuilder md = new StringBuilder();
    md.append("# Data quality: `").append(r.table()).append("`\n\n");
    md.append(r.passed() ? "**Passed**" : "**FAILED**")
        .append(": ")
        .append(r.rows())
        .append(" rows.\n\n");
    md.append("Scanned ")
        .append(r.scannedAt())
        .append(" from `")
        .append(r.source())
        .append("`.\n\n");
    md.append("| check | value | threshold | result |\n|---|---|---|---|\n");
    for (Check c : r.checks()) {
      md.append("| ")
          .append(c.name().replace("|", "\\|"))
          .append(" | ")
          .append(fmt(c.value()))
          .append(c.metric().equals("percent") ? " %" : "")
          .append(" | ")
          .append(c.threshold())
          .append(" | ")
          .append(c.passed() ? "pass" : "**FAIL**")
          .append(" |\n");
    }
    md.append("\nDuplicate groups (rows sharing the duplicate key): ")
        .append(r.duplicateGroups())
        .append(".\n\n| column | nulls |\n|---|---|\n");
    r.nullCounts()
        .forEach((c, n) -> md.append("| ").append(c).append(" | ").append(n).append(" |\n"));
    if (!r.removedUpstream().isEmpty()) {
      md.append("\n| removed upstream (stage, reason) | records |\n|---|---|\n");
      r.removedUpstream()
          .forEach((k, n) -> md.append("| ").append(k).append(" | ").append(n).append(" |\n"));
    }
    return md.toString();
  }

  private static String fmt(double v) {
    return v == Math.rint(v) ? String.valueOf((long) v) : String.format(Locale.ROOT, "%.2f", v);
  }
}
