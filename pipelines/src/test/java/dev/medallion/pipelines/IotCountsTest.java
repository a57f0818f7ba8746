package dev.medallion.pipelines;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.medallion.core.Json;
import dev.medallion.lakehouse.Catalog;
import dev.medallion.lakehouse.LakeTables;
import dev.medallion.lakehouse.Lakehouse;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An IoT replay, and a stream, report the rows and dead letters their committed files hold, not the
 * runner's counters (which Spark increments again for a recomputed or retried task).
 */
class IotCountsTest {
  static final Path TESTDATA = Path.of("..", "testdata").toAbsolutePath().normalize();

  @TempDir Path lake;

  @Test
  void aReplayReportsWhatItsFilesHoldAndSaysWhenTheCountersDiffer() throws Exception {
    IotOptions options =
        PipelineOptionsFactory.fromArgs(
                "--input=" + TESTDATA.resolve("iot/events.ndjson"),
                "--devices=" + TESTDATA.resolve("devices.csv"),
                "--lakehouse=" + lake,
                "--runId=replay")
            .as(IotOptions.class);
    Said run = run(options);
    IotJob.Ran ran = run.ran();
    // On the DirectRunner, counters and files agree.
    assertThat(run.err()).doesNotContain("differ");

    // testdata/iot/expected/counts.json is worked out from the input by compute_expected.py.
    JsonNode expected =
        Json.mapper().readTree(TESTDATA.resolve("iot/expected/counts.json").toFile());
    Map<String, Long> counts = ran.counts();
    assertThat(counts.get("bronze_accepted")).isEqualTo(expected.get("bronze").asLong());
    assertThat(counts.get("bronze_rejected")).isEqualTo(expected.get("bronze_dead").asLong());
    assertThat(counts.get("silver_accepted")).isEqualTo(expected.get("silver").asLong());
    assertThat(counts.get("silver_rejected")).isEqualTo(expected.get("quarantined").asLong());

    // A runner that counted a task twice: the files' numbers win, and it is said.
    Map<String, Long> twice = new HashMap<>();
    ran.counts().forEach((k, v) -> twice.put(k, 2 * v));
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    try (LakeTables tables = LakeTables.open(LakeTables.Config.of(options))) {
      Map<String, Long> fromFiles =
          IotJob.countedInFiles(
              IotJob.Stage.ALL,
              twice,
              tables,
              "replay",
              false,
              new PrintStream(err, true, StandardCharsets.UTF_8));
      assertThat(fromFiles.get("bronze_accepted")).isEqualTo(expected.get("bronze").asLong());
      assertThat(fromFiles.get("bronze_rejected_not_json"))
          .isEqualTo(counts.get("bronze_rejected_not_json"))
          .isPositive();
      assertThat(fromFiles.get("silver_rejected")).isEqualTo(expected.get("quarantined").asLong());
      for (String gold :
          new String[] {
            Lakehouse.GOLD_DEVICE_MINUTE, Lakehouse.GOLD_SITE_MINUTE, Lakehouse.GOLD_SENSOR_MINUTE
          }) {
        Catalog.Table t = Catalog.byPath(gold);
        long committed =
            Long.parseLong(
                tables.existing(t).orElseThrow().currentSnapshot().summary().get("total-records"));
        assertThat(fromFiles.get(t.name() + "_rows")).as(gold).isEqualTo(committed).isPositive();
      }
    }
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("the runner's counters differ from what this run's table files hold")
        .contains("bronze_accepted " + 2 * expected.get("bronze").asLong());
  }

  @Test
  void aStreamReportsWhatItsCommitsAdded() throws Exception {
    IotOptions options =
        RunnerDefaults.options(
            new String[] {
              "--lakehouse=" + lake,
              "--durationMinutes=4",
              "--speedup=30",
              "--flushSeconds=2",
              "--runId=live"
            },
            IotOptions.class);
    Said run = run(options);
    IotJob.Ran ran = run.ran();
    assertThat(ran.result().getState().toString()).isEqualTo("DONE");
    assertThat(run.err()).doesNotContain("differ").doesNotContain("cannot count");

    // What the stream's commits added, read back from the tables' snapshots: every row of each
    // table (the stream is the only run), and the quarantine's rows by stage.
    Map<String, Long> counts = ran.counts();
    try (LakeTables tables = LakeTables.open(LakeTables.Config.of(options))) {
      assertThat(counts.get("bronze_accepted"))
          .isEqualTo(totalRecords(tables, Lakehouse.BRONZE_IOT))
          .isPositive();
      assertThat(counts.get("silver_accepted"))
          .isEqualTo(
              totalRecords(tables, Lakehouse.SILVER_READINGS)
                  + totalRecords(tables, Lakehouse.SILVER_HEARTBEATS));
      assertThat(counts.get("gold_device_minute_rows"))
          .isEqualTo(totalRecords(tables, Lakehouse.GOLD_DEVICE_MINUTE))
          .isPositive();
      assertThat(
              counts.get("bronze_rejected")
                  + counts.get("silver_rejected")
                  + counts.get("gold_rejected"))
          .isEqualTo(totalRecords(tables, Lakehouse.QUARANTINE_IOT))
          .isPositive();

      // Counters a recomputed micro-batch incremented again give way to the commits' files.
      Map<String, Long> twice = new HashMap<>();
      counts.forEach((k, v) -> twice.put(k, 2 * v));
      ByteArrayOutputStream differ = new ByteArrayOutputStream();
      Map<String, Long> fromFiles =
          IotJob.countedInFiles(
              IotJob.Stage.ALL,
              twice,
              tables,
              "live",
              true,
              new PrintStream(differ, true, StandardCharsets.UTF_8));
      assertThat(fromFiles.get("bronze_accepted")).isEqualTo(counts.get("bronze_accepted"));
      assertThat(fromFiles.get("silver_rejected")).isEqualTo(counts.get("silver_rejected"));
      assertThat(differ.toString(StandardCharsets.UTF_8))
          .contains("the runner's counters differ from what this run's table files hold");
      // A file of the run's that no commit added (a retried task's copy) is not counted.
      String committed =
          tables.committedBy(Catalog.byPath(Lakehouse.BRONZE_IOT), "live", "").get(0);
      Path copy = Path.of(committed.replace(".parquet", "-retried.parquet"));
      Files.copy(Path.of(committed), copy);
      assertThat(tables.writtenBy(Catalog.byPath(Lakehouse.BRONZE_IOT), "live", ""))
          .contains(copy.toString());
      assertThat(
              IotJob.countedInFiles(
                      IotJob.Stage.BRONZE,
                      counts,
                      tables,
                      "live",
                      true,
                      new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8))
                  .get("bronze_accepted"))
          .isEqualTo(counts.get("bronze_accepted"));
    }
  }

  /** A run of the whole pipeline, and what it said on stderr. */
  private record Said(IotJob.Ran ran, String err) {}

  private static Said run(IotOptions options) throws Exception {
    PrintStream stderr = System.err;
    ByteArrayOutputStream said = new ByteArrayOutputStream();
    try {
      System.setErr(new PrintStream(said, true, StandardCharsets.UTF_8));
      IotJob.Ran ran = IotJob.run(IotJob.Stage.ALL, options);
      return new Said(ran, said.toString(StandardCharsets.UTF_8));
    } finally {
      System.setErr(stderr);
    }
  }

  private static long totalRecords(LakeTables tables, String path) {
    return Long.parseLong(
        tables
            .existing(Catalog.byPath(path))
            .orElseThrow()
            .currentSnapshot()
            .summary()
            .get("total-records"));
  }
}
