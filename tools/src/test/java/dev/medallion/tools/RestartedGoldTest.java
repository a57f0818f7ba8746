package dev.medallion.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A restarted job numbers its panes from 0 again. The current-row views must show what the newest
 * job wrote for a window, even where an earlier job had reached a higher pane index (its late
 * panes).
 */
class RestartedGoldTest {
  @TempDir Path tmp;

  @Test
  void theRestartedRunsRowsWinOverTheFirstRunsLaterPanes() throws Exception {
    Path lake = tmp.resolve("lake");
    // The first run has late data within the allowed lateness, so some of its windows get a late
    // pane (index 1 or more); the restarted one, another seed and no late data, only pane 0.
    for (String[] run :
        List.of(new String[] {"first", "1", "0.3"}, new String[] {"second", "2", "0"})) {
      FaultsTest.Outcome o =
          FaultsTest.medallion(
              "run",
              "--lakehouse=" + lake,
              "--durationMinutes=6",
              "--seed=" + run[1],
              "--lateRate=" + run[2],
              "--runId=" + run[0]);
      assertThat(o.code()).as(o.err()).isZero();
    }
    String gold = lake.resolve("gold/device_minute") + "/**/part-";
    try (LakeSql sql = new LakeSql(lake.toString())) {
      String newestOf =
          "(SELECT device_id, window_start, reading_count, temperature_avg, pane_index FROM"
              + " (SELECT *, row_number() OVER (PARTITION BY device_id, window_start"
              + " ORDER BY pane_index DESC) AS rk FROM read_parquet('%s*.parquet'))"
              + " WHERE rk = 1)";
      String first = String.format(newestOf, gold + "first-");
      String second = String.format(newestOf, gold + "second-");
      // The case that matters exists: the first run got further in panes than the second.
      assertThat(
              sql.scalarLong(
                  "SELECT count(*) FROM "
                      + first
                      + " f JOIN "
                      + second
                      + " s USING (device_id, window_start) WHERE f.pane_index > s.pane_index"))
          .isPositive();
      List<List<Object>> expected =
          sql.rows(
              "SELECT device_id, window_start, reading_count, temperature_avg FROM "
                  + second
                  + " ORDER BY ALL");
      List<List<Object>> current =
          sql.rows(
              "SELECT c.device_id, c.window_start, c.reading_count, c.temperature_avg FROM "
                  + LakeSql.DEVICE_MINUTE_CURRENT
                  + " c JOIN "
                  + second
                  + " s USING (device_id, window_start) ORDER BY ALL");
      assertThat(current).isEqualTo(expected);
    }
  }
}
