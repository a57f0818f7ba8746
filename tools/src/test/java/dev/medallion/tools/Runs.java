package dev.medallion.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.medallion.lakehouse.Catalog;
import dev.medallion.lakehouse.LakeTables;
import dev.medallion.pipelines.IotJob;
import dev.medallion.pipelines.IotOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.options.PipelineOptionsFactory;

/** Runs a stage of the IoT pipeline the way {@code main} does, for tests. */
final class Runs {
  /** One number a query over a lakehouse's committed tables gives. */
  static long count(Path lake, String sql) throws Exception {
    try (LakeSql s = new LakeSql(lake.toString())) {
      return s.scalarLong(sql);
    }
  }

  /**
   * The rows committed now to each of {@code tables}, added up from their data files' record
   * counts: no SQL engine, so a test can poll it without taking a core from the stages it watches
   * (a count through {@link LakeSql} costs about 250 ms of CPU). 0 for a table not there yet.
   */
  static long committedRows(Path lake, String... tables) {
    long rows = 0;
    try (LakeTables lakeTables = LakeTables.open(LakeTables.Config.of(lake.toString()))) {
      for (String table : tables) {
        Catalog.Table def = Catalog.table(table);
        if (lakeTables.existing(def).isPresent()) {
          rows += lakeTables.files(def).stream().mapToLong(f -> f.recordCount()).sum();
        }
      }
    } catch (Exception notYet) {
      return rows;
    }
    return rows;
  }

  /** The rows a query over a lakehouse's committed tables gives. */
  static List<List<Object>> rows(Path lake, String sql) throws Exception {
    try (LakeSql s = new LakeSql(lake.toString())) {
      return s.rows(sql);
    }
  }

  static final Path TESTDATA = Path.of("..", "testdata").toAbsolutePath().normalize();
  static final Path EVENTS = TESTDATA.resolve("iot/events.ndjson");
  static final Path DEVICES = TESTDATA.resolve("devices.csv");

  private Runs() {}

  static IotOptions options(Path lake, String... extra) {
    List<String> args = new ArrayList<>(List.of(extra));
    args.add("--devices=" + DEVICES);
    args.add("--lakehouse=" + lake);
    PipelineOptionsFactory.register(IotOptions.class);
    return PipelineOptionsFactory.fromArgs(args.toArray(String[]::new)).as(IotOptions.class);
  }

  static PipelineResult run(IotJob.Stage stage, IotOptions options) {
    Pipeline p = Pipeline.create(options);
    IotJob.build(p, stage, options);
    PipelineResult result = p.run();
    assertThat(result.waitUntilFinish()).isEqualTo(PipelineResult.State.DONE);
    return result;
  }

  /** The current (newest-pane) Gold rows as text, ordered. */
  static List<String> currentGold(Path lake) throws Exception {
    try (LakeSql sql = new LakeSql(lake.toString())) {
      List<String> out = new ArrayList<>();
      for (List<Object> row :
          sql.rows(
              "SELECT * EXCLUDE (pane_index, pane_timing, written_at) FROM "
                  + LakeSql.DEVICE_MINUTE_CURRENT
                  + " ORDER BY device_id, window_start")) {
        out.add(row.toString());
      }
      for (List<Object> row :
          sql.rows(
              "SELECT * EXCLUDE (pane_index, pane_timing, written_at) FROM "
                  + LakeSql.SITE_MINUTE_CURRENT
                  + " ORDER BY site, window_start")) {
        out.add(row.toString());
      }
      return out;
    }
  }
}
