package dev.medallion.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.medallion.pipelines.IotJob;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.apache.iceberg.expressions.Expressions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The validation harness fails on a broken lakehouse, naming the check. */
class ValidateTest {
  @TempDir Path lake;

  @BeforeEach
  void replay() {
    Runs.run(IotJob.Stage.ALL, Runs.options(lake, "--input=" + Runs.EVENTS));
  }

  private static List<String> failed(List<Validate.Check> checks) {
    return checks.stream().filter(c -> !c.passed()).map(Validate.Check::name).toList();
  }

  @Test
  void aCleanReplayPassesAndTheCommandExitsZero() throws Exception {
    assertThat(failed(Validate.validate(lake.toString(), Runs.EVENTS.toString()))).isEmpty();
    assertThat(
            Medallion.run(
                new String[] {"validate", "--lakehouse=" + lake, "--input=" + Runs.EVENTS}))
        .isZero();
  }

  @Test
  void silverIsCheckedAgainstTheRegistryItWasEnrichedWith() throws Exception {
    assertThat(
            failed(
                Validate.validate(
                    lake.toString(), Runs.EVENTS.toString(), Runs.DEVICES.toString(), 50)))
        .isEmpty();
    // Another registry: dev-0001 moved to lisbon, dev-0002 gone.
    List<String> rows = new java.util.ArrayList<>();
    for (String line : Files.readAllLines(Runs.DEVICES)) {
      if (line.startsWith("dev-0001,")) {
        rows.add(line.replaceFirst("^dev-0001,[^,]*,", "dev-0001,lisbon,"));
      } else if (!line.startsWith("dev-0002,")) {
        rows.add(line);
      }
    }
    Path other = lake.resolve("other-devices.csv");
    Files.write(other, rows);
    List<Validate.Check> checks =
        Validate.validate(lake.toString(), Runs.EVENTS.toString(), other.toString(), 50);
    assertThat(failed(checks)).containsExactly("devices as the registry says (19 devices)");
    String detail = checks.stream().filter(c -> !c.passed()).findFirst().orElseThrow().detail();
    assertThat(detail).contains("dev-0001, berlin").contains("lisbon").contains("dev-0002");
  }

  @Test
  void aSourceWithMoreRejectedThanTheLimitFails() throws Exception {
    // testdata/iot/events.ndjson: 41 of its 407 lines are rejected (10.1 %).
    List<Validate.Check> checks =
        Validate.validate(lake.toString(), Runs.EVENTS.toString(), null, 10);
    assertThat(failed(checks)).containsExactly("each source's rejected share <= 10 %");
    assertThat(checks.stream().filter(c -> !c.passed()).findFirst().orElseThrow().detail())
        .contains(Runs.EVENTS + ": 41 of 407 lines (10.1 %)");
    assertThat(failed(Validate.validate(lake.toString(), Runs.EVENTS.toString(), null, 10.1)))
        .isEmpty();
  }

  @Test
  void aLostQuarantineBreaksTheSilverBalance() throws Exception {
    LakeEdits.delete(lake, "quarantine_iot_events", Expressions.equal("stage", "silver"));
    assertThat(failed(Validate.validate(lake.toString(), Runs.EVENTS.toString())))
        .containsExactly("bronze = silver + quarantined, per source");
  }

  /**
   * Two copies of a heartbeat that differ: Gold keeps the one with the smaller battery, and so does
   * the harness's own Gold (whose order by raw payload here would keep the other).
   */
  @Test
  void differingCopiesOfAHeartbeatAreKeptAsGoldKeepsThem() throws Exception {
    Path input = lake.resolve("in/events.ndjson");
    Files.createDirectories(input.getParent());
    Files.copy(Runs.EVENTS, input);
    Files.writeString(
        input,
        "{\"battery_pct\":90.0,\"device_id\":\"dev-0003\",\"rssi_dbm\":-50,\"status\":\"ok\","
            + "\"ts\":1795946402750}\n"
            + "{\"device_id\":\"dev-0003\",\"battery_pct\":20.0,\"rssi_dbm\":-50,\"status\":\"ok\","
            + "\"ts\":1795946402750}\n",
        StandardOpenOption.APPEND);
    Path otherLake = lake.resolve("other");
    Runs.run(IotJob.Stage.ALL, Runs.options(otherLake, "--input=" + input));
    assertThat(failed(Validate.validate(otherLake.toString(), input.toString()))).isEmpty();
  }

  @Test
  void anInputLineBronzeNeverSawIsReported() throws Exception {
    Path input = lake.resolve("in/events.ndjson");
    Files.createDirectories(input.getParent());
    Files.copy(Runs.EVENTS, input);
    Path otherLake = lake.resolve("other");
    Runs.run(IotJob.Stage.ALL, Runs.options(otherLake, "--input=" + input));
    Files.writeString(input, "{\"one\":\"more line\"}\n", java.nio.file.StandardOpenOption.APPEND);
    assertThat(failed(Validate.validate(otherLake.toString(), input.toString())))
        .containsExactly("every input line present");
  }

  @Test
  void goldThatDisagreesWithSilverFailsAndTheCommandExitsOne() throws Exception {
    // Drop the heartbeats: Gold still counts them, a recomputation from Silver does not.
    LakeEdits.delete(lake, "silver_device_heartbeats", Expressions.alwaysTrue());
    PrintStream stdout = System.out;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setOut(new PrintStream(captured, true));
    int code;
    try {
      code = Medallion.run(new String[] {"validate", "--lakehouse=" + lake});
    } finally {
      System.setOut(stdout);
    }
    assertThat(code).isEqualTo(1);
    assertThat(captured.toString())
        .contains("FAIL gold    device_minute equals a recomputation from Silver")
        .contains("FAIL silver  bronze = silver + quarantined, per source");
  }
}
