package dev.medallion.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.medallion.pipelines.UserFeaturesJob;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Spark SQL, with Iceberg's Spark runtime and nothing of Medallion's Iceberg code, reads the tables
 * a run committed through the same embedded catalog, and sees what DuckDB sees.
 */
class SparkSqlReadsTheTablesTest {
  @TempDir Path tmp;

  @Test
  void sparkSqlSeesTheSameUserFeaturesAsDuckDb() throws Exception {
    Path in = tmp.resolve("in");
    Files.createDirectories(in);
    try (Stream<Path> files = Files.list(UserFeaturesEndToEndTest.USERS.resolve("raw"))) {
      for (Path f : files.toList()) {
        Files.copy(f, in.resolve(f.getFileName()));
      }
    }
    Path lake = tmp.resolve("lake");
    UserFeaturesJob.run(UserFeaturesEndToEndTest.options(lake, in, "spark-sql"));
    String query =
        "SELECT user_id, click_count, purchase_count, last_event_type, last_feature_hash,"
            + " CAST(last_event_timestamp AS STRING) FROM TABLE ORDER BY user_id";
    List<String> duck = new ArrayList<>();
    try (LakeSql sql = new LakeSql(lake.toString())) {
      sql.rows(
              query
                  .replace(
                      "CAST(last_event_timestamp AS STRING)",
                      "strftime(last_event_timestamp AT TIME ZONE 'UTC', '%Y-%m-%d %H:%M:%S.%g')")
                  .replace("TABLE", "gold_user_features"))
          .forEach(r -> duck.add(r.toString()));
    }
    assertThat(duck).isNotEmpty();

    List<List<String>> fromSpark =
        spark(
            lake,
            query
                .replace(
                    "CAST(last_event_timestamp AS STRING)",
                    "date_format(last_event_timestamp, 'yyyy-MM-dd HH:mm:ss.SSS')")
                .replace("TABLE", "medallion.gold.user_features"),
            "SELECT count(*) FROM medallion.silver.user_events");
    assertThat(fromSpark.get(0)).containsExactlyElementsOf(duck);
    assertThat(fromSpark.get(1)).containsExactly("[65]");
  }

  /**
   * The rows of each Spark SQL query, run in one JVM with Iceberg's Spark runtime as its Iceberg.
   */
  private List<List<String>> spark(Path lake, String... sql) throws Exception {
    List<String> classpath = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
      // Iceberg's Spark runtime bundles its own Iceberg (with Parquet relocated): the pipelines'
      // Iceberg jars would mix with it.
      if (!entry.contains("/org/apache/iceberg/iceberg-") || entry.contains("spark-runtime")) {
        classpath.add(entry);
      }
    }
    Path log = tmp.resolve("spark-" + System.nanoTime() + ".log");
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1",
                "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
                "--add-opens=java.base/java.nio=ALL-UNNAMED",
                "--add-opens=java.base/java.lang=ALL-UNNAMED",
                "--add-opens=java.base/java.util=ALL-UNNAMED",
                "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED",
                "-cp",
                String.join(java.io.File.pathSeparator, classpath),
                SparkSqlQuery.class.getName(),
                lake.toString()));
    command.addAll(List.of(sql));
    Process p =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    assertThat(p.waitFor(5, java.util.concurrent.TimeUnit.MINUTES)).isTrue();
    String out = Files.readString(log);
    assertThat(p.exitValue()).as(out).isZero();
    List<List<String>> rows = new ArrayList<>();
    for (int q = 0; q < sql.length; q++) {
      String prefix = "ROW " + q + " ";
      rows.add(
          out.lines()
              .filter(l -> l.startsWith(prefix))
              .map(l -> l.substring(prefix.length()))
              .toList());
    }
    return rows;
  }
}
