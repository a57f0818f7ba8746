package dev.medallion.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.medallion.lakehouse.Catalog;
import dev.medallion.pipelines.IotJob;
import dev.medallion.pipelines.UserFeaturesJob;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SQL over the catalog's tables: the seed's Athena query, pruning made visible, output formats. */
class QueryTest {
  @TempDir static Path tmp;
  static Path lake;

  @BeforeAll
  static void buildLakehouse() throws Exception {
    lake = tmp.resolve("lake");
    Path in = tmp.resolve("in");
    Files.createDirectories(in);
    for (String folder : List.of("raw", "late")) {
      try (Stream<Path> files = Files.list(UserFeaturesEndToEndTest.USERS.resolve(folder))) {
        for (Path f : files.toList()) {
          Files.copy(f, in.resolve(f.getFileName()));
        }
      }
    }
    UserFeaturesJob.run(UserFeaturesEndToEndTest.options(lake, in, "query"));
    // The IoT tables too, so that every table of the catalog exists.
    assertThat(
            Runs.run(
                    IotJob.Stage.ALL,
                    Runs.options(lake, "--durationMinutes=4", "--generatorDevices=8"))
                .getState())
        .isEqualTo(org.apache.beam.sdk.PipelineResult.State.DONE);
  }

  @Test
  void everyCatalogTableAndViewCanBeQueried() throws Exception {
    List<String> names = new java.util.ArrayList<>();
    Catalog.TABLES.forEach(t -> names.add(t.name()));
    names.addAll(LakeSql.CURRENT_VIEWS.keySet());
    for (String name : names) {
      LakeQuery.Result all = query("SELECT * FROM " + name + " LIMIT 1");
      assertThat(all.rows()).as(name).hasSize(1);
      LakeQuery.Result count = query("SELECT count(*) FROM " + name);
      assertThat((Number) count.rows().get(0).get(0)).as(name).isNotEqualTo(0L);
    }
    // `at` is an SQL keyword: the dead letters' column must still be selectable by name.
    assertThat(query("SELECT \"at\", reason FROM quarantine_iot_events LIMIT 1").rows()).hasSize(1);
  }

  private static LakeQuery.Result query(String sql) throws Exception {
    try (LakeQuery q = new LakeQuery(lake.toString(), tmp.resolve("cache"))) {
      return q.run(sql);
    }
  }

  @Test
  void theSeedsAthenaQueryRunsAsWritten() throws Exception {
    LakeQuery.Result r =
        query(
            "SELECT user_id, click_count, purchase_count, last_event_type, last_event_timestamp"
                + " FROM gold_user_features ORDER BY last_event_timestamp DESC LIMIT 10;");
    assertThat(r.columns())
        .containsExactly(
            "user_id", "click_count", "purchase_count", "last_event_type", "last_event_timestamp");
    assertThat(r.rows()).hasSize(8);
    // newest first: u-00001's click at 2026-11-28T01:59:59.999+02:00 is not in it (a duplicate);
    // the late file's events on the 28th are.
    assertThat(r.rows().get(0).get(0)).isEqualTo(lastUser());
  }

  private static String lastUser() throws Exception {
    List<String> lines =
        Files.readAllLines(
            UserFeaturesEndToEndTest.USERS.resolve("expected/second-user_features.csv"));
    return lines.stream()
        .skip(1)
        .max(java.util.Comparator.comparing(l -> l.split(",")[1]))
        .orElseThrow()
        .split(",")[0];
  }

  @Test
  void aFilterOnThePartitionColumnReadsOnePartition() throws Exception {
    LakeQuery.Result r =
        query("SELECT count(*) AS n FROM silver_user_events WHERE event_date = '2026-11-26'");
    assertThat(r.stats().partitionsTotal()).isEqualTo(3);
    assertThat(r.stats().partitionsRead()).isEqualTo(1);
    assertThat(((Number) r.rows().get(0).get(0)).longValue()).isEqualTo(29);

    // Each bundle of the job writes its own file per partition: how many there are depends on
    // the runner's bundles, but every file of the other partitions is left unread.
    LakeQuery.Result all = query("SELECT count(*) AS n FROM silver_user_events");
    assertThat(all.stats().partitionsRead()).isEqualTo(3);
    assertThat(all.stats().filesRead()).isEqualTo(all.stats().filesTotal());
    assertThat(all.stats().toString())
        .isEqualTo(
            "read 3 of 3 partitions, %d of %d files",
            all.stats().filesTotal(), all.stats().filesTotal());
    assertThat(r.stats().filesRead()).isPositive().isLessThan(all.stats().filesTotal());

    LakeQuery.Result range =
        query("SELECT count(*) FROM silver_user_events WHERE event_date >= '2026-11-27'");
    assertThat(range.stats().partitionsRead()).isEqualTo(2);
    LakeQuery.Result none =
        query("SELECT count(*) FROM silver_user_events WHERE event_date = '1999-01-01'");
    assertThat(none.stats().partitionsRead()).isZero();
    assertThat(((Number) none.rows().get(0).get(0)).longValue()).isZero();
  }

  @Test
  void theNewestPaneViewsOfTheStreamingGoldAreQueryable() throws Exception {
    Path iot = tmp.resolve("iot");
    Runs.run(IotJob.Stage.ALL, Runs.options(iot, "--input=" + Runs.EVENTS));
    List<String> golden =
        Files.readAllLines(Runs.TESTDATA.resolve("iot/expected/device_minute.csv"));
    try (LakeQuery q = new LakeQuery(iot.toString(), tmp.resolve("cache"))) {
      LakeQuery.Result r =
          q.run(
              "SELECT count(*), sum(reading_count) FROM gold_device_minute_current WHERE date = '2026-11-29'");
      assertThat(((Number) r.rows().get(0).get(0)).longValue()).isEqualTo(golden.size() - 1);
      long readings = golden.stream().skip(1).mapToLong(l -> Long.parseLong(l.split(",")[5])).sum();
      assertThat(((Number) r.rows().get(0).get(1)).longValue()).isEqualTo(readings);
      assertThat(r.stats().partitionsRead()).isEqualTo(1);
    }
  }

  @Test
  void eachTableOfAJoinIsPrunedOnItsOwn() throws Exception {
    LakeQuery.Result r =
        query(
            "SELECT count(*) FROM silver_user_events s JOIN gold_user_features g USING (user_id)"
                + " WHERE s.event_date = '2026-11-26' AND g.as_of_date = '2026-11-28'");
    assertThat(r.stats().partitionsTotal()).isEqualTo(3 + 1);
    assertThat(r.stats().partitionsRead()).isEqualTo(1 + 1);
    assertThat(((Number) r.rows().get(0).get(0)).longValue()).isEqualTo(29);
  }

  @Test
  void csvAndJsonOutput() throws Exception {
    LakeQuery.Result r =
        query(
            "SELECT user_id, as_of_date FROM gold_user_features WHERE user_id = 'u-00001' ORDER BY as_of_date");
    assertThat(Query.render(r, "csv")).isEqualTo("user_id,as_of_date\nu-00001,2026-11-28\n");
    assertThat(Query.render(r, "json"))
        .isEqualTo("[{\"user_id\":\"u-00001\",\"as_of_date\":\"2026-11-28\"}]\n");
  }

  @Test
  void theCommandPrintsWhatItReadAndFailsCleanlyOnBadSql() {
    assertThat(
            Medallion.run(
                new String[] {
                  "query", "--lakehouse=" + lake, "SELECT 1 FROM silver_user_events LIMIT 1"
                }))
        .isZero();
    assertThat(Medallion.run(new String[] {"query", "--lakehouse=" + lake, "SELEC nonsense"}))
        .isEqualTo(1);
    assertThat(
            Medallion.run(
                new String[] {"query", "--lakehouse=" + tmp.resolve("no-such-lake"), "SELECT 1"}))
        .isNotZero();
  }
}
