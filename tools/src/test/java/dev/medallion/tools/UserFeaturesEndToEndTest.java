package dev.medallion.tools;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.medallion.core.Json;
import dev.medallion.pipelines.UserFeaturesJob;
import dev.medallion.pipelines.UsersOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The batch user-features pipeline on {@code testdata/users}: Gold equals the golden files that
 * {@code testdata/users/compute_expected.py} worked out independently; counts balance; a rerun
 * gives identical tables; a late file is ingested alone and updates Gold; the same on Spark.
 */
class UserFeaturesEndToEndTest {
  static final Path USERS = Runs.TESTDATA.resolve("users");

  @TempDir Path tmp;

  static UsersOptions options(Path lake, Path input, String runId, String... runner) {
    List<String> args = new ArrayList<>(List.of(runner));
    args.add("--lakehouse=" + lake);
    args.add("--input=" + input + "/*.ndjson");
    args.add("--runId=" + runId);
    PipelineOptionsFactory.register(UsersOptions.class);
    return PipelineOptionsFactory.fromArgs(args.toArray(String[]::new)).as(UsersOptions.class);
  }

  private Path inputWith(String... folders) throws Exception {
    Path in = tmp.resolve("in");
    Files.createDirectories(in);
    for (String folder : folders) {
      try (Stream<Path> files = Files.list(USERS.resolve(folder))) {
        for (Path f : files.toList()) {
          if (!Files.exists(in.resolve(f.getFileName()))) {
            Files.copy(f, in.resolve(f.getFileName()));
          }
        }
      }
    }
    return in;
  }

  static List<String> rows(LakeSql sql, String query) throws Exception {
    List<String> out = new ArrayList<>();
    for (List<Object> r : sql.rows(query)) {
      out.add(r.toString());
    }
    return out;
  }

  static final String GOLD =
      "SELECT user_id, strftime(last_event_timestamp AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%gZ'),"
          + " last_event_type, click_count, purchase_count, view_count, add_to_cart_count,"
          + " event_count, strftime(first_event_timestamp AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%gZ'),"
          + " days_since_last_event, last_feature_hash, as_of_date FROM gold_user_features"
          + " WHERE as_of_date = '%s' ORDER BY user_id";

  static void assertGoldEquals(Path lake, String scenario) throws Exception {
    List<String> expected =
        Files.readAllLines(USERS.resolve("expected/" + scenario + "-user_features.csv"));
    String asOf = expected.get(1).substring(expected.get(1).lastIndexOf(',') + 1);
    try (LakeSql sql = new LakeSql(lake.toString())) {
      List<String> got = new ArrayList<>();
      for (List<Object> r : sql.rows(GOLD.replace("'%s'", "'" + asOf + "'"))) {
        got.add(String.join(",", r.stream().map(String::valueOf).toList()));
      }
      assertThat(got).containsExactlyElementsOf(expected.subList(1, expected.size()));
    }
  }

  static void assertCounts(Path lake, String scenario) throws Exception {
    JsonNode want =
        Json.mapper().readTree(USERS.resolve("expected/" + scenario + "-counts.json").toFile());
    try (LakeSql sql = new LakeSql(lake.toString())) {
      long bronze = sql.scalarLong("SELECT count(*) FROM bronze_user_events");
      long dead =
          sql.scalarLong("SELECT count(*) FROM quarantine_user_events WHERE stage = 'bronze'");
      long silver = sql.scalarLong("SELECT count(*) FROM silver_user_events");
      long quarantined =
          sql.scalarLong(
              "SELECT count(*) FROM quarantine_user_events WHERE stage = 'silver' AND reason <> 'duplicate'");
      long duplicates =
          sql.scalarLong(
              "SELECT count(*) FROM quarantine_user_events WHERE stage = 'silver' AND reason = 'duplicate'");
      assertThat(bronze + dead)
          .as("raw lines = Bronze rows + Bronze dead letters")
          .isEqualTo(want.get("lines").asLong());
      assertThat(silver + quarantined + duplicates)
          .as("Bronze = Silver + quarantined + duplicates")
          .isEqualTo(bronze);
      assertThat(new long[] {bronze, dead, silver, quarantined, duplicates})
          .containsExactly(
              want.get("bronze").asLong(),
              want.get("bronze_dead").asLong(),
              want.get("silver").asLong(),
              want.get("quarantined").asLong(),
              want.get("duplicates").asLong());
    }
  }

  private static List<String> tables(Path lake) throws Exception {
    try (LakeSql sql = new LakeSql(lake.toString())) {
      List<String> all = new ArrayList<>();
      all.addAll(rows(sql, "SELECT * EXCLUDE (ingest_ts) FROM silver_user_events ORDER BY source"));
      all.addAll(rows(sql, "SELECT * FROM gold_user_features ORDER BY as_of_date, user_id"));
      all.addAll(
          rows(sql, "SELECT stage, reason, source FROM quarantine_user_events ORDER BY ALL"));
      all.addAll(rows(sql, "SELECT source, ingest_ts FROM bronze_user_events ORDER BY ALL"));
      return all;
    }
  }

  @Test
  void goldMatchesTheGoldenFileAndARerunChangesNothing() throws Exception {
    Path lake = tmp.resolve("lake");
    Path in = inputWith("raw");
    UserFeaturesJob.Summary first = UserFeaturesJob.run(options(lake, in, "r1"));
    assertThat(first.newFiles()).isEqualTo(2);
    assertGoldEquals(lake, "first");
    assertCounts(lake, "first");
    List<String> before = tables(lake);

    UserFeaturesJob.Summary again = UserFeaturesJob.run(options(lake, in, "r2"));
    assertThat(again.newFiles()).as("nothing new to ingest").isZero();
    assertThat(tables(lake)).isNotEmpty().containsExactlyElementsOf(before);
  }

  @Test
  void aFileOfOnlyBadLinesIsIngestedOnceToo() throws Exception {
    Path lake = tmp.resolve("lake");
    Path in = inputWith("raw");
    Files.writeString(in.resolve("zz-broken.ndjson"), "not json\n[1,2]\n{\"user_id\":\n");
    UserFeaturesJob.run(options(lake, in, "r1"));
    long dead;
    try (LakeSql sql = new LakeSql(lake.toString())) {
      dead = sql.scalarLong("SELECT count(*) FROM quarantine_user_events WHERE stage = 'bronze'");
      assertThat(
              sql.scalarLong(
                  "SELECT count(*) FROM quarantine_user_events WHERE stage = 'bronze'"
                      + " AND source LIKE '%zz-broken.ndjson%'"))
          .isEqualTo(3);
    }
    // Its lines are all dead letters, so Bronze got no row from it: it is still ingested.
    assertThat(UserFeaturesJob.run(options(lake, in, "r2")).newFiles()).isZero();
    try (LakeSql sql = new LakeSql(lake.toString())) {
      assertThat(
              sql.scalarLong("SELECT count(*) FROM quarantine_user_events WHERE stage = 'bronze'"))
          .isEqualTo(dead);
    }
  }

  @Test
  void aLateFileIsIngestedAloneAndUpdatesGold() throws Exception {
    Path lake = tmp.resolve("lake");
    UserFeaturesJob.run(options(lake, inputWith("raw"), "r1"));
    UserFeaturesJob.Summary second =
        UserFeaturesJob.run(options(lake, inputWith("raw", "late"), "r2"));
    assertThat(second.newFiles()).isEqualTo(1);
    try (LakeSql sql = new LakeSql(lake.toString())) {
      assertThat(sql.scalarLong("SELECT count(DISTINCT ingest_ts) FROM bronze_user_events"))
          .isEqualTo(2);
      assertThat(
              sql.scalarLong(
                  "SELECT count(*) FROM bronze_user_events WHERE source_file LIKE '%late%' OR source_file LIKE '%2026-11-28%'"))
          .as("only the new file's lines were ingested in the second run")
          .isEqualTo(10);
      assertThat(sql.scalarLong("SELECT count(DISTINCT as_of_date) FROM gold_user_features"))
          .isEqualTo(2);
    }
    assertGoldEquals(lake, "first");
    assertGoldEquals(lake, "second");
    assertCounts(lake, "second");
  }

  @Test
  void aRunThatDiedBeforeItsCommitLeavesNothingAndItsFilesAreIngestedOnce() throws Exception {
    Path lake = tmp.resolve("lake");
    UserFeaturesJob.run(options(lake, inputWith("raw"), "r1"));
    // A run "dead" began ingesting the late file, wrote part of its Bronze, and died before it
    // committed anything: its marker says started, its file is in Bronze's folder.
    Path in = inputWith("raw", "late");
    Files.writeString(lake.resolve("_runs/dead"), "started 2026-11-29T10:00:00Z\n");
    Path bronzeFile;
    try (Stream<Path> files = Files.walk(lake.resolve("bronze/user_events"))) {
      bronzeFile = files.filter(f -> f.toString().endsWith(".parquet")).findFirst().orElseThrow();
    }
    Files.copy(bronzeFile, bronzeFile.resolveSibling("part-dead-00000-of-00001.parquet"));

    UserFeaturesJob.Summary s = UserFeaturesJob.run(options(lake, in, "r2"));
    assertThat(s.newFiles()).isEqualTo(1);
    assertThat(Files.readString(lake.resolve("_runs/dead"))).startsWith("ended");
    assertThat(bronzeFile.resolveSibling("part-dead-00000-of-00001.parquet")).doesNotExist();
    assertCounts(lake, "second");
    assertGoldEquals(lake, "second");
  }

  @Test
  void sparkRunnerGivesTheSameGold() throws Exception {
    Path lake = tmp.resolve("lake");
    UserFeaturesJob.run(
        options(lake, inputWith("raw"), "spark", "--runner=SparkRunner", "--sparkMaster=local[2]"));
    assertGoldEquals(lake, "first");
    assertCounts(lake, "first");
    // The late file on Spark too: Silver from the earlier runs' Bronze rows and this run's.
    UserFeaturesJob.run(
        options(
            lake,
            inputWith("raw", "late"),
            "spark2",
            "--runner=SparkRunner",
            "--sparkMaster=local[2]"));
    assertGoldEquals(lake, "second");
    assertCounts(lake, "second");
  }
}
