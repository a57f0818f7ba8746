package dev.medallion.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The two shipped examples of data as users have it, through their mapping files: a Glue/Athena
 * user-events export and a PySpark bridge-monitoring stream. The expected rows are worked out by
 * hand from the files in {@code testdata/glue} and {@code testdata/bridges}.
 */
class FieldMappingEndToEndTest {
  @TempDir Path tmp;

  private static final Path MAPPINGS = Runs.TESTDATA.resolve("mappings");

  @Test
  void aGlueExportOfUserEventsIsReadThroughItsMapping() throws Exception {
    Path lake = tmp.resolve("lake");
    FaultsTest.Outcome o =
        FaultsTest.medallion(
            "users",
            "--input=" + Runs.TESTDATA.resolve("glue/user-events.json"),
            "--mapping=" + MAPPINGS.resolve("glue-user-events.yaml"),
            "--lakehouse=" + lake);
    assertThat(o.code()).as(o.out() + o.err()).isZero();
    // 5 documents: user 42's two events (ids and price coerced, `timestamp` renamed, a default
    // device); u-7's click twice at one instant (+02:00 and Z): the first kept; one without user.
    assertThat(o.out())
        .contains("5 lines = 5 rows + 0 dead letters")
        .contains("5 bronze rows = 3 kept + 1 quarantined + 1 duplicates removed");
    assertThat(
            Runs.rows(
                lake,
                "SELECT user_id, event_id, price, device, strftime(event_timestamp, '%Y-%m-%dT%H:%M:%SZ')"
                    + " FROM silver_user_events ORDER BY event_id"))
        .containsExactly(
            List.of("42", "9001", 19.99, "unknown", "2026-11-27T09:00:00Z"),
            List.of("42", "9002", 19.99, "mobile", "2026-11-27T09:05:00Z"),
            java.util.Arrays.asList("u-7", "9003", null, "unknown", "2026-11-28T16:30:00Z"));
    assertThat(
            Runs.rows(
                lake,
                "SELECT user_id, event_count, view_count, purchase_count, click_count,"
                    + " last_event_type FROM gold_user_features ORDER BY user_id"))
        .containsExactly(
            List.of("42", 2L, 1L, 1L, 0L, "purchase"), List.of("u-7", 1L, 0L, 0L, 1L, "click"));
    // The ML fields no rule reads are kept, queryable, in Silver's extra column.
    assertThat(
            Runs.rows(
                lake,
                "SELECT event_id, extra->>'feature_hash', CAST(extra->>'model_input_flag' AS BOOLEAN),"
                    + " extra->>'inference_ts' FROM silver_user_events ORDER BY event_id"))
        .containsExactly(
            List.of("9001", "9f2c1e", true, "2026-11-27T09:00:01.250Z"),
            java.util.Arrays.asList("9002", "9f2c1f", false, null),
            List.of("9003", "a01b22", true, "2026-11-28T16:30:00.900Z"));
    // The raw line is the document as it came, ML fields included.
    assertThat(
            Runs.rows(lake, "SELECT raw_line FROM bronze_user_events WHERE source LIKE '%#2'")
                .get(0)
                .get(0)
                .toString())
        .contains("\"timestamp\": \"2026-11-27T09:00:00.000Z\"")
        .contains("\"feature_hash\": \"9f2c1e\"");
    // The same mapping, pretty-printed input and extra column on Spark local[2].
    sameOnSpark(
        lake,
        List.of(
            "SELECT * EXCLUDE (ingest_ts, ingest_date) FROM bronze_user_events",
            "SELECT * EXCLUDE (ingest_ts) FROM silver_user_events",
            "SELECT * FROM gold_user_features"),
        "users",
        "--input=" + Runs.TESTDATA.resolve("glue/user-events.json"),
        "--mapping=" + MAPPINGS.resolve("glue-user-events.yaml"));
  }

  /**
   * Runs {@code args} on the SparkRunner ({@code local[2]}) into a new lakehouse and checks that
   * each query gives there the rows it gives on {@code directLake}.
   */
  private void sameOnSpark(Path directLake, List<String> queries, String... args) throws Exception {
    Path spark = tmp.resolve("spark-" + args[0]);
    List<String> all = new java.util.ArrayList<>(List.of(args));
    all.add("--lakehouse=" + spark);
    all.add("--runner=SparkRunner");
    all.add("--sparkMaster=local[2]");
    FaultsTest.Outcome o = FaultsTest.medallion(all.toArray(String[]::new));
    assertThat(o.code()).as(o.out() + o.err()).isZero();
    for (String query : queries) {
      List<String> got = Runs.rows(spark, query).stream().map(String::valueOf).sorted().toList();
      assertThat(got)
          .as(query)
          .isNotEmpty()
          .isEqualTo(Runs.rows(directLake, query).stream().map(String::valueOf).sorted().toList());
    }
  }

  @Test
  void aPysparkBridgeStreamIsReadThroughItsMappingAndItsSensorCatalog() throws Exception {
    Path lake = tmp.resolve("lake");
    // the bridges' own registry: its own column names, and bridge 102 without coordinates
    String devices = "--devices=" + Runs.TESTDATA.resolve("bridges/devices.csv");
    String columns =
        "--deviceColumns=bridge_id=device_id,city=site,river_section=zone,lat=latitude,"
            + "lon=longitude";
    String catalog = "--sensorCatalog=" + Runs.TESTDATA.resolve("catalogs/bridges.yaml");
    FaultsTest.Outcome o =
        FaultsTest.medallion(
            "run",
            "--input=" + Runs.TESTDATA.resolve("bridges/readings.ndjson"),
            devices,
            columns,
            "--mapping=" + MAPPINGS.resolve("pyspark-bridges.yaml"),
            catalog,
            "--lakehouse=" + lake);
    assertThat(o.code()).as(o.out() + o.err()).isZero();
    // Integer bridge ids become device ids, event_time (microseconds) the event time, the unit
    // comes from the sensor type, and the catalog's vibration and tilt types are kept.
    assertThat(
            Runs.rows(
                lake,
                "SELECT device_id, site, sensor_type, value, unit, epoch_ms(event_ts)"
                    + " FROM silver_sensor_readings ORDER BY event_ts"))
        .containsExactly(
            List.of("101", "porto", "temperature", 7.25, "C", 1795946401123L),
            List.of("102", "porto", "temperature", 6.5, "C", 1795946402654L),
            List.of("101", "porto", "vibration", 0.42, "mm/s", 1795946403000L),
            List.of("102", "porto", "vibration", 0.37, "mm/s", 1795946404500L),
            List.of("101", "porto", "tilt", 0.05, "deg", 1795946405250L));
    assertThat(
            Runs.rows(
                lake, "SELECT reason, count(*) FROM quarantine_iot_events GROUP BY 1 ORDER BY 1"))
        .containsExactly(List.of("unknown_device", 1L));
    // The registry's columns by its own names; a bridge without coordinates or model has nulls.
    assertThat(
            Runs.rows(
                lake,
                "SELECT DISTINCT device_id, zone, latitude, model FROM silver_sensor_readings"
                    + " ORDER BY 1"))
        .containsExactly(
            List.of("101", "river", 41.14, "BRG-T1"),
            java.util.Arrays.asList("102", "river", null, null));
    // Gold's device and site rows count every kept reading, and their aggregate columns are those
    // the catalog's gold lists name: no humidity or pressure, vibration's count, avg and max.
    for (String table : List.of("gold_device_minute", "gold_site_minute")) {
      List<Object> names =
          Runs.rows(lake, "SELECT column_name FROM (DESCRIBE " + table + ")").stream()
              .map(r -> r.get(0))
              .toList();
      assertThat(names)
          .as(table)
          .containsSubsequence(
              "reading_count",
              "temperature_avg",
              "temperature_min",
              "temperature_max",
              "vibration_count",
              "vibration_avg",
              "vibration_max",
              "tilt_avg",
              "tilt_min",
              "tilt_max",
              "heartbeat_count")
          .doesNotContain("humidity_avg", "pressure_avg", "vibration_min");
    }
    assertThat(
            Runs.rows(
                lake,
                "SELECT device_id, reading_count, temperature_avg, vibration_count, vibration_max,"
                    + " tilt_avg FROM gold_device_minute_current ORDER BY device_id"))
        .containsExactly(
            List.of("101", 3L, 7.25, 1L, 0.42, 0.05),
            java.util.Arrays.asList("102", 2L, 6.5, 1L, 0.37, null));
    assertThat(
            Runs.rows(
                lake,
                "SELECT site, reading_count, vibration_count, round(vibration_avg, 6),"
                    + " vibration_max, tilt_min FROM gold_site_minute_current"))
        .containsExactly(List.of("porto", 5L, 2L, 0.395, 0.42, 0.05));
    // gold_sensor_minute has every type of the catalog, in its unit.
    assertThat(
            Runs.rows(
                lake,
                "SELECT device_id, sensor_type, unit, reading_count, value_avg, value_max"
                    + " FROM gold_sensor_minute_current ORDER BY device_id, sensor_type"))
        .containsExactly(
            List.of("101", "temperature", "C", 1L, 7.25, 7.25),
            List.of("101", "tilt", "deg", 1L, 0.05, 0.05),
            List.of("101", "vibration", "mm/s", 1L, 0.42, 0.42),
            List.of("102", "temperature", "C", 1L, 6.5, 6.5),
            List.of("102", "vibration", "mm/s", 1L, 0.37, 0.37));
    // The same mapping, registry columns and catalog (Gold's columns too) on Spark local[2].
    sameOnSpark(
        lake,
        List.of(
            "SELECT * EXCLUDE (ingest_ts) FROM silver_sensor_readings",
            "SELECT stage, reason, source FROM quarantine_iot_events",
            "SELECT * EXCLUDE (written_at) FROM gold_device_minute_current",
            "SELECT * EXCLUDE (written_at) FROM gold_site_minute_current",
            "SELECT * EXCLUDE (written_at) FROM gold_sensor_minute_current"),
        "run",
        "--input=" + Runs.TESTDATA.resolve("bridges/readings.ndjson"),
        devices,
        columns,
        "--mapping=" + MAPPINGS.resolve("pyspark-bridges.yaml"),
        catalog);
    // validate checks Silver against the catalog the run used, and fails against the built-in.
    FaultsTest.Outcome valid =
        FaultsTest.medallion("validate", devices, columns, catalog, "--lakehouse=" + lake);
    assertThat(valid.code()).as(valid.out() + valid.err()).isZero();
    FaultsTest.Outcome builtIn =
        FaultsTest.medallion("validate", devices, columns, "--lakehouse=" + lake);
    assertThat(builtIn.code()).isEqualTo(1);
    assertThat(builtIn.out())
        .contains("FAIL silver  readings: types, units and ranges valid       3 invalid rows")
        .contains(
            "device_minute has the sensor catalog's columns",
            "no column humidity_avg, pressure_avg: were the runs made with another"
                + " --sensorCatalog?");

    // report: one page a person reads, looked at as headless Chromium renders it
    Path html = tmp.resolve("report.html");
    FaultsTest.Outcome report =
        FaultsTest.medallion(
            "report", devices, columns, catalog, "--lakehouse=" + lake, "--out=" + html);
    assertThat(report.code()).as(report.out() + report.err()).isZero();
    String page = java.nio.file.Files.readString(html);
    assertThat(page)
        .contains("<tr><td>gold_sensor_minute</td><td class=\"n\">5</td></tr>")
        .contains("<td>silver</td><td>unknown_device</td><td class=\"n\">1</td>")
        .contains("device 999 is not in the device registry")
        .contains("All 14 checks passed.")
        .doesNotContain("class=\"fail\"");
    assertThat(page.split("<img class=\"chart\"", -1)).hasSize(4); // temperature, tilt, vibration
    java.awt.image.BufferedImage shot = ReportPage.screenshot(html, tmp);
    // Each chart's porto series is drawn (JFreeChart's first series colour), and the checks'
    // PASS marks are shown in their green.
    assertThat(ReportPage.pixelsLike(shot, 0xFF5555)).isGreaterThan(60);
    assertThat(ReportPage.pixelsLike(shot, 0x1A7F37)).isGreaterThan(40);
  }

  @Test
  void aWrongMappingFileStopsTheRunBeforeItStarts() throws Exception {
    java.nio.file.Files.writeString(tmp.resolve("bad.yaml"), "renam: {a: b}\n");
    FaultsTest.Outcome o =
        FaultsTest.medallion(
            "users",
            "--input=" + Runs.TESTDATA.resolve("glue/user-events.json"),
            "--mapping=" + tmp.resolve("bad.yaml"),
            "--lakehouse=" + tmp.resolve("lake"));
    assertThat(o.code()).isEqualTo(2);
    assertThat(o.err()).contains("unknown key 'renam'").doesNotContain("\tat ");
    assertThat(tmp.resolve("lake/bronze")).doesNotExist();
  }
}
