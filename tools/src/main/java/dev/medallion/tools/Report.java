package dev.medallion.tools;

import dev.medallion.core.RunnerDrops;
import dev.medallion.lakehouse.LakeTables;
import dev.medallion.pipelines.IotJob;
import dev.medallion.pipelines.IotOptions;
import dev.medallion.pipelines.Progress;
import dev.medallion.pipelines.UserFeaturesJob;
import dev.medallion.pipelines.UsersOptions;
import java.util.Map;
import java.util.TreeMap;
import org.apache.beam.sdk.PipelineResult;

/** The end-of-run summary: per-layer counts from Beam metrics and a few Gold rows. */
final class Report {
  private Report() {}

  /** After a users run: each layer's counts, which balance (lines = rows + dead letters, …). */
  static void print(UserFeaturesJob.Summary s, UsersOptions options) {
    Map<String, Long> c = s.counters();
    long bronzeKept = c.getOrDefault("bronze_user_accepted", 0L);
    long bronzeDead = c.getOrDefault("bronze_user_rejected", 0L);
    long kept = c.getOrDefault("silver_user_accepted", 0L);
    long quarantined = c.getOrDefault("silver_user_rejected", 0L);
    long duplicates = c.getOrDefault("silver_user_duplicates", 0L);
    System.out.printf(
        "bronze : %d new file(s); %d lines = %d rows + %d dead letters%n",
        s.newFiles(), bronzeKept + bronzeDead, bronzeKept, bronzeDead);
    System.out.printf(
        "silver : %d bronze rows = %d kept + %d quarantined + %d duplicates removed%n",
        kept + quarantined + duplicates, kept, quarantined, duplicates);
    System.out.printf(
        "gold   : %d user_features rows%n", c.getOrDefault("gold_user_features_rows", 0L));
    LakeTables.Config config = LakeTables.Config.of(options);
    System.out.println(
        "tables under "
            + options.getLakehouse()
            + " (Iceberg catalog: "
            + (config.glue() ? "AWS Glue" : config.jdbcUri())
            + ")");
  }

  /** After an IoT run or stage: per-layer counts, the reasons, and the newest Gold rows. */
  static void print(PipelineResult result, IotOptions options, IotJob.Stage stage) {
    Map<String, Long> c = new TreeMap<>(Progress.counters(result));
    long bronzeIn = c.getOrDefault("bronze_accepted", 0L) + c.getOrDefault("bronze_rejected", 0L);
    System.out.println("state: " + result.getState());
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
          "gold   : %d device_minute rows, %d site_minute rows written (all panes), %d too late%n",
          c.getOrDefault("gold_device_minute_rows", 0L),
          c.getOrDefault("gold_site_minute_rows", 0L),
          c.getOrDefault("gold_rejected", 0L));
    }
    if (stage == IotJob.Stage.ALL || stage == IotJob.Stage.GOLD) {
      long dropped = RunnerDrops.count(result);
      System.out.printf(
          "runner : %d record(s) dropped behind the watermark%s%n",
          dropped, dropped == 0 ? "" : " (not in Gold: raise --watermarkSlackSeconds)");
    }
    c.forEach(
        (name, value) -> {
          if (name.contains("_rejected_")) {
            System.out.printf("  %-40s %d%n", name, value);
          }
        });
    if ((stage == IotJob.Stage.ALL || stage == IotJob.Stage.GOLD)
        && !options.getLakehouse().startsWith("s3://")) {
      try (LakeSql sql = new LakeSql(LakeTables.Config.of(options))) {
        System.out.println("latest Gold rows (device_minute, newest pane of each device-minute):");
        System.out.print(
            sql.table(
                "SELECT device_id, site, window_start, reading_count,"
                    + " round(temperature_avg, 2) AS temp_avg, round(humidity_avg, 2) AS hum_avg,"
                    + " round(pressure_avg, 1) AS press_avg, heartbeat_count, battery_pct_min,"
                    + " last_status, pane_index"
                    + " FROM "
                    + LakeSql.DEVICE_MINUTE_CURRENT
                    + " ORDER BY window_start DESC, device_id LIMIT 8"));
        System.out.println("tables under " + options.getLakehouse() + ": " + sql.tableSummary());
      } catch (Exception e) {
        System.out.println("(could not read Gold back: " + e.getMessage() + ")");
      }
    }
  }
}
