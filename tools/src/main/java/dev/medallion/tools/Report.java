package dev.medallion.tools;

import dev.medallion.core.RunnerDrops;
import dev.medallion.iot.GoldColumns;
import dev.medallion.lakehouse.InputFiles;
import dev.medallion.lakehouse.LakeTables;
import dev.medallion.lakehouse.LakehouseOptions;
import dev.medallion.pipelines.IotJob;
import dev.medallion.pipelines.IotOptions;
import dev.medallion.pipelines.Progress;
import dev.medallion.pipelines.UserFeaturesJob;
import dev.medallion.pipelines.UsersOptions;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.beam.sdk.PipelineResult;

/** The end-of-run summary: per-layer counts from Beam metrics and a few Gold rows. */
final class Report {
  private Report() {}

  /**
   * After a users run: each layer's counts, which balance (lines = rows + dead letters, …), and the
   * rejections by reason. False when the run rejected more than {@code --maxRejectPct}.
   */
  static boolean print(UserFeaturesJob.Summary s, UsersOptions options) {
    Map<String, Long> c = s.counters();
    long bronzeKept = c.getOrDefault("bronze_user_accepted", 0L);
    long bronzeDead = c.getOrDefault("bronze_user_rejected", 0L);
    long kept = c.getOrDefault("silver_user_accepted", 0L);
    long quarantined = c.getOrDefault("silver_user_rejected", 0L);
    long duplicates = c.getOrDefault("silver_user_duplicates", 0L);
    long replaced = c.getOrDefault("silver_user_replaced", 0L);
    System.out.printf(
        "bronze : %d new file(s); %d lines = %d rows + %d dead letters%n",
        s.newFiles(), bronzeKept + bronzeDead, bronzeKept, bronzeDead);
    System.out.printf(
        "silver : %d bronze rows = %d kept + %d quarantined + %d duplicates removed%s%n",
        kept + quarantined + duplicates + replaced,
        kept,
        quarantined,
        duplicates,
        replaced == 0 ? "" : " + " + replaced + " replaced by later versions (CDC)");
    long goldRows = c.getOrDefault("gold_user_features_rows", 0L);
    System.out.printf(
        "gold   : %d user_features rows%s%n",
        goldRows, goldRows == 0 && kept == 0 ? " (empty: no event reached Silver)" : "");
    LakeTables.Config config = LakeTables.Config.of(options);
    System.out.println(
        "tables under "
            + options.getLakehouse()
            + " (Iceberg catalog: "
            + (config.glue() ? "AWS Glue" : config.jdbcUri())
            + ")");
    return rejections(
        c,
        s.examples(),
        List.of("bronze_user", "silver_user", "gold_user"),
        // Silver checks all of Bronze, earlier runs' rows too: what it read, plus this run's
        // dead letters, is what the rejections are a share of.
        bronzeDead + kept + quarantined + duplicates + replaced,
        options);
  }

  /**
   * After an IoT run or stage: per-layer counts, the rejections by reason, and the newest Gold
   * rows. False when the run rejected more than {@code --maxRejectPct}.
   */
  static boolean print(IotJob.Ran ran, IotOptions options, IotJob.Stage stage) {
    PipelineResult result = ran.result();
    Map<String, Long> c = new TreeMap<>(ran.counts());
    long bronzeIn = c.getOrDefault("bronze_accepted", 0L) + c.getOrDefault("bronze_rejected", 0L);
    System.out.println("state: " + result.getState());
    if (!options.getInputTopic().isEmpty()) {
      System.out.printf(
          "kafka  : %d records read from %s%s%n",
          c.getOrDefault(Progress.KAFKA_IN, 0L),
          options.getInputTopic(),
          options.getOutputTopic().isEmpty()
              ? ""
              : ", "
                  + c.getOrDefault(Progress.KAFKA_OUT, 0L)
                  + " forwarded to "
                  + options.getOutputTopic());
    }
    if (stage == IotJob.Stage.ALL || stage == IotJob.Stage.BRONZE) {
      System.out.printf(
          "bronze : %d lines read = %d kept + %d dead letters%n",
          bronzeIn, c.getOrDefault("bronze_accepted", 0L), c.getOrDefault("bronze_rejected", 0L));
    }
    if (stage == IotJob.Stage.ALL || stage == IotJob.Stage.SILVER) {
      System.out.printf(
          "silver : %d kept + %d quarantined%n",
          c.getOrDefault("silver_accepted", 0L), c.getOrDefault("silver_rejected", 0L));
    }
    if (stage == IotJob.Stage.ALL || stage == IotJob.Stage.GOLD) {
      System.out.printf(
          "gold   : %d device_minute, %d site_minute, %d sensor_minute rows written (all panes),"
              + " %d too late%s%s%n",
          c.getOrDefault("gold_device_minute_rows", 0L),
          c.getOrDefault("gold_site_minute_rows", 0L),
          c.getOrDefault("gold_sensor_minute_rows", 0L),
          c.getOrDefault("gold_rejected", 0L),
          c.getOrDefault("gold_too_late_judged_before", 0L) == 0
              ? ""
              : " (" + c.get("gold_too_late_judged_before") + " of them quarantined before)",
          c.getOrDefault("gold_seeded", 0L) == 0
              ? ""
              : "; its windows were filled with "
                  + c.get("gold_seeded")
                  + " committed Silver rows too");
    }
    if (stage == IotJob.Stage.ALL || stage == IotJob.Stage.GOLD) {
      long dropped = RunnerDrops.count(result);
      // A stream joined in groups of devices reaches the grouping in batches of records, and the
      // runner counts a dropped batch once.
      System.out.printf(
          "runner : %d record(s) dropped behind the watermark%s%n",
          dropped,
          dropped == 0
              ? ""
              : " (batches of records count once; not in Gold: raise --watermarkSlackSeconds)");
    }
    long read =
        stage == IotJob.Stage.ALL || stage == IotJob.Stage.BRONZE
            ? bronzeIn
            : c.getOrDefault("silver_accepted", 0L) + c.getOrDefault("silver_rejected", 0L);
    long goldRows = c.getOrDefault("gold_device_minute_rows", 0L);
    if ((stage == IotJob.Stage.ALL || stage == IotJob.Stage.GOLD) && goldRows == 0) {
      System.out.println(
          "Gold is empty: no record reached it"
              + (read > 0 && c.getOrDefault("silver_accepted", 0L) == 0
                  ? " (every record was rejected before; see the reasons above)"
                  : ""));
    } else if ((stage == IotJob.Stage.ALL || stage == IotJob.Stage.GOLD) && !LakeSql.withDuckDb()) {
      System.out.println(
          "(the Spark job jar carries no DuckDB: read Gold with ./medallion query --lakehouse="
              + options.getLakehouse()
              + " \"SELECT * FROM "
              + LakeSql.DEVICE_MINUTE_CURRENT
              + "\")");
    } else if ((stage == IotJob.Stage.ALL || stage == IotJob.Stage.GOLD)
        && !options.getLakehouse().startsWith("s3://")) {
      try (LakeSql sql = new LakeSql(LakeTables.Config.of(options))) {
        System.out.println("latest Gold rows (device_minute, newest pane of each device-minute):");
        System.out.print(
            sql.table(
                "SELECT device_id, site, window_start, reading_count"
                    + sensorAverages(sql)
                    + ", heartbeat_count, battery_pct_min, last_status, pane_index"
                    + " FROM "
                    + LakeSql.DEVICE_MINUTE_CURRENT
                    + " ORDER BY window_start DESC, device_id LIMIT 8"));
        System.out.println("tables under " + options.getLakehouse() + ": " + sql.tableSummary());
      } catch (Exception e) {
        System.out.println("(could not read Gold back: " + e.getMessage() + ")");
      }
    }
    return rejections(
        c, Progress.examples(result), List.of("bronze", "silver", "gold"), read, options);
  }

  /**
   * The averages among the sensor catalog's columns of {@code gold_device_minute} (the first four,
   * rounded), as {@code , round(x_avg, 2) AS x_avg, …}.
   */
  static String sensorAverages(LakeSql sql) {
    StringBuilder out = new StringBuilder();
    sql.declared("gold_device_minute").schema().getFieldNames().stream()
        .filter(c -> !GoldColumns.isFixed(c) && c.endsWith("_avg"))
        .limit(4)
        .forEach(c -> out.append(", round(").append(c).append(", 2) AS ").append(c));
    return out.toString();
  }

  /** Rejections a stage counts that are not records rejected: Gold's are about lateness. */
  private static boolean countsAsRejected(String stage) {
    return stage.startsWith("bronze") || stage.startsWith("silver");
  }

  /**
   * The rejections by reason, each with its count and an example (source, record, why), a hint for
   * files that look like pretty-printed JSON, and the rejected share of the {@code read} lines
   * against {@code --maxRejectPct}: false when above it.
   */
  static boolean rejections(
      Map<String, Long> c,
      Map<String, String> examples,
      List<String> stages,
      long read,
      LakehouseOptions options) {
    long rejected = 0;
    boolean notJson = false;
    boolean any = false;
    for (String stage : stages) {
      String prefix = stage + "_rejected_";
      for (Map.Entry<String, Long> e : new TreeMap<>(c).entrySet()) {
        if (!e.getKey().startsWith(prefix) || e.getValue() == 0) {
          continue;
        }
        String reason = e.getKey().substring(prefix.length());
        if (countsAsRejected(stage)) {
          rejected += e.getValue();
        }
        notJson |= NOT_NDJSON.contains(reason);
        if (!any) {
          any = true;
          System.out.println(
              "rejections by reason, each with an example (where: record, and why):");
        }
        System.out.printf("  %-7s %-28s %9d%n", stage.replace("_user", ""), reason, e.getValue());
        String example = examples.get(stage + "_" + reason);
        if (example != null) {
          String[] parts = example.split("\t", 3);
          System.out.println(
              "          e.g. " + parts[0] + ": " + (parts.length > 1 ? parts[1] : ""));
          if (parts.length > 2 && !parts[2].isBlank()) {
            System.out.println("               " + parts[2]);
          }
        }
      }
    }
    if (notJson) {
      hintMultilineJson(options.getInput());
    }
    double pct = read == 0 ? 0 : 100.0 * rejected / read;
    if (rejected > 0) {
      System.out.printf(
          Locale.ROOT, "rejected: %d of %d records read (%.1f %%)%n", rejected, read, pct);
    }
    if (pct > options.getMaxRejectPct()) {
      System.err.printf(
          Locale.ROOT,
          "medallion: %.1f %% of the records read were rejected, more than --maxRejectPct=%s;"
              + " what was kept is committed; see the reasons above%n",
          pct,
          BigDecimal.valueOf(options.getMaxRejectPct()).stripTrailingZeros().toPlainString());
      return false;
    }
    return true;
  }

  /** Bronze reasons of lines that are not one JSON object each. */
  private static final Set<String> NOT_NDJSON =
      Set.of("not_json", "not_object", "trailing_data", "empty_line");

  /** Names the input files that look like pretty-printed JSON, and says how to convert them. */
  private static void hintMultilineJson(String input) {
    if (input == null || input.isBlank()) {
      return;
    }
    Set<String> files;
    try {
      files = InputFiles.matching(input);
    } catch (IOException | RuntimeException e) {
      return;
    }
    int named = 0;
    for (String f : files) {
      if (named < 20 && InputFiles.looksLikeMultilineJson(f)) {
        named++;
        System.out.println(
            "hint: "
                + f
                + " looks like pretty-printed JSON (documents over several lines, or an array),"
                + " but was read as NDJSON, one JSON object per line: read it with"
                + " --inputFormat=json (or auto, the default), or convert it with"
                + " jq -c 'if type == \"array\" then .[] else . end' "
                + f
                + " > converted.ndjson");
      }
    }
  }
}
