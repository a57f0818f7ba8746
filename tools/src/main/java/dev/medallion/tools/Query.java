package dev.medallion.tools;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.medallion.core.Json;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code query}: runs SQL over the lakehouse's tables, found by name in its catalog, and prints the
 * result as a table, CSV or JSON, then (on stderr) how many partitions and files it read.
 */
@Command(
    name = "query",
    mixinStandardHelpOptions = true,
    description =
        "Run SQL over the lakehouse tables (names from its catalog) with embedded DuckDB.")
public class Query implements Callable<Integer> {
  @picocli.CommandLine.Mixin LakehouseArgs lake = new LakehouseArgs();

  /** Beam flags for the lakehouse's file system: --awsRegion, --endpoint, … */
  @picocli.CommandLine.Unmatched List<String> beamArgs = new java.util.ArrayList<>();

  @Option(
      names = "--format",
      defaultValue = "table",
      description = "table, csv or json (default ${DEFAULT-VALUE}).")
  String format;

  @Parameters(
      arity = "1",
      paramLabel = "SQL",
      description = "The query, e.g. \"SELECT * FROM gold_user_features LIMIT 5\".")
  String sql;

  @Override
  public Integer call() throws Exception {
    if (!List.of("table", "csv", "json").contains(format)) {
      throw new IllegalArgumentException("--format must be table, csv or json, got " + format);
    }
    LakeSql.loadDuckDbEarly();
    lake.configureFileSystems(beamArgs);
    LakeQuery.Result r;
    try (LakeQuery q = new LakeQuery(lake.lakehouse, lake.cache)) {
      r = q.run(sql);
    } catch (java.sql.SQLException e) {
      System.err.println("query failed: " + e.getMessage().strip());
      return 1;
    }
    System.out.print(render(r, format));
    System.err.println(r.rows().size() + " row(s); " + r.stats());
    return 0;
  }

  /** CSV (RFC 4180, by Commons CSV), JSON (by Jackson) or an aligned table (by picocli). */
  static String render(LakeQuery.Result r, String format) throws Exception {
    return switch (format) {
      case "csv" -> {
        StringBuilder out = new StringBuilder();
        try (CSVPrinter csv =
            new CSVPrinter(out, CSVFormat.RFC4180.builder().setRecordSeparator('\n').build())) {
          csv.printRecord(r.columns());
          for (List<Object> row : r.rows()) {
            csv.printRecord(row.stream().map(v -> v == null ? "" : String.valueOf(v)).toList());
          }
        }
        yield out.toString();
      }
      case "json" -> {
        ArrayNode rows = Json.mapper().createArrayNode();
        for (List<Object> row : r.rows()) {
          ObjectNode o = rows.addObject();
          for (int i = 0; i < row.size(); i++) {
            o.putPOJO(r.columns().get(i), jsonValue(row.get(i)));
          }
        }
        yield Json.mapper().writeValueAsString(rows) + "\n";
      }
      default ->
          TextTables.render(
              r.columns(),
              r.rows().stream().map(row -> row.stream().map(String::valueOf).toList()).toList());
    };
  }

  /** Numbers, booleans and null as JSON has them; anything else (dates, times) as text. */
  private static Object jsonValue(Object v) {
    return v == null || v instanceof Number || v instanceof Boolean ? v : String.valueOf(v);
  }
}
