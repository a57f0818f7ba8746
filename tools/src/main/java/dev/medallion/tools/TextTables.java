package dev.medallion.tools;

import java.util.List;
import picocli.CommandLine.Help;
import picocli.CommandLine.Help.Column;
import picocli.CommandLine.Help.TextTable;

/** A result as aligned text columns, laid out by picocli's own help table (no colours). */
final class TextTables {
  private TextTables() {}

  static String render(List<String> header, List<List<String>> rows) {
    Column[] columns = new Column[header.size()];
    for (int i = 0; i < columns.length; i++) {
      int width = header.get(i).length();
      for (List<String> row : rows) {
        width = Math.max(width, row.get(i).length());
      }
      // Two spaces between columns; the last one is as wide as its longest value.
      columns[i] = new Column(width + (i < columns.length - 1 ? 2 : 0), 0, Column.Overflow.WRAP);
    }
    TextTable table = TextTable.forColumns(Help.defaultColorScheme(Help.Ansi.OFF), columns);
    table.addRowValues(header.toArray(String[]::new));
    for (List<String> row : rows) {
      table.addRowValues(row.toArray(String[]::new));
    }
    return table.toString();
  }
}
