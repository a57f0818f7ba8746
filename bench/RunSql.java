import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs a SQL script on an in-memory DuckDB (its JDBC driver), the benchmark's anchor.
 *
 * <pre>java -cp duckdb_jdbc.jar:classes RunSql script.sql name=value ...</pre>
 *
 * <p>{@code ${name}} in the script becomes {@code value}. Statements end with a semicolon at the
 * end of a line. The rows of the last statement go to stdout, tab-separated; each statement's time
 * goes to stderr. A failing statement exits 1 with DuckDB's message.
 */
public final class RunSql {
  private static final Pattern VAR = Pattern.compile("\\$\\{([a-z_]+)}");

  public static void main(String[] args) throws Exception {
    if (args.length < 1) {
      System.err.println("usage: RunSql script.sql [name=value ...]");
      System.exit(2);
    }
    String script = Files.readString(Path.of(args[0]));
    for (int i = 1; i < args.length; i++) {
      int eq = args[i].indexOf('=');
      script = script.replace("${" + args[i].substring(0, eq) + "}", args[i].substring(eq + 1));
    }
    Matcher left = VAR.matcher(script);
    if (left.find()) {
      System.err.println("RunSql: no value for ${" + left.group(1) + "}");
      System.exit(2);
    }
    String[] statements = script.split(";\\s*(\\n|$)");
    try (Connection db = DriverManager.getConnection("jdbc:duckdb:");
        Statement st = db.createStatement()) {
      for (String sql : statements) {
        String body = sql.replaceAll("(?m)^\\s*--.*$", "").trim();
        if (body.isEmpty()) {
          continue;
        }
        long start = System.nanoTime();
        boolean rows;
        try {
          rows = st.execute(body);
        } catch (Exception e) {
          System.err.println("RunSql: " + e.getMessage() + "\n  in: " + firstLine(body));
          System.exit(1);
          return;
        }
        System.err.printf(
            Locale.ROOT, "%7.2f s  %s%n", (System.nanoTime() - start) / 1e9, firstLine(body));
        if (rows && sql == statements[statements.length - 1]) {
          print(st.getResultSet());
        } else if (rows) {
          st.getResultSet().close();
        }
      }
    }
  }

  private static void print(ResultSet rs) throws Exception {
    int n = rs.getMetaData().getColumnCount();
    while (rs.next()) {
      StringBuilder line = new StringBuilder();
      for (int i = 1; i <= n; i++) {
        line.append(i > 1 ? "\t" : "").append(rs.getString(i));
      }
      System.out.println(line);
    }
  }

  private static String firstLine(String sql) {
    String line = sql.lines().findFirst().orElse("");
    return line.length() > 90 ? line.substring(0, 90) + "…" : line;
  }
}
