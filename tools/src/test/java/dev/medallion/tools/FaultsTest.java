package dev.medallion.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.medallion.lakehouse.Lakehouse;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile input and faults through the real command line: a reused run id, a rerun and a killed
 * replay, a folder or an unreadable file as input, a truncated table file, a full disk. Each ends
 * with one clear line (no stack trace) and leaves nothing half-done behind.
 */
class FaultsTest {
  @TempDir Path tmp;

  /** Exit code and stderr of one command. */
  record Outcome(int code, String err, String out) {}

  static Outcome medallion(String... args) {
    PrintStream err = System.err;
    PrintStream out = System.out;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true));
    System.setOut(new PrintStream(printed, true));
    int code;
    try {
      code = Medallion.run(args);
    } finally {
      System.setErr(err);
      System.setOut(out);
    }
    return new Outcome(code, captured.toString(), printed.toString());
  }

  /** {@code medallion args} in a JVM of its own (to be killed, or to run beside this one). */
  private Process child(String log, String... args) throws Exception {
    return ChildJvm.start(tmp.resolve(log), List.of(), args);
  }

  private Path usersInput(String name) throws Exception {
    Path in = tmp.resolve(name);
    Files.createDirectories(in);
    try (Stream<Path> files = Files.list(UserFeaturesEndToEndTest.USERS.resolve("raw"))) {
      for (Path f : files.toList()) {
        Files.copy(f, in.resolve(f.getFileName()));
      }
    }
    return in;
  }

  @Test
  void aSecondWriterWhileARunIsGoingIsRefusedAndNothingIsLost() throws Exception {
    Path lake = tmp.resolve("lake");
    // A live run in another JVM: 4 minutes of event time at 24x, about 10 s.
    Process child =
        child(
            "live.log",
            "run",
            "--lakehouse=" + lake,
            "--durationMinutes=4",
            "--speedup=24",
            "--runId=live");
    Path lock = lake.resolve("_catalog/_lock.bronze");
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (child.isAlive()
        && System.nanoTime() < deadline
        && !(Files.exists(lock) && Files.readString(lock).contains("run live"))) {
      Thread.sleep(100);
    }
    assertThat(child.isAlive()).as("the live run holds the lakehouse").isTrue();

    Path a = usersInput("a");
    Outcome second =
        medallion("users", "--lakehouse=" + lake, "--input=" + a + "/*", "--runId=second");
    assertThat(second.code()).isEqualTo(1);
    assertThat(second.err())
        .contains("is being written by another run (run live")
        .doesNotContain("\tat ");
    assertThat(lake.resolve("_runs/second")).doesNotExist();
    assertThat(hasParquet(lake.resolve(Lakehouse.BRONZE_USERS))).isFalse();

    assertThat(child.waitFor(3, TimeUnit.MINUTES)).isTrue();
    assertThat(child.exitValue()).as(Files.readString(tmp.resolve("live.log"))).isZero();
    assertThat(Runs.count(lake, "SELECT count(*) FROM gold_device_minute")).isPositive();
    // Once the live run ended, the same users run goes through, and loses nothing.
    Outcome after =
        medallion("users", "--lakehouse=" + lake, "--input=" + a + "/*", "--runId=second");
    assertThat(after.code()).as(after.err()).isZero();
    long lines = 0;
    try (Stream<Path> files = Files.list(a)) {
      for (Path f : files.toList()) {
        lines += Files.readAllLines(f).size();
      }
    }
    long rows = Runs.count(lake, "SELECT count(*) FROM bronze_user_events");
    long dead =
        Runs.count(lake, "SELECT count(*) FROM quarantine_user_events WHERE stage = 'bronze'");
    assertThat(rows + dead).isEqualTo(lines);
  }

  @Test
  void theUncommittedFilesOfAKilledRunAreRemovedByTheNextRun() throws Exception {
    Path lake = tmp.resolve("lake");
    Path partition = lake.resolve("silver/user_events/event_date=2026-11-28");
    Files.createDirectories(partition);
    Files.writeString(partition.resolve("part-killed-00000-of-00001.parquet"), "half a file");
    Files.createDirectories(lake.resolve("_runs"));
    Files.writeString(
        lake.resolve("_runs/killed"),
        "started 2026-11-29T10:00:00Z on " + java.net.InetAddress.getLocalHost().getHostName());
    // A run another machine started: this machine's lock cannot prove it dead.
    Files.writeString(partition.resolve("part-elsewhere-00000-of-00001.parquet"), "being written");
    Files.writeString(
        lake.resolve("_runs/elsewhere"), "started 2026-11-29T10:00:00Z on some-other-machine");
    Outcome run = medallion("users", "--lakehouse=" + lake, "--input=" + usersInput("a") + "/*");
    assertThat(run.code()).as(run.err()).isZero();
    assertThat(run.err())
        .contains("removed the uncommitted files of killed or failed run(s) [killed]");
    assertThat(partition.resolve("part-killed-00000-of-00001.parquet")).doesNotExist();
    assertThat(Files.readString(lake.resolve("_runs/killed"))).startsWith("ended");
    assertThat(run.err()).contains("run elsewhere").contains("its files are left alone");
    assertThat(partition.resolve("part-elsewhere-00000-of-00001.parquet")).exists();
  }

  @Test
  void aCopiedLakehouseIsRefusedInsteadOfReadingTheOriginal() throws Exception {
    Path lake = tmp.resolve("lake");
    Outcome run = medallion("users", "--lakehouse=" + lake, "--input=" + usersInput("a") + "/*");
    assertThat(run.code()).as(run.err()).isZero();
    Path copy = tmp.resolve("copy");
    try (Stream<Path> files = Files.walk(lake)) {
      for (Path f : files.toList()) {
        Path to = copy.resolve(lake.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(to);
        } else {
          Files.copy(f, to);
        }
      }
    }
    Outcome query =
        medallion("query", "--lakehouse=" + copy, "SELECT count(*) FROM silver_user_events");
    assertThat(query.code()).isEqualTo(1);
    assertThat(query.err())
        .contains("was the lakehouse moved or copied?")
        .contains(lake.toString())
        .doesNotContain("\tat ");
  }

  @Test
  void aRunIdUsedBeforeIsRefusedAndNothingIsOverwritten() throws Exception {
    Path lake = tmp.resolve("lake");
    Path a = usersInput("a");
    Outcome first =
        medallion("users", "--lakehouse=" + lake, "--input=" + a + "/*", "--runId=daily");
    assertThat(first.code()).as(first.err()).isZero();
    long bronze = Runs.count(lake, "SELECT count(*) FROM bronze_user_events");
    assertThat(bronze).isPositive();

    Path b = tmp.resolve("b");
    Files.createDirectories(b);
    Files.writeString(
        b.resolve("more.ndjson"),
        "{\"user_id\":\"u-9\",\"event_type\":\"view\",\"event_timestamp\":\"2026-11-28T10:00:00Z\"}\n");
    Outcome again =
        medallion(
            "users", "--lakehouse=" + lake, "--input=" + a + "/*," + b + "/*", "--runId=daily");
    assertThat(again.code()).isEqualTo(2);
    assertThat(again.err()).contains("run id 'daily' was already used").doesNotContain("\tat ");
    assertThat(Runs.count(lake, "SELECT count(*) FROM bronze_user_events")).isEqualTo(bronze);

    Path iot = tmp.resolve("iot");
    Outcome run =
        medallion(
            "run",
            "--lakehouse=" + iot,
            "--devices=" + Runs.DEVICES,
            "--input=" + Runs.EVENTS,
            "--runId=daily");
    assertThat(run.code()).as(run.err()).isZero();
    long iotBronze = Runs.count(iot, "SELECT count(*) FROM bronze_iot_events");
    Path copy = tmp.resolve("copy.ndjson");
    Files.copy(Runs.EVENTS, copy);
    Outcome runAgain =
        medallion(
            "run",
            "--lakehouse=" + iot,
            "--devices=" + Runs.DEVICES,
            "--input=" + copy,
            "--runId=daily");
    assertThat(runAgain.code()).isEqualTo(2);
    assertThat(runAgain.err()).contains("run id 'daily' was already used");
    assertThat(Runs.count(iot, "SELECT count(*) FROM bronze_iot_events")).isEqualTo(iotBronze);
  }

  @Test
  void aReplayKilledMidwayThenRerunHoldsEveryLineOnce() throws Exception {
    Path lake = tmp.resolve("lake");
    Process child =
        child(
            "child.log",
            "run",
            "--lakehouse=" + lake,
            "--devices=" + Runs.DEVICES,
            "--input=" + Runs.EVENTS,
            "--runId=killed");
    Path bronze = lake.resolve(Lakehouse.BRONZE_IOT);
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
    while (!hasParquet(bronze) && child.isAlive() && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    assertThat(child.isAlive()).as("the replay was still running when Bronze had files").isTrue();
    child.destroyForcibly().waitFor(); // SIGKILL: no shutdown hook, no clean-up
    assertThat(Files.readString(lake.resolve("_runs/killed"))).startsWith("started");
    try (LakeSql sql = new LakeSql(lake.toString())) {
      assertThat(sql.has("bronze_iot_events"))
          .as("nothing of the killed run is committed")
          .isFalse();
    }

    Outcome rerun =
        medallion(
            "run", "--lakehouse=" + lake, "--devices=" + Runs.DEVICES, "--input=" + Runs.EVENTS);
    assertThat(rerun.code()).as(rerun.err()).isZero();
    assertThat(rerun.err())
        .contains("removed the uncommitted files of killed or failed run(s) [killed]");
    // Every line of the input exactly once, in Bronze or as a Bronze dead letter.
    long lines = Files.readAllLines(Runs.EVENTS).size();
    long rows = Runs.count(lake, "SELECT count(*) FROM bronze_iot_events");
    long dead =
        Runs.count(lake, "SELECT count(*) FROM quarantine_iot_events WHERE stage = 'bronze'");
    assertThat(rows + dead).isEqualTo(lines);
    assertThat(Runs.count(lake, "SELECT count(*) - count(DISTINCT source) FROM bronze_iot_events"))
        .isZero();
    assertThat(
            Validate.validate(lake.toString(), Runs.EVENTS.toString()).stream()
                .filter(c -> !c.passed())
                .toList())
        .isEmpty();

    // And a rerun of the same input over the same lakehouse changes nothing.
    Outcome third =
        medallion(
            "run", "--lakehouse=" + lake, "--devices=" + Runs.DEVICES, "--input=" + Runs.EVENTS);
    assertThat(third.code()).isZero();
    assertThat(third.err()).contains("already ingested");
    assertThat(Runs.count(lake, "SELECT count(*) FROM bronze_iot_events")).isEqualTo(rows);
  }

  private static boolean hasParquet(Path dir) throws Exception {
    if (!Files.isDirectory(dir)) {
      return false;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      return files.anyMatch(f -> f.toString().endsWith(".parquet"));
    }
  }

  @Test
  void silverAndGoldRerunAloneReplaceTheirTables() throws Exception {
    Path lake = tmp.resolve("lake");
    String[] common = {"--lakehouse=" + lake, "--devices=" + Runs.DEVICES};
    assertThat(medallion(concat("bronze", common, "--input=" + Runs.EVENTS)).code()).isZero();
    assertThat(medallion(concat("silver", common)).code()).isZero();
    assertThat(medallion(concat("gold", common)).code()).isZero();
    long silver = Runs.count(lake, "SELECT count(*) FROM silver_sensor_readings");
    long gold = Runs.count(lake, "SELECT count(*) FROM gold_device_minute");
    long quarantined = Runs.count(lake, "SELECT count(*) FROM quarantine_iot_events");
    assertThat(medallion(concat("silver", common)).code()).isZero();
    assertThat(medallion(concat("gold", common)).code()).isZero();
    assertThat(Runs.count(lake, "SELECT count(*) FROM silver_sensor_readings")).isEqualTo(silver);
    assertThat(Runs.count(lake, "SELECT count(*) FROM gold_device_minute")).isEqualTo(gold);
    assertThat(Runs.count(lake, "SELECT count(*) FROM quarantine_iot_events"))
        .isEqualTo(quarantined);
  }

  private static String[] concat(String command, String[] common, String... more) {
    List<String> all = new ArrayList<>(List.of(command));
    all.addAll(List.of(common));
    all.addAll(List.of(more));
    return all.toArray(String[]::new);
  }

  @Test
  void aFolderAsInputIsAClearErrorAndRecordsNothing() throws Exception {
    Path lake = tmp.resolve("lake");
    Path folder = usersInput("in");
    Outcome users = medallion("users", "--lakehouse=" + lake, "--input=" + folder);
    assertThat(users.code()).isEqualTo(2);
    assertThat(users.err()).contains("is a folder, not a file").contains(folder + "/*.ndjson");
    assertThat(hasParquet(lake)).isFalse();
    Outcome run =
        medallion("run", "--lakehouse=" + lake, "--devices=" + Runs.DEVICES, "--input=" + folder);
    assertThat(run.code()).isEqualTo(2);
    assertThat(run.err()).contains("is a folder, not a file");
  }

  @Test
  void anUnreadableInputFileIsOneLineAndLeavesNoBronze() throws Exception {
    // /proc/self/mem exists and lists, but reading it at offset 0 fails with an I/O error.
    assumeTrue(Files.exists(Path.of("/proc/self/mem")), "needs Linux /proc");
    Path lake = tmp.resolve("lake");
    Outcome users = medallion("users", "--lakehouse=" + lake, "--input=/proc/self/mem");
    assertThat(users.code()).isEqualTo(1);
    assertThat(users.err().strip().lines().filter(l -> !l.startsWith("SLF4J")).toList())
        .containsExactly(
            "medallion users: cannot read input file /proc/self/mem: Input/output error");
    assertThat(hasParquet(lake.resolve(Lakehouse.BRONZE_USERS))).isFalse();
  }

  @Test
  void aTruncatedBronzeFileNamesItselfAndBlocksNothingElse() throws Exception {
    Path lake = tmp.resolve("lake");
    Path in = usersInput("in");
    assertThat(medallion("users", "--lakehouse=" + lake, "--input=" + in + "/*").code()).isZero();
    Path file;
    try (Stream<Path> files = Files.walk(lake.resolve(Lakehouse.BRONZE_USERS))) {
      file = files.filter(f -> f.toString().endsWith(".parquet")).findFirst().orElseThrow();
    }
    byte[] bytes = Files.readAllBytes(file);
    Files.write(file, java.util.Arrays.copyOf(bytes, bytes.length / 3));
    Outcome broken = medallion("users", "--lakehouse=" + lake, "--input=" + in + "/*");
    assertThat(broken.code()).isEqualTo(1);
    assertThat(broken.err()).contains(file.toString()).contains("not readable Parquet");
    assertThat(broken.err()).doesNotContain("\tat ");
  }

  /**
   * A lakehouse on a 1 MiB tmpfs: the run fails with one line, nothing half-written stays (no
   * staging, no pending manifest, no Bronze files of the failed run), and once there is room the
   * rerun ingests everything. Mounting needs root (CI runs as root); elsewhere it is skipped.
   */
  @Test
  void aFullDiskIsOneLineAndTheRerunSucceeds() throws Exception {
    Path mount = tmp.resolve("small");
    Files.createDirectories(mount);
    assumeTrue(
        sh("mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", mount.toString()) == 0,
        "mounting a tmpfs needs root");
    try {
      Path in = tmp.resolve("in");
      Files.createDirectories(in);
      assertThat(
              medallion(
                      "generate",
                      "--kind=users",
                      "--count=20000",
                      "--users=2000",
                      "--malformedRate=0.01",
                      "--out=" + in)
                  .code())
          .isZero();
      Path lake = mount.resolve("lake");
      Outcome full = medallion("users", "--lakehouse=" + lake, "--input=" + in + "/*");
      assertThat(full.code()).as(full.err()).isEqualTo(1);
      assertThat(full.err()).contains("No space left on device").doesNotContain("\tat ");
      assertThat(hasParquet(lake.resolve(Lakehouse.BRONZE_USERS)))
          .as("the failed run's Bronze files are removed")
          .isFalse();
      assertThat(sh("mount", "-o", "remount,size=256m", mount.toString())).isZero();
      Outcome rerun = medallion("users", "--lakehouse=" + lake, "--input=" + in + "/*");
      assertThat(rerun.code()).as(rerun.err()).isZero();
      long lines = 0;
      try (Stream<Path> files = Files.list(in)) {
        for (Path f : files.toList()) {
          lines += Files.readAllLines(f).size();
        }
      }
      long rows = Runs.count(lake, "SELECT count(*) FROM bronze_user_events");
      long dead =
          Runs.count(lake, "SELECT count(*) FROM quarantine_user_events WHERE stage = 'bronze'");
      assertThat(rows + dead).isEqualTo(lines);
    } finally {
      sh("umount", mount.toString());
    }
  }

  private static int sh(String... command) throws Exception {
    Process p =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(new File("/dev/null"))
            .start();
    return p.waitFor(30, TimeUnit.SECONDS) ? p.exitValue() : -1;
  }
}
