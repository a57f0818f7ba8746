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
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An IoT replay reports the rows and dead letters its committed files hold, not the runner's
 * counters (which Spark increments again for a recomputed or retried task).
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
    PrintStream stderr = System.err;
    ByteArrayOutputStream said = new ByteArrayOutputStream();
    IotJob.Ran ran;
    try {
      System.setErr(new PrintStream(said, true, StandardCharsets.UTF_8));
      ran = IotJob.run(IotJob.Stage.ALL, options);
    } finally {
      System.setErr(stderr);
    }
    // On the DirectRunner, counters and files agree.
    assertThat(said.toString(StandardCharsets.UTF_8)).doesNotContain("differ");

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
}
