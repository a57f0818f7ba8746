package dev.medallion.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.medallion.lakehouse.S3Support;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bundled job jar on a real Spark standalone cluster: {@code runners-config/spark-cluster.sh}
 * starts a master and two workers on free ports, and {@code runners-config/spark-submit.sh} submits
 * the jar through Spark's own {@code SparkSubmit} in client mode, so the work runs in executors the
 * workers launch. The Gold each job wrote must equal the golden files: the batch user-features job
 * into a local lakehouse, and the IoT replay into one on the S3 test server (credentials to the
 * executors as Spark passes environment: {@code spark.executorEnv.*}), each of which is read by
 * executors on both workers. (The IoT replay into a local lakehouse, which these two cover between
 * them, is left to {@code IotReplayEndToEndTest} on {@code local[2]}: one cluster job less, about
 * 50 s of the build.)
 */
class SparkClusterTest {
  static final Path ROOT = Path.of(System.getProperty("medallion.root", "..")).toAbsolutePath();
  static final Path TESTDATA = ROOT.resolve("testdata");

  @TempDir static Path tmp;
  static Process cluster;
  static String master;
  static final StringBuilder clusterErr = new StringBuilder();

  @BeforeAll
  static void startTheCluster() throws Exception {
    cluster =
        new ProcessBuilder(
                "bash",
                ROOT.resolve("runners-config/spark-cluster.sh").toString(),
                "--port=0",
                "--webui-port=0",
                "--memory=1g",
                "--dir=" + tmp.resolve("cluster"))
            .start();
    CompletableFuture.runAsync(() -> drain(cluster.getErrorStream(), clusterErr));
    BufferedReader out =
        new BufferedReader(new InputStreamReader(cluster.getInputStream(), StandardCharsets.UTF_8));
    CompletableFuture<String> first = CompletableFuture.supplyAsync(() -> readLine(out));
    master = first.get(120, TimeUnit.SECONDS);
    assertThat(master).as("the cluster's master URL; its output: %s", clusterErr).isNotNull();
    assertThat(master).startsWith("spark://127.0.0.1:");
    for (int i = 0; i < 100 && !said("web UI http://"); i++) {
      Thread.sleep(100);
    }
    assertThat(clusterErr.toString()).contains("2 workers").contains("web UI http://");
  }

  @AfterAll
  static void stopTheCluster() throws Exception {
    if (cluster != null) {
      cluster.destroy(); // SIGTERM: the script stops the master and the workers
      assertThat(cluster.waitFor(60, TimeUnit.SECONDS)).as("the cluster stopped").isTrue();
    }
  }

  @Test
  void theUsersJobOnTheClusterWritesTheGoldenGold() throws Exception {
    Path lake = tmp.resolve("users");
    Submitted run =
        submit(
            Map.of(),
            "users",
            "--input=" + TESTDATA.resolve("users/raw") + "/*.ndjson",
            "--lakehouse=" + lake);
    assertThat(run.code()).as(run.err()).isZero();
    UserFeaturesEndToEndTest.assertGoldEquals(lake, "first");
    UserFeaturesEndToEndTest.assertCounts(lake, "first");
  }

  @Test
  void theIotReplayOnTheClusterWritesTheGoldenGoldToS3() throws Exception {
    try (S3MockServer s3 = S3MockServer.start()) {
      String lake = "s3://" + S3MockServer.BUCKET + "/cluster-iot";
      List<String> args =
          new ArrayList<>(
              List.of(
                  "--conf=spark.executorEnv.AWS_ACCESS_KEY_ID=medallion-test",
                  "--conf=spark.executorEnv.AWS_SECRET_ACCESS_KEY=medallion-test-secret",
                  "run",
                  "--input=" + TESTDATA.resolve("iot/events.ndjson"),
                  "--devices=" + TESTDATA.resolve("devices.csv"),
                  "--lakehouse=" + lake));
      args.addAll(s3.flags());
      Submitted run =
          submit(
              Map.of(
                  "AWS_ACCESS_KEY_ID", "medallion-test",
                  "AWS_SECRET_ACCESS_KEY", "medallion-test-secret",
                  // The driver's embedded catalog of the s3:// lakehouse: the one this test reads.
                  "MEDALLION_JAVA_OPTS", "-Dmedallion.catalogs=" + catalogs()),
              args.toArray(String[]::new));
      assertThat(run.code()).as(run.err()).isZero();
      S3Support.configure(s3.flags());
      try (LakeSql sql = LakeSql.open(lake, tmp.resolve("s3-cache"))) {
        IotReplayEndToEndTest.assertGoldenGoldAndBalancedCounts(sql);
      }
      assertThat(run.out()).contains("state: DONE").contains("bronze : 407 lines read");
      assertThat(executorsThatRanTasks()).as("executors of both workers ran tasks").hasSize(2);
    }
  }

  private static boolean said(String text) {
    synchronized (clusterErr) {
      return clusterErr.toString().contains(text);
    }
  }

  private static String catalogs() {
    String dir = System.getProperty("medallion.catalogs");
    assertThat(dir).as("set by S3MockServer.start").isNotNull();
    return dir;
  }

  record Submitted(int code, String out, String err) {}

  /** {@code runners-config/spark-submit.sh --master=<the cluster> args…}, with {@code env}. */
  static Submitted submit(Map<String, String> env, String... args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add("bash");
    command.add(ROOT.resolve("runners-config/spark-submit.sh").toString());
    command.add("--master=" + master);
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.environment().putAll(env);
    Process p = pb.start();
    StringBuilder out = new StringBuilder();
    StringBuilder err = new StringBuilder();
    CompletableFuture<Void> o = CompletableFuture.runAsync(() -> drain(p.getInputStream(), out));
    CompletableFuture<Void> e = CompletableFuture.runAsync(() -> drain(p.getErrorStream(), err));
    if (!p.waitFor(5, TimeUnit.MINUTES)) {
      p.destroyForcibly();
    }
    o.get(30, TimeUnit.SECONDS);
    e.get(30, TimeUnit.SECONDS);
    return new Submitted(p.exitValue(), out.toString(), err.toString());
  }

  /** The executor folders (one per worker and application) whose log shows a task that ran. */
  private static List<Path> executorsThatRanTasks() throws IOException {
    List<Path> ran = new ArrayList<>();
    try (Stream<Path> files = Files.walk(tmp.resolve("cluster"))) {
      for (Path log : files.filter(f -> f.getFileName().toString().equals("stderr")).toList()) {
        if (Files.readString(log).contains("Running task")) {
          ran.add(log.getParent().getParent().getParent().getFileName()); // worker-N
        }
      }
    }
    return ran.stream().distinct().toList();
  }

  private static String readLine(BufferedReader in) {
    try {
      return in.readLine();
    } catch (IOException e) {
      return null;
    }
  }

  private static void drain(java.io.InputStream in, StringBuilder into) {
    try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      for (String line = r.readLine(); line != null; line = r.readLine()) {
        synchronized (into) {
          into.append(line).append('\n');
        }
      }
    } catch (IOException e) {
      // the process ended
    }
  }
}
