package dev.medallion.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad command lines and bad registries end with a clear message and exit code 2, no trace. */
class MedallionCommandTest {
  @TempDir Path tmp;

  private static String[] stderrOf(String... args) {
    FaultsTest.Outcome o = FaultsTest.medallion(args);
    return new String[] {String.valueOf(o.code()), o.err()};
  }

  @Test
  void anUnknownCommandPrintsUsage() {
    String[] r = stderrOf("transmogrify");
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[1]).contains("unknown command 'transmogrify'").contains("medallion --help");
  }

  @Test
  void aMissingRegistryIsAClearError() {
    String[] r = stderrOf("run", "--devices=" + tmp.resolve("nope.csv"), "--lakehouse=" + tmp);
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[1]).contains("cannot read the device registry").doesNotContain("\tat ");
  }

  @Test
  void aMalformedRegistryNamesTheLine() throws Exception {
    Path csv = tmp.resolve("devices.csv");
    Files.writeString(
        csv,
        "device_id,site,zone,latitude,longitude,model,installed_at\ndev-1,berlin,z1,north,13.4,TH,2025\n");
    String[] r = stderrOf("run", "--devices=" + csv, "--lakehouse=" + tmp);
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[1]).contains(csv + ":2: latitude must be a number or empty, got 'north'");
  }

  @Test
  void aReplayNeedsItsRegistryNamedAndWritesNothingWithout() throws Exception {
    Path lake = tmp.resolve("lake");
    String[] r = stderrOf("run", "--input=" + Runs.EVENTS, "--lakehouse=" + lake, "--runId=first");
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[1]).contains("--devices is required").doesNotContain("\tat ");
    // The refused run claimed nothing: its run id is still free, no table was created.
    assertThat(lake.resolve("_runs/first")).doesNotExist();
    assertThat(lake.resolve("bronze/iot_events")).doesNotExist();
  }

  @Test
  void anUnknownFlagIsAClearError() {
    String[] r = stderrOf("run", "--speeedup=5");
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[1]).contains("speeedup");
  }

  @Test
  void anUnknownFlagOfValidateIsAClearError() {
    String[] r = stderrOf("validate", "--lakehouse=" + tmp, "--devicez=x.csv");
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[1])
        .contains("unknown flag --devicez (--help lists the flags)")
        .doesNotContain("S3Options");
  }

  @Test
  void replayOfNothingIsAnError() {
    String[] r =
        stderrOf(
            "run",
            "--input=" + tmp.resolve("none-*.ndjson"),
            "--lakehouse=" + tmp,
            "--devices=" + Runs.DEVICES);
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[1]).contains("--input matches no file");
  }

  @Test
  void everyCommandHasHelpAndAUsageErrorIsOneLine() {
    for (String command :
        java.util.List.of(
            "run",
            "bronze",
            "silver",
            "gold",
            "users",
            "validate",
            "query",
            "quality",
            "generate",
            "report",
            "compact",
            "kafka")) {
      assertThat(Medallion.commandLine().getSubcommands()).containsKey(command);
      assertThat(Medallion.run(new String[] {command, "--help"})).as(command).isZero();
    }
    String[] r = stderrOf("query");
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[1].strip().lines().filter(l -> !l.startsWith("SLF4J")).toList())
        .containsExactly(
            "medallion query: Missing required parameter: 'SQL' (see medallion query --help)");
  }

  @Test
  void usersWithoutInputSaysSoInsteadOfReadingTheSample() {
    String[] r = stderrOf("users", "--lakehouse=" + tmp.resolve("lake"));
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[1]).contains("--input is required");
  }
}
