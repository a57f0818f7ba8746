package dev.medallion.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.medallion.lakehouse.CrashPoints;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Real crashes: a {@code users} run in a JVM of its own is killed ({@code kill -9}) in the middle
 * of its job, or halts (as {@code kill -9} would) at a chosen point of its commits; a rerun must
 * then leave the same tables as one uninterrupted run: every input line in Bronze or its quarantine
 * exactly once, the same Silver, Gold and quarantine.
 */
class CrashTest {
  private static final List<String> TABLES =
      List.of(
          "SELECT source_file, line_number FROM bronze_user_events ORDER BY ALL",
          "SELECT user_id, event_type, event_timestamp, source_file, line_number"
              + " FROM silver_user_events ORDER BY ALL",
          "SELECT user_id, event_count, click_count, purchase_count, last_event_type,"
              + " last_feature_hash, as_of_date FROM gold_user_features ORDER BY ALL",
          "SELECT stage, reason, source FROM quarantine_user_events ORDER BY ALL");

  @TempDir static Path shared;
  private static Path input;
  private static List<String> uninterrupted;

  @BeforeAll
  static void anUninterruptedRun() throws Exception {
    input = shared.resolve("input");
    Files.createDirectories(input);
    try (Stream<Path> files = Files.list(UserFeaturesEndToEndTest.USERS.resolve("raw"))) {
      for (Path f : files.toList()) {
        Files.copy(f, input.resolve(f.getFileName()));
      }
    }
    Path lake = shared.resolve("reference");
    FaultsTest.Outcome run =
        FaultsTest.medallion("users", "--lakehouse=" + lake, "--input=" + input + "/*");
    assertThat(run.code()).as(run.err()).isZero();
    uninterrupted = tables(lake);
  }

  private static List<String> tables(Path lake) throws Exception {
    try (LakeSql sql = new LakeSql(lake.toString())) {
      List<String> out = new java.util.ArrayList<>();
      for (String q : TABLES) {
        out.add(sql.table(q));
      }
      return out;
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {CrashPoints.BEFORE_COMMIT, CrashPoints.MID_PUBLISH})
  void aRunKilledAtAnyPointThenRerunEqualsAnUninterruptedRun(String point, @TempDir Path tmp)
      throws Exception {
    Path lake = tmp.resolve("lake");
    Process child =
        ChildJvm.start(
            tmp.resolve("crashed.log"),
            List.of("-Dmedallion.crashAt=" + point),
            "users",
            "--lakehouse=" + lake,
            "--input=" + input + "/*",
            "--runId=crashed");
    assertThat(child.waitFor(3, TimeUnit.MINUTES)).isTrue();
    assertThat(child.exitValue())
        .as("halted at %s: %s", point, Files.readString(tmp.resolve("crashed.log")))
        .isEqualTo(137);

    FaultsTest.Outcome rerun =
        FaultsTest.medallion("users", "--lakehouse=" + lake, "--input=" + input + "/*");
    assertThat(rerun.code()).as(rerun.err()).isZero();
    assertThat(tables(lake)).isEqualTo(uninterrupted);
    assertThat(Files.readString(lake.resolve("_runs/crashed"))).startsWith("ended");
  }

  @Test
  void aUsersRunKilledDuringItsJobThenRerunHoldsEveryLineOnce(@TempDir Path tmp) throws Exception {
    Path in = tmp.resolve("in");
    Files.createDirectories(in);
    assertThat(
            FaultsTest.medallion(
                    "generate",
                    "--kind=users",
                    "--count=30000",
                    "--users=3000",
                    "--malformedRate=0.01",
                    "--out=" + in)
                .code())
        .isZero();
    Path lake = tmp.resolve("lake");
    Path log = tmp.resolve("killed.log");
    Process child =
        ChildJvm.start(
            log,
            List.of(),
            "users",
            "--lakehouse=" + lake,
            "--input=" + in + "/*",
            "--runId=killed");
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
    while (child.isAlive()
        && System.nanoTime() < deadline
        && !Files.readString(log).contains("ev/s")) {
      Thread.sleep(100);
    }
    assertThat(child.isAlive()).as("the job was running: %s", Files.readString(log)).isTrue();
    child.destroyForcibly().waitFor(); // SIGKILL, mid-job
    try (LakeSql sql = new LakeSql(lake.toString())) {
      assertThat(sql.tableCounts()).as("nothing of the killed run is committed").isEmpty();
    }

    FaultsTest.Outcome rerun =
        FaultsTest.medallion("users", "--lakehouse=" + lake, "--input=" + in + "/*");
    assertThat(rerun.code()).as(rerun.err()).isZero();
    assertThat(rerun.err())
        .contains("removed the uncommitted files of killed or failed run(s) [killed]");
    long lines = 0;
    try (Stream<Path> files = Files.list(in)) {
      for (Path f : files.toList()) {
        lines += Files.readAllLines(f).size();
      }
    }
    try (LakeSql sql = new LakeSql(lake.toString())) {
      long bronze = sql.scalarLong("SELECT count(*) FROM bronze_user_events");
      long dead =
          sql.scalarLong("SELECT count(*) FROM quarantine_user_events WHERE stage = 'bronze'");
      assertThat(bronze + dead).isEqualTo(lines);
      assertThat(
              sql.scalarLong(
                  "SELECT count(*) - count(DISTINCT (source_file, line_number)) FROM"
                      + " bronze_user_events"))
          .isZero();
    }
    try (Stream<Path> files = Files.walk(lake)) {
      assertThat(files.filter(f -> f.getFileName().toString().startsWith("part-killed-")))
          .as("the killed run's files are gone")
          .isEmpty();
    }
  }

  private static final String SILVER =
      "SELECT device_id, sensor_type, value, event_ts, source FROM silver_sensor_readings"
          + " ORDER BY ALL";

  @Test
  void aSilverStageKilledBetweenItsCommitsThenRerunEqualsAnUninterruptedOne(@TempDir Path tmp)
      throws Exception {
    Path lake = tmp.resolve("lake");
    String[] bronze = {
      "bronze", "--lakehouse=" + lake, "--input=" + Runs.EVENTS, "--devices=" + Runs.DEVICES
    };
    assertThat(FaultsTest.medallion(bronze).code()).isZero();
    String[] silver = {"silver", "--lakehouse=" + lake, "--devices=" + Runs.DEVICES};
    assertThat(FaultsTest.medallion(silver).code()).isZero();
    String uninterrupted;
    try (LakeSql sql = new LakeSql(lake.toString())) {
      uninterrupted = sql.table(SILVER);
    }

    Process child =
        ChildJvm.start(
            tmp.resolve("crashed.log"),
            List.of("-Dmedallion.crashAt=" + CrashPoints.MID_PUBLISH),
            "silver",
            "--lakehouse=" + lake,
            "--devices=" + Runs.DEVICES,
            "--runId=crashed");
    assertThat(child.waitFor(3, TimeUnit.MINUTES)).isTrue();
    assertThat(child.exitValue()).isEqualTo(137);
    // The halt came after the readings' replacement was committed, before the heartbeats'. A
    // reader sees each table whole: the readings as the new run wrote them.
    try (LakeSql sql = new LakeSql(lake.toString())) {
      assertThat(sql.table(SILVER)).isEqualTo(uninterrupted);
    }

    assertThat(FaultsTest.medallion(silver).code()).isZero();
    try (LakeSql sql = new LakeSql(lake.toString())) {
      assertThat(sql.table(SILVER)).isEqualTo(uninterrupted);
    }
    assertThat(Files.readString(lake.resolve("_runs/crashed"))).startsWith("ended");
  }
}
