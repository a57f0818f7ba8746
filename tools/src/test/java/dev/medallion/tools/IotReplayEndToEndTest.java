package dev.medallion.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import dev.medallion.core.Json;
import dev.medallion.pipelines.IotJob;
import dev.medallion.pipelines.IotOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole IoT pipeline replayed over {@code testdata/iot/events.ndjson}, on the DirectRunner and
 * on the SparkRunner ({@code local[2]}): Gold must equal the golden files that {@code
 * testdata/iot/compute_expected.py} worked out independently, counts must balance, and the
 * validation harness must pass.
 */
class IotReplayEndToEndTest {
  static final Path TESTDATA = Path.of("..", "testdata").toAbsolutePath().normalize();
  static final Path EVENTS = TESTDATA.resolve("iot/events.ndjson");
  static final Path EXPECTED = TESTDATA.resolve("iot/expected");

  @TempDir Path lake;

  @Test
  void directRunnerGoldEqualsTheGoldenFiles() throws Exception {
    replayAndCheck("DirectRunner", "--runner=DirectRunner");
  }

  @Test
  void sparkRunnerGoldEqualsTheGoldenFiles() throws Exception {
    replayAndCheck("SparkPipelineResult", "--runner=SparkRunner", "--sparkMaster=local[2]");
  }

  private void replayAndCheck(String resultClass, String... runnerArgs) throws Exception {
    List<String> args = new ArrayList<>(List.of(runnerArgs));
    args.add("--input=" + EVENTS);
    args.add("--devices=" + TESTDATA.resolve("devices.csv"));
    args.add("--lakehouse=" + lake);
    args.add("--runId=replay");
    PipelineOptionsFactory.register(IotOptions.class);
    IotOptions options =
        PipelineOptionsFactory.fromArgs(args.toArray(String[]::new)).as(IotOptions.class);
    Pipeline p = Pipeline.create(options);
    IotJob.build(p, IotJob.Stage.ALL, options);
    PipelineResult result = p.run();
    assertThat(result.waitUntilFinish()).isEqualTo(PipelineResult.State.DONE);
    assertThat(result.getClass().getName()).as("the runner that ran").contains(resultClass);

    assertGoldenGoldAndBalancedCounts(lake);
    List<Validate.Check> checks = Validate.validate(lake.toString(), EVENTS.toString());
    assertThat(checks).allSatisfy(c -> assertThat(c.passed()).as(c.toString()).isTrue());
  }

  /**
   * The replay of {@code testdata/iot/events.ndjson} in {@code lake}: counts balance and Gold (the
   * newest pane of each device-minute and site-minute) equals the golden files.
   */
  static void assertGoldenGoldAndBalancedCounts(Path lake) throws Exception {
    try (LakeSql sql = new LakeSql(lake.toString())) {
      assertGoldenGoldAndBalancedCounts(sql);
    }
  }

  static void assertGoldenGoldAndBalancedCounts(LakeSql sql) throws Exception {
    assertCountsBalance(sql);
    assertRowsEqualGolden(
        sql,
        "SELECT device_id, site, zone, window_start, window_end, reading_count, temperature_avg,"
            + " temperature_min, temperature_max, humidity_avg, pressure_avg, heartbeat_count,"
            + " battery_pct_min, rssi_dbm_avg, last_status FROM "
            + LakeSql.DEVICE_MINUTE_CURRENT
            + " ORDER BY device_id, window_start",
        EXPECTED.resolve("device_minute.csv"));
    assertRowsEqualGolden(
        sql,
        "SELECT site, window_start, window_end, device_count, reading_count, temperature_avg,"
            + " humidity_avg, pressure_avg, heartbeat_count, battery_pct_min FROM "
            + LakeSql.SITE_MINUTE_CURRENT
            + " ORDER BY site, window_start",
        EXPECTED.resolve("site_minute.csv"));
  }

  private static void assertCountsBalance(LakeSql sql) throws Exception {
    JsonNode expected = Json.mapper().readTree(EXPECTED.resolve("counts.json").toFile());
    long bronze = sql.scalarLong("SELECT count(*) FROM bronze_iot_events");
    long bronzeDead =
        sql.scalarLong("SELECT count(*) FROM quarantine_iot_events WHERE stage = 'bronze'");
    long silver =
        sql.scalarLong("SELECT count(*) FROM silver_sensor_readings")
            + sql.scalarLong("SELECT count(*) FROM silver_device_heartbeats");
    long quarantined =
        sql.scalarLong("SELECT count(*) FROM quarantine_iot_events WHERE stage = 'silver'");
    long tooLate =
        sql.scalarLong("SELECT count(*) FROM quarantine_iot_events WHERE stage = 'gold'");
    long lines = Files.readAllLines(EVENTS).size();

    assertThat(bronze + bronzeDead).as("raw lines = bronze + bronze dead letters").isEqualTo(lines);
    assertThat(silver + quarantined).as("bronze = silver + quarantined").isEqualTo(bronze);
    assertThat(lines).isEqualTo(expected.get("lines").asLong());
    assertThat(bronze).isEqualTo(expected.get("bronze").asLong());
    assertThat(bronzeDead).isEqualTo(expected.get("bronze_dead").asLong());
    assertThat(silver).isEqualTo(expected.get("silver").asLong());
    assertThat(quarantined).isEqualTo(expected.get("quarantined").asLong());
    assertThat(tooLate).as("a replay has no arrival clock: nothing is too late").isZero();
  }

  private static final DateTimeFormatter ISO =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'");

  /** Compares row by row; numbers within 1e-9, timestamps as UTC instants, null as empty. */
  private static void assertRowsEqualGolden(LakeSql sql, String query, Path golden)
      throws Exception {
    assertRowsEqualGolden(sql.rows(query), golden);
  }

  /** The same, for rows read by JDBC from DuckDB (as {@link LakeSql#rows} reads them). */
  static void assertRowsEqualGolden(List<List<Object>> rows, Path golden) throws Exception {
    List<String> lines = Files.readAllLines(golden);
    assertThat(rows).as(golden.getFileName() + " rows").hasSize(lines.size() - 1);
    for (int i = 0; i < rows.size(); i++) {
      String[] want = lines.get(i + 1).split(",", -1);
      List<Object> got = rows.get(i);
      assertThat(got).hasSize(want.length);
      for (int c = 0; c < want.length; c++) {
        Object g = got.get(c);
        String where =
            golden.getFileName()
                + " row "
                + (i + 1)
                + " column "
                + (c + 1)
                + " "
                + lines.get(i + 1);
        if (want[c].isEmpty()) {
          assertThat(g).as(where).isNull();
        } else if (g instanceof Number n) {
          assertThat(n.doubleValue())
              .as(where)
              .isCloseTo(Double.parseDouble(want[c]), within(1e-9));
        } else if (g instanceof OffsetDateTime t) {
          assertThat(ISO.format(t.withOffsetSameInstant(ZoneOffset.UTC)))
              .as(where)
              .isEqualTo(want[c]);
        } else {
          assertThat(String.valueOf(g)).as(where).isEqualTo(want[c]);
        }
      }
    }
  }
}
