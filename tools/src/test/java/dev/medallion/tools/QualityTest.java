package dev.medallion.tools;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.medallion.core.Json;
import dev.medallion.pipelines.IotJob;
import dev.medallion.pipelines.UserFeaturesJob;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The data-quality job passes clean tables and fails exactly the checks a seeded defect breaks. */
class QualityTest {
  @TempDir Path tmp;

  private Path usersLake() throws Exception {
    Path lake = tmp.resolve("lake");
    Path in = tmp.resolve("in");
    Files.createDirectories(in);
    try (Stream<Path> files = Files.list(UserFeaturesEndToEndTest.USERS.resolve("raw"))) {
      for (Path f : files.toList()) {
        Files.copy(f, in.resolve(f.getFileName()));
      }
    }
    UserFeaturesJob.run(UserFeaturesEndToEndTest.options(lake, in, "q"));
    return lake;
  }

  private static List<String> failed(Quality.Report r) {
    return r.checks().stream()
        .filter(c -> !c.passed())
        .map(c -> c.name().replaceAll(" \\(.*", ""))
        .toList();
  }

  @Test
  void cleanSilverAndGoldPassAndTheCommandWritesBothReports() throws Exception {
    Path lake = usersLake();
    assertThat(failed(Quality.run(lake.toString(), "silver_user_events", null, null, null)))
        .isEmpty();
    assertThat(failed(Quality.run(lake.toString(), "gold_user_features", null, null, null)))
        .isEmpty();

    Path reports = tmp.resolve("reports");
    int code =
        Medallion.run(
            new String[] {
              "quality", "--lakehouse=" + lake, "--table=silver_user_events", "--reports=" + reports
            });
    assertThat(code).isZero();
    try (Stream<Path> files = Files.list(reports)) {
      List<String> names = files.map(f -> f.getFileName().toString()).sorted().toList();
      assertThat(names)
          .hasSize(2)
          .anyMatch(n -> n.endsWith(".json"))
          .anyMatch(n -> n.endsWith(".md"));
      Path json =
          reports.resolve(
              names.stream().filter(n -> n.endsWith(".json")).findFirst().orElseThrow());
      JsonNode report = Json.mapper().readTree(json.toFile());
      assertThat(report.get("passed").asBoolean()).isTrue();
      assertThat(report.get("rows").asLong()).isEqualTo(65);
      assertThat(report.get("source").asText())
          .isEqualTo(lake + "/" + dev.medallion.lakehouse.Lakehouse.SILVER_USERS);
      assertThat(java.time.Instant.parse(report.get("scanned_at").asText())).isNotNull();
      // Silver's nullable columns: the kept events have no null key, some lack a session.
      assertThat(report.get("null_counts").get("user_id").asLong()).isZero();
      assertThat(report.get("null_counts").has("session_id")).isTrue();
      assertThat(report.get("duplicate_groups").asLong()).isZero();
      // testdata/users/expected/first-counts.json: 3 Bronze dead letters, 9 quarantined in
      // Silver, 2 duplicates removed.
      long bronzeDead = 0;
      long quarantined = 0;
      long duplicates = 0;
      for (var e :
          (Iterable<java.util.Map.Entry<String, JsonNode>>)
              () -> report.get("removed_upstream").fields()) {
        if (e.getKey().startsWith("bronze ")) {
          bronzeDead += e.getValue().asLong();
        } else if (e.getKey().equals("silver duplicate")) {
          duplicates += e.getValue().asLong();
        } else {
          quarantined += e.getValue().asLong();
        }
      }
      assertThat(List.of(bronzeDead, quarantined, duplicates)).containsExactly(3L, 9L, 2L);
      String md =
          Files.readString(
              reports.resolve(
                  names.stream().filter(n -> n.endsWith(".md")).findFirst().orElseThrow()));
      assertThat(md)
          .contains("# Data quality: `silver_user_events`")
          .contains("| nulls in user_id")
          .contains("Scanned ")
          .contains("| silver duplicate | 2 |");
    }
  }

  @Test
  void seededDefectsFailTheRightChecksAndTheCommandExitsOne() throws Exception {
    Path lake = usersLake();
    Path partition = lake.resolve("silver/user_events/event_date=2026-11-26");
    String files = partition.toString().replace("'", "''") + "/*.parquet";
    try (LakeSql sql = new LakeSql(lake.toString())) {
      // 3 rows with a null user_id, and every row of the partition again (duplicates)
      sql.execute(
          "COPY (SELECT * EXCLUDE (event_date) REPLACE (NULL::VARCHAR AS user_id) FROM read_parquet('"
              + files
              + "') LIMIT 3) TO '"
              + partition.resolve("defect-nulls.parquet")
              + "' (FORMAT parquet)");
      sql.execute(
          "COPY (SELECT * EXCLUDE (event_date) FROM read_parquet('"
              + files
              + "')) TO '"
              + partition.resolve("defect-dupes.parquet")
              + "' (FORMAT parquet)");
    }
    LakeEdits.append(
        lake,
        "silver_user_events",
        List.of(
            partition.resolve("defect-nulls.parquet"), partition.resolve("defect-dupes.parquet")));
    Quality.Report r = Quality.run(lake.toString(), "silver_user_events", null, null, null);
    assertThat(failed(r)).containsExactlyInAnyOrder("nulls in user_id", "duplicates on");
    assertThat(
            Medallion.run(
                new String[] {"quality", "--lakehouse=" + lake, "--reports=" + tmp.resolve("r")}))
        .isEqualTo(1);

    // a file whose price is a string: the schema no longer conforms
    try (LakeSql sql = new LakeSql(lake.toString())) {
      sql.execute(
          "COPY (SELECT * EXCLUDE (event_date) REPLACE (CAST(price AS VARCHAR) AS price) FROM read_parquet('"
              + files
              + "') LIMIT 1) TO '"
              + partition.resolve("defect-type.parquet")
              + "' (FORMAT parquet)");
    }
    LakeEdits.append(lake, "silver_user_events", List.of(partition.resolve("defect-type.parquet")));
    assertThat(failed(Quality.run(lake.toString(), "silver_user_events", 100.0, 100.0, null)))
        .containsExactly("schema conforms");
  }

  @Test
  void theSameJobChecksTheStreamingSilverReadings() throws Exception {
    Path lake = tmp.resolve("iot");
    Runs.run(IotJob.Stage.ALL, Runs.options(lake, "--input=" + Runs.EVENTS));
    Quality.Report r = Quality.run(lake.toString(), "silver_sensor_readings", null, null, null);
    assertThat(failed(r)).isEmpty();
    assertThat(r.checks()).anyMatch(c -> c.name().startsWith("nulls in sensor_type"));
    assertThat(failed(Quality.run(lake.toString(), "silver_sensor_readings", null, 0.0, null)))
        .as("the fixture resends readings: Silver keeps them, Gold counts them once")
        .containsExactly("duplicates on");
  }
}
