package dev.medallion.pipelines;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.medallion.common.Json;
import java.util.List;
import java.util.concurrent.Callable;
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

  static String render(LakeQuery.Result r, String format) throws Exception {
    StringBuilder out = new StringBuilder();
    switch (format) {
      case "csv" -> {
        out.append(String.join(",", r.columns().stream().map(Query::csv).toList())).append('\n');
        for (List<Object> row : r.rows()) {
          out.append(
                  String.join(
                      ",", row.stream().map(v -> v == null ? "" : csv(String.valueOf(v))).toList()))
              .append('\n');
        }
      }
      case "json" -> {
        ArrayNode rows = Json.mapper().createArrayNode();
        for (List<Object> row : r.rows()) {
          ObjectNode o = rows.addObject();
          for (int i = 0; i < row.size(); i++) {
            Object v = row.get(i);
            if (v == null) {
              o.putNull(r.columns().get(i));
            } else if (v instanceof Number n) {
              o.putPOJO(r.columns().get(i), n);
            } else if (v instanceof Boolean b) {
              o.put(r.columns().get(i), b);
            } else {
              o.put(r.columns().get(i), String.valueOf(v));
            }
          }
        }
        out.append(Json.mapper().writeValueAsString(rows)).append('\n');
      }
      default -> {
        int[] width = new int[r.columns().size()];
        for (int i = 0; i < width.length; i++) {
          width[i] = r.columns().get(i).length();
          for (List<Object> row : r.rows()) {
            width[i] = Math.max(width[i], String.valueOf(row.get(i)).length());
          }
        }
        appendRow(out, r.columns().stream().map(Object.class::cast).toList(), width);
        for (List<Object> row : r.rows()) {
          appendRow(out, row, width);
        }
      }
    }
    return out.toString();
  }

  private static void appendRow(StringBuilder sb, List<Object> row, int[] width) {
    for (int i = 0; i < row.size(); i++) {
      sb.append(i == 0 ? "" : "  ")
          .append(String.format("%-" + width[i] + "s", String.valueOf(row.get(i))));
    }
    sb.append('\n');
  }

  private static String csv(String v) {
    return v.contains(",") || v.contains("\"") || v.contains("\n")
        ? "\"" + v.replace("\"", "\"\"") + "\""
        : v;
  }
}
