package dev.medallion.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A file that changed after a run ingested it is said, not silently passed over. */
class ChangedInputTest {
  @TempDir Path tmp;

  @Test
  void aChangedUsersFileIsNamedAndSkippedAndReplacedWhenReingested() throws Exception {
    Path in = tmp.resolve("in");
    Files.createDirectories(in);
    Path a = in.resolve("a.ndjson");
    Files.copy(UserFeaturesEndToEndTest.USERS.resolve("raw/events-2026-11-26.ndjson"), a);
    Path lake = tmp.resolve("lake");
    String input = "--input=" + in + "/*.ndjson";
    assertThat(FaultsTest.medallion("users", input, "--lakehouse=" + lake).code()).isZero();
    long bronze = Runs.count(lake, "SELECT count(*) FROM bronze_user_events");

    Files.writeString(
        a,
        "{\"user_id\":\"u-9\",\"event_type\":\"click\",\"event_timestamp\":\"2026-11-26T10:00:00Z\"}\n",
        StandardOpenOption.APPEND);
    Files.copy(
        UserFeaturesEndToEndTest.USERS.resolve("raw/events-2026-11-27.ndjson"),
        in.resolve("b.ndjson"));
    FaultsTest.Outcome again = FaultsTest.medallion("users", input, "--lakehouse=" + lake);
    assertThat(again.code()).as(again.err()).isZero();
    assertThat(again.err())
        .contains("users: 1 --input file(s) changed since an earlier run ingested them")
        .contains("NOT read again")
        .contains(a.toString());
    assertThat(again.out()).contains("bronze : 1 new file(s)");
    long b = Files.readAllLines(in.resolve("b.ndjson")).size();
    assertThat(
            Runs.count(
                lake, "SELECT count(*) FROM bronze_user_events WHERE source_file LIKE '%a.ndjson'"))
        .as("a.ndjson's Bronze rows are what the first run read")
        .isEqualTo(bronze);
    assertThat(
            Runs.count(
                    lake,
                    "SELECT count(*) FROM bronze_user_events WHERE source_file LIKE '%b.ndjson'")
                + Runs.count(
                    lake,
                    "SELECT count(*) FROM quarantine_user_events"
                        + " WHERE stage = 'bronze' AND source_name LIKE '%b.ndjson'"))
        .isEqualTo(b);

    // With --reingest, a.ndjson as it is now replaces what Bronze held of it, in one commit; b
    // stays as it was, and Silver and Gold follow.
    Files.writeString(a, "not json at all\n", StandardOpenOption.APPEND);
    long bronzeB =
        Runs.count(
            lake, "SELECT count(*) FROM bronze_user_events WHERE source_file LIKE '%b.ndjson'");
    FaultsTest.Outcome reingest =
        FaultsTest.medallion("users", input, "--lakehouse=" + lake, "--reingest");
    assertThat(reingest.code()).as(reingest.err()).isZero();
    assertThat(reingest.err())
        .contains(
            "users: re-ingesting 1 changed --input file(s); their " + bronze + " Bronze row(s)")
        .doesNotContain("NOT read again");
    long linesA = Files.readAllLines(a).size();
    String ofA = " LIKE '%a.ndjson'";
    assertThat(Runs.count(lake, "SELECT count(*) FROM bronze_user_events WHERE source_file" + ofA))
        .isEqualTo(linesA - 1);
    assertThat(
            Runs.rows(
                lake,
                "SELECT reason, source FROM quarantine_user_events"
                    + " WHERE stage = 'bronze' AND source_name"
                    + ofA))
        .containsExactly(List.of("not_json", "file:" + a + "#" + linesA));
    assertThat(Runs.count(lake, "SELECT count(*) - count(DISTINCT source) FROM bronze_user_events"))
        .as("no line twice")
        .isZero();
    assertThat(
            Runs.count(
                lake, "SELECT count(*) FROM bronze_user_events WHERE source_file LIKE '%b.ndjson'"))
        .isEqualTo(bronzeB);
    assertThat(
            Runs.count(
                lake,
                "SELECT count(*) FROM silver_user_events WHERE user_id = 'u-9'"
                    + " AND event_type = 'click'"))
        .isEqualTo(1);
    assertThat(Runs.count(lake, "SELECT count(*) FROM gold_user_features WHERE user_id = 'u-9'"))
        .isEqualTo(1);
    // Once re-ingested, Bronze records the file's version now: a next run has nothing to say.
    try (dev.medallion.lakehouse.LakeTables tables =
        dev.medallion.lakehouse.LakeTables.open(
            dev.medallion.lakehouse.LakeTables.Config.of(lake.toString()))) {
      assertThat(
              tables.ingestedVersions(dev.medallion.lakehouse.Catalog.table("bronze_user_events")))
          .containsAllEntriesOf(dev.medallion.lakehouse.InputFiles.versions(a.toString()));
    }
  }

  @Test
  void aChangedIotFileIsNamedToo() throws Exception {
    Path in = tmp.resolve("events.ndjson");
    Files.copy(Runs.EVENTS, in);
    Path lake = tmp.resolve("lake");
    String[] run = {"run", "--input=" + in, "--devices=" + Runs.DEVICES, "--lakehouse=" + lake};
    assertThat(FaultsTest.medallion(run).code()).isZero();
    Files.writeString(in, "{\"one\":\"more\"}\n", StandardOpenOption.APPEND);
    FaultsTest.Outcome again = FaultsTest.medallion(run);
    assertThat(again.code()).isZero();
    assertThat(again.err())
        .contains("1 --input file(s) changed since an earlier run ingested them")
        .contains(in.toString())
        .contains("every --input file was already ingested");
  }

  @Test
  void aChangedIotFileIsReplacedWhenReingestedAndGoldIsThatOfTheFilesNow() throws Exception {
    List<String> events = Files.readAllLines(Runs.EVENTS);
    Path in = tmp.resolve("in");
    Files.createDirectories(in);
    Path a = in.resolve("a.ndjson");
    Files.write(a, events.subList(0, 200));
    Files.write(in.resolve("b.ndjson"), events.subList(200, events.size()));
    String input = "--input=" + in + "/*.ndjson";
    String devices = "--devices=" + Runs.DEVICES;
    Path lake = tmp.resolve("lake");
    assertThat(FaultsTest.medallion("run", input, devices, "--lakehouse=" + lake).code()).isZero();
    long bronzeA =
        Runs.count(lake, "SELECT count(*) FROM bronze_iot_events WHERE source_name = '" + a + "'");

    // a.ndjson corrected: fewer lines, and one that is not JSON
    Files.write(a, events.subList(0, 150));
    Files.writeString(a, "not json at all\n", StandardOpenOption.APPEND);
    FaultsTest.Outcome reingest =
        FaultsTest.medallion("run", input, devices, "--lakehouse=" + lake, "--reingest");
    assertThat(reingest.code()).as(reingest.err()).isZero();
    assertThat(reingest.err())
        .contains(
            "medallion run: re-ingesting 1 changed --input file(s); their "
                + bronzeA
                + " Bronze row(s)")
        .contains("Gold is recomputed: " + a)
        .doesNotContain("NOT read again");
    String ofA = " WHERE source_name = '" + a + "'";
    assertThat(
            Runs.count(lake, "SELECT count(*) FROM bronze_iot_events" + ofA)
                + Runs.count(
                    lake,
                    "SELECT count(*) FROM quarantine_iot_events" + ofA + " AND stage = 'bronze'"))
        .as("a.ndjson's lines now, each once")
        .isEqualTo(151);
    assertThat(
            Runs.rows(
                lake,
                "SELECT reason, source FROM quarantine_iot_events" + ofA + " AND stage = 'bronze'"))
        .contains(List.of("not_json", "file:" + a + "#151"));
    // validate: every line of the files now in Bronze once, Silver balanced, Gold recomputed
    FaultsTest.Outcome valid =
        FaultsTest.medallion("validate", input, devices, "--lakehouse=" + lake);
    assertThat(valid.code()).as(valid.out() + valid.err()).isZero();

    // and every layer equals that of a first run over the files as they are now
    Path fresh = tmp.resolve("fresh");
    assertThat(FaultsTest.medallion("run", input, devices, "--lakehouse=" + fresh).code()).isZero();
    for (String query :
        List.of(
            "SELECT * EXCLUDE (ingest_ts) FROM bronze_iot_events",
            "SELECT * EXCLUDE (ingest_ts) FROM silver_sensor_readings",
            "SELECT * EXCLUDE (ingest_ts) FROM silver_device_heartbeats",
            "SELECT stage, reason, source FROM quarantine_iot_events",
            "SELECT * EXCLUDE (written_at) FROM gold_device_minute_current",
            "SELECT * EXCLUDE (written_at) FROM gold_site_minute_current",
            "SELECT * EXCLUDE (written_at) FROM gold_sensor_minute_current")) {
      List<String> got = sorted(Runs.rows(lake, query));
      assertThat(got).as(query).isNotEmpty().isEqualTo(sorted(Runs.rows(fresh, query)));
    }
  }

  private static List<String> sorted(List<List<Object>> rows) {
    return rows.stream().map(String::valueOf).sorted().toList();
  }
}
