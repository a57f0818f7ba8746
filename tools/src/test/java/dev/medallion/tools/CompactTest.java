package dev.medallion.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.medallion.lakehouse.Catalog;
import dev.medallion.lakehouse.LakeTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Streaming commits are one per table and flush, not per file; {@code compact} merges a partition's
 * files into one, in one commit per table, and every table reads the same afterwards.
 */
class CompactTest {
  @TempDir Path tmp;

  private static final List<String> QUERIES =
      List.of(
          "SELECT count(*), count(DISTINCT source) FROM bronze_iot_events",
          "SELECT * EXCLUDE (written_at) FROM gold_device_minute ORDER BY ALL",
          "SELECT * FROM silver_sensor_readings ORDER BY ALL",
          "SELECT stage, reason, source FROM quarantine_iot_events ORDER BY ALL");

  private static List<String> read(Path lake) throws Exception {
    try (LakeSql sql = new LakeSql(lake.toString())) {
      List<String> out = new java.util.ArrayList<>();
      for (String q : QUERIES) {
        out.add(sql.table(q));
      }
      return out;
    }
  }

  @Test
  void aStreamCommitsOncePerFlushAndCompactMergesItsSmallFiles() throws Exception {
    Path lake = tmp.resolve("lake");
    FaultsTest.Outcome live =
        FaultsTest.medallion(
            "run",
            "--lakehouse=" + lake,
            "--durationMinutes=6",
            "--speedup=30",
            "--flushSeconds=3",
            "--numShards=3",
            "--runId=live");
    assertThat(live.code()).as(live.err()).isZero();
    Catalog.Table bronze = Catalog.table("bronze_iot_events");
    int filesBefore;
    try (LakeTables tables = LakeTables.open(LakeTables.Config.of(lake.toString()))) {
      Table t = tables.table(bronze);
      List<Snapshot> commits =
          Stream.of(t.snapshots())
              .flatMap(i -> java.util.stream.StreamSupport.stream(i.spliterator(), false))
              .filter(s -> "live".equals(s.summary().get(LakeTables.RUN_ID)))
              .toList();
      filesBefore = tables.files(bronze).size();
      assertThat(commits).as("commits of the stream").hasSizeGreaterThan(1);
      // Each flush's files of the shards that fired and of every partition go in by one commit:
      // every file belongs to one commit, and commits hold several files, not one each. (A flush
      // need not hold all three shards: each shard's pane fires on its own timer.)
      List<Integer> added =
          commits.stream().map(s -> Integer.parseInt(s.summary().get("added-data-files"))).toList();
      assertThat(added).allSatisfy(n -> assertThat(n).isPositive());
      assertThat(added.stream().mapToInt(Integer::intValue).sum()).isEqualTo(filesBefore);
      assertThat(added).anySatisfy(n -> assertThat(n).isGreaterThanOrEqualTo(3));
      assertThat(filesBefore).isGreaterThan(commits.size());
    }
    List<String> before = read(lake);

    FaultsTest.Outcome compact =
        FaultsTest.medallion("compact", "--lakehouse=" + lake, "--runId=compacted");
    assertThat(compact.code()).as(compact.err()).isZero();
    assertThat(compact.out()).contains("bronze_iot_events");
    try (LakeTables tables = LakeTables.open(LakeTables.Config.of(lake.toString()))) {
      int partitions =
          (int)
              tables.files(bronze).stream()
                  .map(f -> f.location().substring(0, f.location().lastIndexOf('/')))
                  .distinct()
                  .count();
      assertThat(tables.files(bronze)).hasSize(partitions).hasSizeLessThan(filesBefore);
      Snapshot last = tables.table(bronze).currentSnapshot();
      assertThat(last.operation()).isEqualTo("replace");
      assertThat(last.summary()).containsEntry(LakeTables.RUN_ID, "compacted");
    }
    assertThat(read(lake)).isEqualTo(before);
    // The replaced files stay for the older snapshots; nothing else is left over.
    try (Stream<Path> files = Files.walk(lake)) {
      assertThat(files.filter(f -> f.getFileName().toString().startsWith("part-compacted-")))
          .isNotEmpty();
    }
    FaultsTest.Outcome again =
        FaultsTest.medallion("compact", "--lakehouse=" + lake, "--runId=again");
    assertThat(again.code()).as(again.err()).isZero();
    assertThat(again.out()).contains("nothing to compact");
  }
}
