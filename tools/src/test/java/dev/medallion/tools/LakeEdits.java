package dev.medallion.tools;

import dev.medallion.lakehouse.Catalog;
import dev.medallion.lakehouse.LakeTables;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.expressions.Expression;

/**
 * Seeds defects into a lakehouse the way a buggy writer would: by Iceberg commits (a file dropped
 * into a table's folder without a commit is, rightly, never read).
 */
final class LakeEdits {
  private LakeEdits() {}

  /** Commits the removal of the rows matching {@code rows} (whole files) from a table. */
  static void delete(Path lake, String table, Expression rows) throws Exception {
    try (LakeTables tables = LakeTables.open(LakeTables.Config.of(lake.toString()))) {
      tables.table(Catalog.table(table)).newDelete().deleteFromRowFilter(rows).commit();
    }
  }

  /** Commits extra files into a table. */
  static void append(Path lake, String table, List<Path> files) throws Exception {
    try (LakeTables tables = LakeTables.open(LakeTables.Config.of(lake.toString()))) {
      tables.append(
          "defects",
          table,
          files.stream().map(f -> f.toAbsolutePath().toString()).toList(),
          Map.of());
    }
  }
}
