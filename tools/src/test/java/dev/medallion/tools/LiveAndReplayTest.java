package dev.medallion.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.medallion.generator.EventGenerator;
import dev.medallion.generator.GeneratedLine;
import dev.medallion.pipelines.IotJob;
import dev.medallion.pipelines.IotOptions;
import java.io.BufferedWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The live run (generator source, event time accelerated, windows firing as the watermark moves)
 * and a replay of the very same lines from a file give the same Gold for on-time data, and so does
 * the live run on Spark, where it is a streaming job that ends by itself; and the late knob
 * produces both late-but-allowed updates and too-late dead letters, all accounted for.
 */
class LiveAndReplayTest {
  @TempDir Path tmp;

  @Test
  void liveRunAndReplayOfTheSameLinesGiveTheSameGold() throws Exception {
    String[] generator = {
      "--speedup=3000", "--durationMinutes=6", "--generatorDevices=8", "--seed=11",
      "--lateRate=0", "--malformedRate=0.02", "--duplicateRate=0.05", "--outOfRangeRate=0.02",
      "--unknownDeviceRate=0.02", "--flushSeconds=1"
    };
    Path live = tmp.resolve("live");
    IotOptions liveOptions = Runs.options(live, generator);
    Runs.run(IotJob.Stage.ALL, liveOptions);

    Path file = tmp.resolve("replay.ndjson");
    EventGenerator lines = new EventGenerator(IotJob.generatorConfig(liveOptions));
    try (BufferedWriter w = Files.newBufferedWriter(file)) {
      while (lines.hasNext()) {
        GeneratedLine l = lines.next();
        w.write(l.line());
        w.write('\n');
      }
    }
    Path replay = tmp.resolve("replay");
    Runs.run(IotJob.Stage.ALL, Runs.options(replay, "--input=" + file));

    List<String> liveGold = Runs.currentGold(live);
    assertThat(liveGold).hasSizeGreaterThan(40);
    assertThat(liveGold).containsExactlyElementsOf(Runs.currentGold(replay));
    assertThat(Validate.validate(live.toString(), null)).allMatch(Validate.Check::passed);

    // The same live run on Spark local[2], a streaming job there: it ends by itself once the
    // generator is done, with its last windows written and its report printed.
    Path spark = tmp.resolve("spark");
    List<String> args =
        new ArrayList<>(
            List.of(
                "run",
                "--runner=SparkRunner",
                "--sparkMaster=local[2]",
                "--devices=" + Runs.DEVICES,
                "--lakehouse=" + spark));
    args.addAll(List.of(generator));
    FaultsTest.Outcome onSpark = FaultsTest.medallion(args.toArray(String[]::new));
    assertThat(onSpark.code()).as(onSpark.err()).isZero();
    assertThat(onSpark.out()).contains("state: DONE").contains("gold   :");
    assertThat(Runs.currentGold(spark)).containsExactlyElementsOf(liveGold);
    // Every table complete: the last flushes' files committed too. (At the end of time Spark's
    // runner dropped the last files on their way to their commit: rows written, never committed.
    // That showed with lines arriving slowly, --speedup=60 --flushSeconds=5: 742 of 782 Bronze
    // rows; at this speed it did not, and the slow run costs this suite about 110 s more.)
    for (String table :
        List.of(
            "bronze_iot_events",
            "silver_sensor_readings",
            "silver_device_heartbeats",
            "quarantine_iot_events")) {
      String rows = "SELECT count(*) FROM " + table;
      assertThat(Runs.count(spark, rows)).as(table).isEqualTo(Runs.count(live, rows));
    }
    assertThat(Validate.validate(spark.toString(), null)).allMatch(Validate.Check::passed);
    assertThat(onSpark.err()).doesNotContain("counters differ");
  }

  @Test
  void lateEventsEitherUpdateTheirWindowOrBecomeTooLateDeadLetters() throws Exception {
    Path lake = tmp.resolve("late");
    Runs.run(
        IotJob.Stage.ALL,
        Runs.options(
            lake,
            // At 60x (the default) the lines come due a few at a time, so a window fires before
            // its late lines arrive even on a busy machine. Much faster, the DirectRunner reads
            // the generator in batches of what is due (ReadInBatches), which then span minutes
            // of event time, and a late line mostly travels with the on-time lines of its
            // window: one pane, no late one (at 3000x: none).
            "--speedup=60",
            "--durationMinutes=8",
            "--generatorDevices=6",
            "--seed=5",
            "--lateRate=0.1",
            "--lateDelaySeconds=150",
            "--malformedRate=0",
            "--duplicateRate=0",
            "--outOfRangeRate=0",
            "--unknownDeviceRate=0",
            "--flushSeconds=1"));
    try (LakeSql sql = new LakeSql(lake.toString())) {
      long tooLate =
          sql.scalarLong(
              "SELECT count(*) FROM quarantine_iot_events WHERE stage = 'gold' AND reason = 'too_late'");
      long latePanes =
          sql.scalarLong("SELECT count(*) FROM gold_device_minute WHERE pane_timing = 'LATE'");
      assertThat(tooLate).as("too-late dead letters").isPositive();
      assertThat(latePanes).as("late panes that replaced an on-time row").isPositive();
      Map<String, Long> tables = sql.tableCounts();
      long silver = tables.get("silver_sensor_readings") + tables.get("silver_device_heartbeats");
      assertThat(tables.get("bronze_iot_events")).isEqualTo(silver);
    }
    // Gold (newest panes) equals Silver minus the too-late records, recomputed in SQL.
    assertThat(Validate.validate(lake.toString(), null)).allMatch(Validate.Check::passed);
  }
}
