package dev.medallion.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The benchmark's anchor, {@code bench/users.sql} (DuckDB doing the user-features tables by hand),
 * gives the golden counts and Gold of {@code testdata/users} that {@code compute_expected.py}
 * worked out: the benchmark's "Gold equal to DuckDB's" check compares against a right answer. So do
 * its hand-written loops, {@code bench/UsersLoop.java} and {@code bench/IotLoop.java} (the IoT
 * replay's reference Gold in the benchmark), over {@code testdata/users} and {@code testdata/iot}.
 */
class BenchAnchorTest {
  static final Path ROOT = UserFeaturesEndToEndTest.USERS.getParent().getParent();

  @Test
  void theDuckDbScriptGivesTheGoldenCountsAndGold(@TempDir Path out) throws Exception {
    String script =
        Files.readString(ROOT.resolve("bench/users.sql"))
            .replace("${input}", UserFeaturesEndToEndTest.USERS.resolve("raw/*.ndjson").toString())
            .replace("${out}", out.toString())
            .replace("${threads}", "2");
    Map<String, Long> counts = new LinkedHashMap<>();
    try (Connection db = DriverManager.getConnection("jdbc:duckdb:");
        Statement st = db.createStatement()) {
      for (String sql : script.split(";\\s*(\\n|$)")) {
        String body = sql.replaceAll("(?m)^\\s*--.*$", "").trim();
        if (body.isEmpty()) {
          continue;
        }
        if (st.execute(body)) {
          try (ResultSet rs = st.getResultSet()) {
            if (rs.next()) {
              for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                counts.put(rs.getMetaData().getColumnName(i), rs.getLong(i));
              }
            }
          }
        }
      }
      assertGolden(counts, st, out);
    }
  }

  /**
   * The hand-written Java loop of {@code bench/UsersLoop.java} (the benchmark's practical limit),
   * compiled here as {@code bench/run.sh} compiles it, gives the golden counts and Gold too.
   */
  @Test
  void theJavaLoopGivesTheGoldenCountsAndGold(@TempDir Path tmp) throws Exception {
    Path out = tmp.resolve("out");
    try (java.net.URLClassLoader loader = compiledLoops(tmp)) {
      Class<?> loop = loader.loadClass("UsersLoop");
      List<?> files =
          (List<?>)
              loop.getDeclaredMethod("files", String.class)
                  .invoke(null, UserFeaturesEndToEndTest.USERS.resolve("raw/*.ndjson").toString());
      assertThat(files).hasSize(2);
      @SuppressWarnings("unchecked")
      Map<String, Long> counts =
          (Map<String, Long>)
              loop.getMethod("run", List.class, Path.class).invoke(null, files, out);
      try (Connection db = DriverManager.getConnection("jdbc:duckdb:");
          Statement st = db.createStatement()) {
        assertGolden(counts, st, out);
      }
    }
  }

  /**
   * The IoT replay's practical limit, {@code bench/IotLoop.java}, over {@code
   * testdata/iot/events.ndjson}: the counts and Gold (device and site minutes) that {@code
   * compute_expected.py} worked out, so the benchmark's check of the project's Gold against the
   * loop's compares against a right answer.
   */
  @Test
  void theIotLoopGivesTheGoldenCountsAndGold(@TempDir Path tmp) throws Exception {
    Path out = tmp.resolve("out");
    try (java.net.URLClassLoader loader = compiledLoops(tmp)) {
      @SuppressWarnings("unchecked")
      Map<String, Long> counts =
          (Map<String, Long>)
              loader
                  .loadClass("IotLoop")
                  .getMethod("run", Path.class, Path.class, Path.class)
                  .invoke(
                      null,
                      IotReplayEndToEndTest.EVENTS,
                      IotReplayEndToEndTest.TESTDATA.resolve("devices.csv"),
                      out);
      Map<String, Long> golden = new LinkedHashMap<>();
      new com.fasterxml.jackson.databind.ObjectMapper()
          .readTree(IotReplayEndToEndTest.EXPECTED.resolve("counts.json").toFile())
          .fields()
          .forEachRemaining(f -> golden.put(f.getKey(), f.getValue().asLong()));
      assertThat(counts).containsAllEntriesOf(golden);
      try (Connection db = DriverManager.getConnection("jdbc:duckdb:")) {
        IotReplayEndToEndTest.assertRowsEqualGolden(
            LakeSql.rows(
                db,
                "SELECT device_id, site, zone, window_start, window_end, reading_count,"
                    + " temperature_avg, temperature_min, temperature_max, humidity_avg,"
                    + " pressure_avg, heartbeat_count, battery_pct_min, rssi_dbm_avg, last_status"
                    + " FROM read_parquet('"
                    + out.resolve("gold/device_minute")
                    + "/**/*.parquet', hive_partitioning = false) ORDER BY device_id, window_start"),
            IotReplayEndToEndTest.EXPECTED.resolve("device_minute.csv"));
        IotReplayEndToEndTest.assertRowsEqualGolden(
            LakeSql.rows(
                db,
                "SELECT site, window_start, window_end, device_count, reading_count,"
                    + " temperature_avg, humidity_avg, pressure_avg, heartbeat_count,"
                    + " battery_pct_min FROM read_parquet('"
                    + out.resolve("gold/site_minute")
                    + "/**/*.parquet', hive_partitioning = false) ORDER BY site, window_start"),
            IotReplayEndToEndTest.EXPECTED.resolve("site_minute.csv"));
      }
    }
  }

  /** The benchmark's loops, compiled as {@code bench/run.sh} compiles them, in a class loader. */
  private static java.net.URLClassLoader compiledLoops(Path tmp) throws Exception {
    Path classes = Files.createDirectories(tmp.resolve("classes"));
    List<String> args =
        new ArrayList<>(
            List.of(
                "-nowarn", "-cp", System.getProperty("java.class.path"), "-d", classes.toString()));
    for (String loop : List.of("LoopTables", "UsersLoop", "IotLoop")) {
      args.add(ROOT.resolve("bench/" + loop + ".java").toString());
    }
    int compiled =
        javax.tools.ToolProvider.getSystemJavaCompiler()
            .run(null, null, null, args.toArray(String[]::new));
    assertThat(compiled)
        .as("javac bench/LoopTables.java bench/UsersLoop.java bench/IotLoop.java")
        .isZero();
    return new java.net.URLClassLoader(
        new java.net.URL[] {classes.toUri().toURL()}, BenchAnchorTest.class.getClassLoader());
  }

  /** The counts and the Gold table under {@code out} are the golden ones of testdata/users. */
  private static void assertGolden(Map<String, Long> counts, Statement st, Path out)
      throws Exception {
    List<String> expected =
        Files.readAllLines(
            UserFeaturesEndToEndTest.USERS.resolve("expected/first-user_features.csv"));
    Map<String, Long> golden = new LinkedHashMap<>();
    new com.fasterxml.jackson.databind.ObjectMapper()
        .readTree(UserFeaturesEndToEndTest.USERS.resolve("expected/first-counts.json").toFile())
        .fields()
        .forEachRemaining(f -> golden.put(f.getKey(), f.getValue().asLong()));
    golden.put("gold", (long) expected.size() - 1);
    assertThat(counts).containsExactlyInAnyOrderEntriesOf(golden);
    List<String> gold = new ArrayList<>();
    gold.add(expected.get(0));
    try (ResultSet rs =
        st.executeQuery(
            "SELECT user_id, strftime(last_event_timestamp, '%Y-%m-%dT%H:%M:%S.%gZ'),"
                + " last_event_type, click_count, purchase_count, view_count,"
                + " add_to_cart_count, event_count,"
                + " strftime(first_event_timestamp, '%Y-%m-%dT%H:%M:%S.%gZ'),"
                + " days_since_last_event, last_feature_hash, as_of_date"
                + " FROM read_parquet('"
                + out.resolve("gold")
                + "/**/*.parquet', hive_partitioning = true) ORDER BY user_id")) {
      while (rs.next()) {
        List<String> cells = new ArrayList<>();
        for (int i = 1; i <= 12; i++) {
          cells.add(rs.getString(i));
        }
        gold.add(String.join(",", cells));
      }
    }
    assertThat(gold).containsExactlyElementsOf(expected);
  }
}
