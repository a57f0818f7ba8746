package dev.medallion.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.medallion.pipelines.IotJob;
import dev.medallion.pipelines.IotOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The summary {@code medallion run} prints after a replay: Gold's newest rows, read back with
 * DuckDB (whose native library the command loads early, beside the run), equal the golden file's.
 */
class RunSummaryTest {
  @TempDir Path tmp;

  @Test
  void aReplaysSummaryShowsGoldsNewestRowsFromTheLakehouse() throws Exception {
    Path lake = tmp.resolve("lake");
    FaultsTest.Outcome run =
        FaultsTest.medallion(
            "run", "--input=" + Runs.EVENTS, "--devices=" + Runs.DEVICES, "--lakehouse=" + lake);
    assertThat(run.code()).as(run.err()).isZero();

    List<String> out = run.out().lines().toList();
    int header =
        out.indexOf("latest Gold rows (device_minute, newest pane of each device-minute):");
    assertThat(header).as(run.out()).isNotNegative();
    // The golden file's rows, newest minute first, then by device, as the summary orders them:
    // device, site, minute and reading count of each of the eight it shows.
    List<String[]> expected = new ArrayList<>();
    List<String> golden =
        Files.readAllLines(Runs.TESTDATA.resolve("iot/expected/device_minute.csv"));
    for (String line : golden.subList(1, golden.size())) {
      String[] f = line.split(",");
      expected.add(new String[] {f[0], f[1], f[3].substring(0, 16) + "Z", f[5]});
    }
    expected.sort(
        Comparator.<String[], String>comparing(r -> r[2]).reversed().thenComparing(r -> r[0]));
    List<String[]> shown =
        out.subList(header + 2, header + 10).stream()
            .map(l -> Arrays.copyOf(l.trim().split("\\s+"), 4))
            .toList();
    assertThat(shown).usingRecursiveComparison().isEqualTo(expected.subList(0, 8));
    assertThat(out.get(header + 10)).startsWith("tables under " + lake + ": bronze_iot_events=394");
  }

  @Test
  void onlyARunOfGoldIntoALocalLakehouseReadsGoldBack() {
    assertThat(Report.readsGoldBack(IotJob.Stage.ALL, options("--lakehouse=/tmp/lake"))).isTrue();
    assertThat(Report.readsGoldBack(IotJob.Stage.GOLD, options("--lakehouse=/tmp/lake"))).isTrue();
    assertThat(Report.readsGoldBack(IotJob.Stage.SILVER, options("--lakehouse=/tmp/lake")))
        .isFalse();
    assertThat(Report.readsGoldBack(IotJob.Stage.ALL, options("--lakehouse=s3://bucket/lake")))
        .isFalse();
  }

  private static IotOptions options(String... args) {
    return PipelineOptionsFactory.fromArgs(args).as(IotOptions.class);
  }
}
