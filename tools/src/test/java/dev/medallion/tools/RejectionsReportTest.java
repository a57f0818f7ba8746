package dev.medallion.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run's summary names every rejection reason with its count and an example that is the very
 * record rejected, hints at pretty-printed JSON, and exits 1 when more than {@code --maxRejectPct}
 * of what it read was rejected.
 */
class RejectionsReportTest {
  @TempDir Path tmp;

  private static final Pattern REASON = Pattern.compile("^  (bronze|silver|gold) +(\\w+) +(\\d+)$");
  private static final Pattern EXAMPLE = Pattern.compile("^ +e\\.g\\. file:(.+)#(\\d+): (.*)$");
  private static final Pattern TOTAL =
      Pattern.compile("^rejected: (\\d+) of (\\d+) records read \\(([\\d.]+) %\\)$");

  @Test
  void everyReasonIsCountedWithTheRecordItRejected() throws Exception {
    FaultsTest.Outcome o =
        FaultsTest.medallion(
            "run",
            "--input=" + Runs.EVENTS,
            "--devices=" + Runs.DEVICES,
            "--lakehouse=" + tmp.resolve("lake"));
    assertThat(o.code()).as(o.err()).isZero();
    List<String> lines = o.out().lines().toList();
    List<String> file = Files.readAllLines(Runs.EVENTS);
    long counted = 0;
    List<String> reasons = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      Matcher r = REASON.matcher(lines.get(i));
      if (!r.matches()) {
        continue;
      }
      reasons.add(r.group(1) + " " + r.group(2));
      if (!r.group(1).equals("gold")) {
        counted += Long.parseLong(r.group(3));
      }
      Matcher e = EXAMPLE.matcher(lines.get(i + 1));
      assertThat(e.matches()).as("an example follows " + lines.get(i)).isTrue();
      assertThat(Path.of(e.group(1))).isEqualTo(Runs.EVENTS);
      String record = file.get(Integer.parseInt(e.group(2)) - 1);
      assertThat(record).as("the example is line " + e.group(2)).startsWith(strip(e.group(3)));
    }
    // testdata/iot/events.ndjson's bad lines, one of each kind (see testdata/rules.py).
    assertThat(reasons)
        .contains(
            "bronze not_json",
            "bronze invalid_ts",
            "silver unknown_device",
            "silver out_of_range",
            "silver invalid_unit");
    Matcher total =
        TOTAL.matcher(lines.stream().filter(l -> l.startsWith("rejected:")).findFirst().orElse(""));
    assertThat(total.matches()).as(o.out()).isTrue();
    assertThat(Long.parseLong(total.group(1))).isEqualTo(counted);
    assertThat(Long.parseLong(total.group(2))).isEqualTo(file.size());
    assertThat(o.out()).doesNotContain("hint:");
  }

  /** The example is cut to 160 characters with an ellipsis. */
  private static String strip(String shown) {
    return shown.endsWith("…") ? shown.substring(0, shown.length() - 1) : shown;
  }

  @Test
  void prettyPrintedJsonIsReadAndReadAsNdjsonItIsNamedAndTheRunExitsOne() throws Exception {
    Path pretty = tmp.resolve("export.json");
    Files.writeString(
        pretty,
        "[\n  {\n    \"user_id\": \"u001\",\n    \"event_type\": \"click\",\n"
            + "    \"event_timestamp\": \"2026-11-28T10:00:00Z\"\n  }\n]\n");
    FaultsTest.Outcome read =
        FaultsTest.medallion("users", "--input=" + pretty, "--lakehouse=" + tmp.resolve("auto"));
    assertThat(read.code()).as(read.out() + read.err()).isZero();
    assertThat(read.out())
        .contains("1 lines = 1 rows + 0 dead letters")
        .contains("gold   : 1 user_features rows");
    // Read as NDJSON, as an older version did: every line rejected, and the hint.
    FaultsTest.Outcome o =
        FaultsTest.medallion(
            "users",
            "--input=" + pretty,
            "--inputFormat=ndjson",
            "--lakehouse=" + tmp.resolve("lake"));
    assertThat(o.code()).as(o.out() + o.err()).isEqualTo(1);
    assertThat(o.out())
        .contains("gold   : 0 user_features rows (empty: no event reached Silver)")
        .contains("hint: " + pretty + " looks like pretty-printed JSON")
        .contains("rejected: 7 of 7 records read (100.0 %)")
        .contains("e.g. file:" + pretty + "#1: [");
    assertThat(o.err())
        .contains("100.0 % of the records read were rejected, more than --maxRejectPct=50")
        .doesNotContain("\tat ");

    FaultsTest.Outcome allowed =
        FaultsTest.medallion(
            "users",
            "--input=" + pretty,
            "--inputFormat=ndjson",
            "--lakehouse=" + tmp.resolve("lake2"),
            "--maxRejectPct=100");
    assertThat(allowed.code()).as(allowed.err()).isZero();
  }

  @Test
  void theRejectedShareIsOfWhatSilverCheckedEarlierRunsRowsIncluded() throws Exception {
    // The same 5-document export under three names, one run each: Silver checks all of Bronze
    // every run, so the third sees 15 rows, 3 of them without a user (20 %), not 3 of 5 new lines.
    Path lake = tmp.resolve("lake");
    Path mapping = Runs.TESTDATA.resolve("mappings/glue-user-events.yaml");
    FaultsTest.Outcome o = null;
    for (String name : List.of("a.json", "b.json", "c.json")) {
      Path copy = tmp.resolve(name);
      Files.copy(Runs.TESTDATA.resolve("glue/user-events.json"), copy);
      o =
          FaultsTest.medallion(
              "users", "--input=" + copy, "--mapping=" + mapping, "--lakehouse=" + lake);
    }
    assertThat(o.code()).as(o.out() + o.err()).isZero();
    assertThat(o.out())
        .contains("15 bronze rows = 3 kept + 3 quarantined + 9 duplicates removed")
        .contains("rejected: 3 of 15 records read (20.0 %)");
  }

  @Test
  void anIotRunWithNothingKeptSaysGoldIsEmpty() throws Exception {
    Path pretty = tmp.resolve("readings.json");
    Files.writeString(
        pretty,
        "{\n  \"device_id\": \"dev-0001\",\n  \"sensor_type\": \"temperature\",\n"
            + "  \"value\": 21.5,\n  \"unit\": \"C\",\n  \"ts\": \"2026-11-29T10:00:00Z\"\n}\n");
    FaultsTest.Outcome o =
        FaultsTest.medallion(
            "run",
            "--input=" + pretty,
            "--inputFormat=ndjson",
            "--devices=" + Runs.DEVICES,
            "--lakehouse=" + tmp.resolve("lake"));
    assertThat(o.code()).isEqualTo(1);
    assertThat(o.out())
        .contains("Gold is empty: no record reached it (every record was rejected before")
        .contains("hint: " + pretty)
        .doesNotContain("Catalog Error");
  }
}
