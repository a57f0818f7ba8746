package dev.medallion.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Storage faults on an {@code s3://} lakehouse: the S3 server stopped while a run is going, and a
 * PUT the server refuses. Each ends with a clear one-line error and nothing committed: the run's
 * catalog holds no table.
 */
class S3FaultsTest {
  @TempDir Path tmp;

  /** How many tables the embedded catalog of an s3:// lakehouse holds. */
  private static long catalogTables(Path catalogs) throws Exception {
    List<Path> dbs;
    try (var files = Files.walk(catalogs)) {
      dbs = files.filter(f -> f.getFileName().toString().equals("iceberg.db")).toList();
    }
    long n = 0;
    for (Path db : dbs) {
      try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
          ResultSet rs = c.createStatement().executeQuery("SELECT count(*) FROM iceberg_tables")) {
        rs.next();
        n += rs.getLong(1);
      }
    }
    return n;
  }

  @Test
  void theServerStoppedMidRunIsOneLineAndNothingIsCommitted() throws Exception {
    Path in = tmp.resolve("in");
    Files.createDirectories(in);
    assertThat(
            FaultsTest.medallion(
                    "generate", "--kind=users", "--count=60000", "--users=5000", "--out=" + in)
                .code())
        .isZero();
    Path catalogs = tmp.resolve("catalogs");
    Path log = tmp.resolve("child.log");
    Process child;
    try (S3MockServer s3 = S3MockServer.start()) {
      List<String> args = new ArrayList<>(s3.flags());
      args.add(0, "users");
      args.add("--lakehouse=s3://" + S3MockServer.BUCKET + "/stopped");
      args.add("--input=" + in + "/*");
      child =
          ChildJvm.start(
              log,
              List.of(
                  "-Dmedallion.catalogs=" + catalogs,
                  "-Daws.accessKeyId=" + System.getProperty("aws.accessKeyId"),
                  "-Daws.secretAccessKey=" + System.getProperty("aws.secretAccessKey")),
              args.toArray(String[]::new));
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
      // The job is running once its progress line shows.
      while (child.isAlive()
          && System.nanoTime() < deadline
          && !Files.readString(log).contains("ev/s")) {
        Thread.sleep(100);
      }
      assertThat(child.isAlive()).as(Files.readString(log)).isTrue();
    } // the server stops here, mid-run
    assertThat(child.waitFor(5, TimeUnit.MINUTES)).isTrue();
    String err = Files.readString(log);
    assertThat(child.exitValue()).as(err).isEqualTo(1);
    List<String> lines =
        err.lines()
            .map(l -> l.substring(l.lastIndexOf('\r') + 1))
            .filter(l -> l.startsWith("medallion users:"))
            .toList();
    assertThat(lines).as(err).hasSize(1);
    assertThat(err).doesNotContain("\tat ");
    assertThat(catalogTables(catalogs)).as("nothing committed").isZero();
  }

  @Test
  void aPutTheServerRefusesIsOneLineAndNothingIsCommitted() throws Exception {
    Path catalogs = tmp.resolve("catalogs");
    try (S3MockServer s3 = S3MockServer.start()) {
      System.setProperty("medallion.catalogs", catalogs.toString());
      List<String> args = new ArrayList<>(s3.flags());
      args.add(0, "users");
      // No such bucket: the first object the run writes is refused.
      args.add("--lakehouse=s3://no-such-bucket/lake");
      args.add("--input=" + UserFeaturesEndToEndTest.USERS.resolve("raw") + "/*.ndjson");
      FaultsTest.Outcome run = FaultsTest.medallion(args.toArray(String[]::new));
      assertThat(run.code()).as(run.err()).isEqualTo(1);
      assertThat(run.err())
          .contains("cannot write to the lakehouse s3://no-such-bucket/lake")
          .contains("The specified bucket does not exist")
          .doesNotContain("\tat ");
      assertThat(run.err().lines().filter(l -> l.startsWith("medallion users:")).toList())
          .hasSize(1);
      assertThat(catalogTables(catalogs)).isZero();
    }
  }
}
