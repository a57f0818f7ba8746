package dev.medallion.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.medallion.core.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The summary {@code medallion run} prints after a replay: Gold's newest rows, read back with
 * DuckDB, equal the golden file's; and what a command says when DuckDB's library cannot load.
 */
class RunSummaryTest {
  @TempDir static Path tmp;
  static Path lake;
  static FaultsTest.Outcome run;

  @BeforeAll
  static void replay() {
    lake = tmp.resolve("lake");
    run =
        FaultsTest.medallion(
            "run", "--input=" + Runs.EVENTS, "--devices=" + Runs.DEVICES, "--lakehouse=" + lake);
    assertThat(run.code()).as(run.err()).isZero();
  }

  @Test
  void aReplaysSummaryShowsGoldsNewestRowsFromTheLakehouse() throws Exception {
    List<String> out = run.out().lines().toList();
    int header =
        out.indexOf("latest Gold rows (device_minute, newest pane of each device-minute):");
    assertThat(header).as(run.out()).isNotNegative();
    // The golden file's rows, newest minute first, then by device, as the summary orders them:
    // device, site, minute and reading count of each of the eight it shows.
    List<String[]> expected = new ArrayList<>();
    List<String> golden =
        Files.readAllLines(IotReplayEndToEndTest.EXPECTED.resolve("device_minute.csv"));
    for (String line : golden.subList(1, golden.size())) {
      String[] f = line.split(",");
      expected.add(new String[] {f[0], f[1], f[3].substring(0, 16) + "Z", f[5]});
    }
    expected.sort(
        Comparator.<String[], String>comparing(r -> r[2]).reversed().thenComparing(r -> r[0]));
    assertThat(out.size()).as(run.out()).isGreaterThan(header + 10);
    List<String[]> shown =
        out.subList(header + 2, header + 10).stream()
            .map(l -> Arrays.copyOf(l.trim().split("\\s+"), 4))
            .toList();
    assertThat(shown).usingRecursiveComparison().isEqualTo(expected.subList(0, 8));
    long bronze =
        Json.mapper()
            .readTree(IotReplayEndToEndTest.EXPECTED.resolve("counts.json").toFile())
            .get("bronze")
            .asLong();
    assertThat(out.get(header + 10))
        .startsWith("tables under " + lake + ": bronze_iot_events=" + bronze + ",");
  }

  /**
   * DuckDB unpacks its native library into the temporary directory; where it cannot, {@code
   * validate} (which loads the library on a thread of its own, beside its reading of the catalog)
   * says why in one line, with exit code 1: the reason the first attempt met, not the "Could not
   * initialize class" that a second attempt meets.
   */
  @Test
  void aCommandWhoseDuckDbCannotLoadSaysWhy() throws Exception {
    Path noTemp = tmp.resolve("no-such-dir");
    Path sqliteTemp = Files.createDirectories(tmp.resolve("sqlite-tmp"));
    Path log = tmp.resolve("validate.log");
    Process validate =
        ChildJvm.start(
            log,
            List.of("-Djava.io.tmpdir=" + noTemp, "-Dorg.sqlite.tmpdir=" + sqliteTemp),
            "validate",
            "--lakehouse=" + lake);
    assertThat(validate.waitFor(120, TimeUnit.SECONDS)).isTrue();
    String said = Files.readString(log);
    assertThat(validate.exitValue()).as(said).isEqualTo(1);
    assertThat(said.strip().lines())
        .singleElement()
        .asString()
        .startsWith("medallion validate: NoSuchFileException: " + noTemp.resolve("libduckdb_java"));
  }
}
