package dev.medallion.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.medallion.lakehouse.Catalog;
import dev.medallion.lakehouse.LakeTables;
import dev.medallion.lakehouse.Lakehouse;
import dev.medallion.lakehouse.S3Support;
import dev.medallion.pipelines.UserFeaturesJob;
import dev.medallion.pipelines.UsersOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.beam.sdk.io.FileSystems;
import org.apache.beam.sdk.io.fs.EmptyMatchTreatment;
import org.apache.beam.sdk.io.fs.MatchResult;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The batch pipeline, the quality job and a query against a real S3-compatible server: the
 * lakehouse root is {@code s3://lake/medallion}, credentials come from the standard AWS chain.
 */
class S3LakehouseTest {
  static S3MockServer s3;
  static final String LAKE = "s3://" + S3MockServer.BUCKET + "/medallion";

  @TempDir static Path tmp;

  @BeforeAll
  static void startServerAndRunThePipeline() throws Exception {
    s3 = S3MockServer.start();
    Path in = tmp.resolve("in");
    Files.createDirectories(in);
    try (Stream<Path> files = Files.list(UserFeaturesEndToEndTest.USERS.resolve("raw"))) {
      for (Path f : files.toList()) {
        Files.copy(f, in.resolve(f.getFileName()));
      }
    }
    UserFeaturesJob.run(options(in));
  }

  static UsersOptions options(Path in) {
    return options(in, "s3");
  }

  /** A run on the S3 lakehouse; each run needs a run id of its own. */
  static UsersOptions options(Path in, String runId) {
    List<String> args = new ArrayList<>(s3.flags());
    args.add("--lakehouse=" + LAKE);
    args.add("--input=" + in + "/*.ndjson");
    args.add("--runId=" + runId);
    PipelineOptionsFactory.register(UsersOptions.class);
    S3Support.register();
    UsersOptions o =
        PipelineOptionsFactory.fromArgs(args.toArray(String[]::new)).as(UsersOptions.class);
    FileSystems.setDefaultPipelineOptions(o);
    return o;
  }

  @AfterAll
  static void stop() throws Exception {
    if (s3 != null) {
      s3.close();
    }
  }

  @Test
  void theTablesAreOnS3AndGoldMatchesTheGoldenFile() throws Exception {
    try (LakeTables tables = LakeTables.open(LakeTables.Config.of(LAKE))) {
      assertThat(tables.paths(Catalog.byPath(Lakehouse.GOLD_USER_FEATURES)))
          .isNotEmpty()
          .allMatch(f -> f.startsWith(LAKE + "/gold/user_features/as_of_date=2026-11-27/"));
      assertThat(tables.paths(Catalog.byPath(Lakehouse.SILVER_USERS)))
          .extracting(f -> f.substring(0, f.lastIndexOf('/')))
          .containsOnly(
              LAKE + "/silver/user_events/event_date=2026-11-26",
              LAKE + "/silver/user_events/event_date=2026-11-27");
    }
    // The Iceberg metadata is on S3 beside the data.
    MatchResult metadata =
        FileSystems.match(LAKE + "/gold/user_features/metadata/*.json", EmptyMatchTreatment.ALLOW);
    assertThat(metadata.metadata()).isNotEmpty();
    // A rerun finds the ingested files in Bronze's commits and ingests nothing again.
    assertThat(UserFeaturesJob.run(options(tmp.resolve("in"), "s3-again")).newFiles()).isZero();

    List<String> expected =
        Files.readAllLines(
            UserFeaturesEndToEndTest.USERS.resolve("expected/first-user_features.csv"));
    try (LakeQuery q = new LakeQuery(LAKE, tmp.resolve("cache-gold"))) {
      LakeQuery.Result r =
          q.run("SELECT user_id, last_feature_hash FROM gold_user_features ORDER BY user_id");
      List<String> got = r.rows().stream().map(row -> row.get(0) + "," + row.get(1)).toList();
      List<String> want =
          expected.stream().skip(1).map(l -> l.split(",")[0] + "," + l.split(",")[10]).toList();
      assertThat(got).containsExactlyElementsOf(want);
    }
  }

  @Test
  void aQueryFetchesOnlyThePartitionsItNeedsAndReusesTheCache() throws Exception {
    Path cache = tmp.resolve("cache-query");
    String sql = "SELECT count(*) FROM silver_user_events WHERE event_date = '2026-11-26'";
    long files;
    try (LakeQuery q = new LakeQuery(LAKE, cache)) {
      LakeQuery.Result r = q.run(sql);
      assertThat(((Number) r.rows().get(0).get(0)).longValue()).isEqualTo(29);
      assertThat(r.stats().partitionsRead()).isEqualTo(1);
      assertThat(r.stats().partitionsTotal()).isEqualTo(2);
      // Only that partition's files (as many as the job's bundles wrote there).
      files = r.stats().filesRead();
      assertThat(files).isPositive().isLessThan(r.stats().filesTotal());
      assertThat(r.stats().objectsFetched()).isEqualTo(files);
      assertThat(r.stats().toString())
          .contains("fetched " + files + " object(s) from S3, reused 0 from the cache");
    }
    try (LakeQuery q = new LakeQuery(LAKE, cache)) {
      LakeQuery.Result again = q.run(sql);
      assertThat(again.stats().objectsFetched()).isZero();
      assertThat(again.stats().objectsReused()).isEqualTo(files);
    }
    List<String> args =
        new ArrayList<>(
            List.of("query", "--lakehouse=" + LAKE, "--cache=" + cache, "--format=csv"));
    args.addAll(s3.flags());
    args.add(
        "SELECT user_id, click_count, purchase_count, last_event_type, last_event_timestamp FROM gold_user_features ORDER BY last_event_timestamp DESC LIMIT 10;");
    assertThat(Medallion.run(args.toArray(String[]::new))).isZero();
  }

  @Test
  void theQualityJobRunsOnTheS3Silver() throws Exception {
    Quality.Report r =
        Quality.run(LAKE, tmp.resolve("cache-dq"), "silver_user_events", null, null, null);
    assertThat(r.passed()).isTrue();
    assertThat(r.rows()).isEqualTo(65);
    List<String> args =
        new ArrayList<>(
            List.of(
                "quality",
                "--lakehouse=" + LAKE,
                "--cache=" + tmp.resolve("cache-dq"),
                "--reports=" + tmp.resolve("reports")));
    args.addAll(s3.flags());
    assertThat(Medallion.run(args.toArray(String[]::new))).isZero();
  }

  @Test
  void anIotReplayOnS3IsIdempotentAndItsStagesReplaceTheirTables() throws Exception {
    String iot = "s3://" + S3MockServer.BUCKET + "/iot";
    List<String> common = new ArrayList<>(s3.flags());
    common.add("--lakehouse=" + iot);
    common.add("--devices=" + Runs.DEVICES);
    List<String> replay = new ArrayList<>(List.of("run", "--input=" + Runs.EVENTS));
    replay.addAll(common);
    FaultsTest.Outcome first = FaultsTest.medallion(replay.toArray(String[]::new));
    assertThat(first.code()).as(first.err()).isZero();
    long bronze = countOnS3(iot, "bronze_iot_events", "first");
    long lines = Files.readAllLines(Runs.EVENTS).size();
    assertThat(bronze + countOnS3(iot, "quarantine_iot_events WHERE stage = 'bronze'", "first"))
        .isEqualTo(lines);

    FaultsTest.Outcome again = FaultsTest.medallion(replay.toArray(String[]::new));
    assertThat(again.code()).as(again.err()).isZero();
    assertThat(again.err()).contains("already ingested");
    assertThat(countOnS3(iot, "bronze_iot_events", "again")).isEqualTo(bronze);

    long silver = countOnS3(iot, "silver_sensor_readings", "before");
    List<String> stage = new ArrayList<>(List.of("silver"));
    stage.addAll(common);
    FaultsTest.Outcome rerun = FaultsTest.medallion(stage.toArray(String[]::new));
    assertThat(rerun.code()).as(rerun.err()).isZero();
    assertThat(countOnS3(iot, "silver_sensor_readings", "after")).isEqualTo(silver);
  }

  private long countOnS3(String lake, String from, String cache) throws Exception {
    try (LakeQuery q = new LakeQuery(lake, tmp.resolve("cache-iot-" + cache))) {
      return ((Number) q.run("SELECT count(*) FROM " + from).rows().get(0).get(0)).longValue();
    }
  }
}
