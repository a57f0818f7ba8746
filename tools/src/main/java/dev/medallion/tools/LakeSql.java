package dev.medallion.tools;

import dev.medallion.core.Failures;
import dev.medallion.lakehouse.Catalog;
import dev.medallion.lakehouse.LakeTables;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * SQL over a lakehouse with embedded DuckDB: every table whose current Iceberg snapshot has files
 * is a view over exactly those files, named after it ({@code bronze_iot_events}, {@code
 * silver_sensor_readings}, {@code gold_device_minute}, …), plus {@code gold_device_minute_current}
 * {@code gold_site_minute_current} and {@code gold_sensor_minute_current}, which keep only the
 * newest pane of each window: what users read.
 */
public final class LakeSql implements AutoCloseable {
  public static final String DEVICE_MINUTE_CURRENT = "gold_device_minute_current";
  public static final String SITE_MINUTE_CURRENT = "gold_site_minute_current";
  public static final String SENSOR_MINUTE_CURRENT = "gold_sensor_minute_current";

  private final Connection connection;
  private final Map<String, Long> tables = new LinkedHashMap<>();
  private final Map<String, Catalog.Table> declared;

  /** Each table's committed files and its columns now, read from its catalog at one time. */
  private record State(Map<String, List<String>> files, Map<String, Catalog.Table> declared) {}

  /**
   * SQL over a lakehouse's committed tables; those of one on {@code s3://} are mirrored into the
   * object cache first (the whole of them: the checks that use this read every table).
   */
  public static LakeSql open(String lakehouse, Path cacheRoot) throws SQLException, IOException {
    try (LakeTables tables = LakeTables.open(LakeTables.Config.of(lakehouse))) {
      if (ObjectCache.isRemote(lakehouse)) {
        Path cache =
            cacheRoot != null
                ? cacheRoot
                : Path.of(System.getProperty("user.home"), ".cache", "medallion");
        return new LakeSql(
            new State(new ObjectCache(lakehouse, cache).mirrorAll(tables), declared(tables)));
      }
      return new LakeSql(new State(committedFiles(tables), declared(tables)));
    }
  }

  /** SQL over a local lakehouse's committed tables. */
  public LakeSql(String lakehouseRoot) throws SQLException, IOException {
    this(LakeTables.Config.of(lakehouseRoot));
  }

  /** SQL over a local lakehouse's committed tables, with its catalog flags. */
  public LakeSql(LakeTables.Config config) throws SQLException, IOException {
    this(state(config));
  }

  private static State state(LakeTables.Config config) throws IOException {
    try (LakeTables tables = LakeTables.open(config)) {
      return new State(committedFiles(tables), declared(tables));
    }
  }

  private static Map<String, Catalog.Table> declared(LakeTables tables) {
    Map<String, Catalog.Table> out = new LinkedHashMap<>();
    for (Catalog.Table t : Catalog.TABLES) {
      out.put(t.name(), tables.current(t));
    }
    return out;
  }

  private static Map<String, List<String>> committedFiles(LakeTables tables) {
    Map<String, List<String>> files = new LinkedHashMap<>();
    for (Catalog.Table t : Catalog.TABLES) {
      files.put(t.name(), tables.paths(t));
    }
    return files;
  }

  /** A view per table over the given files (a table without files has no view). */
  private LakeSql(State state) throws SQLException {
    Map<String, List<String>> files = state.files();
    declared = state.declared();
    connection = duckDb();
    execute("SET TimeZone = 'UTC'");
    for (Catalog.Table table : Catalog.TABLES) {
      List<String> list = files.getOrDefault(table.name(), List.of());
      if (!list.isEmpty()) {
        execute(
            "CREATE VIEW " + quote(table.name()) + " AS SELECT * FROM " + readParquet(list, table));
        tables.put(table.name(), scalarLong("SELECT count(*) FROM " + quote(table.name())));
      }
    }
    for (Map.Entry<String, String[]> v : CURRENT_VIEWS.entrySet()) {
      if (tables.containsKey(v.getValue()[0])) {
        execute("CREATE VIEW " + v.getKey() + " AS " + v.getValue()[1]);
      }
    }
  }

  /**
   * Views of what users read of the Gold tables: the newest row of each window, the one written
   * last (a restarted job numbers its panes from 0 again, so the pane index alone would let a stale
   * row win). Name → {base table, query}.
   */
  static final Map<String, String[]> CURRENT_VIEWS =
      Map.of(
          DEVICE_MINUTE_CURRENT,
          new String[] {"gold_device_minute", newestPane("gold_device_minute", "device_id")},
          SITE_MINUTE_CURRENT,
          new String[] {"gold_site_minute", newestPane("gold_site_minute", "site")},
          SENSOR_MINUTE_CURRENT,
          new String[] {
            "gold_sensor_minute", newestPane("gold_sensor_minute", "device_id, sensor_type")
          });

  private static String newestPane(String table, String key) {
    return "SELECT * EXCLUDE (pane_rank) FROM (SELECT *, row_number() OVER (PARTITION BY "
        + key
        + ", window_start ORDER BY written_at DESC NULLS LAST, pane_index DESC) AS pane_rank"
        + " FROM "
        + table
        + ") WHERE pane_rank = 1";
  }

  /**
   * An SQL identifier in double quotes, so that a column named like a keyword ({@code at}) or with
   * any other character is always one identifier.
   */
  static String quote(String identifier) {
    return '"' + identifier.replace("\"", "\"\"") + '"';
  }

  /**
   * {@code read_parquet} over a table's files with hive partitioning, the partition columns typed
   * as the table's schema declares them.
   */
  static String readParquet(List<String> files, Catalog.Table table) {
    StringBuilder types = new StringBuilder();
    for (String column : table.partitions()) {
      types
          .append(types.length() == 0 ? "" : ", ")
          .append('\'')
          .append(column)
          .append("': '")
          .append(duckType(table.schema().getField(column).getType()))
          .append('\'');
    }
    StringBuilder list = new StringBuilder();
    for (String f : files) {
      list.append(list.length() == 0 ? "" : ", ")
          .append('\'')
          .append(f.replace(File.separatorChar, '/').replace("'", "''"))
          .append('\'');
    }
    return "read_parquet(["
        + list
        + "], hive_partitioning = true, hive_types = {"
        + types
        + "}, union_by_name = true)";
  }

  /** The DuckDB type of a Beam field type, as DESCRIBE prints it. */
  static String duckType(org.apache.beam.sdk.schemas.Schema.FieldType t) {
    return switch (t.getTypeName()) {
      case STRING -> "VARCHAR";
      case DOUBLE -> "DOUBLE";
      case INT64 -> "BIGINT";
      case INT32 -> "INTEGER";
      case BOOLEAN -> "BOOLEAN";
      case DATETIME -> "TIMESTAMP WITH TIME ZONE";
      default -> t.getTypeName().name();
    };
  }

  /**
   * A table with the columns it has now in its catalog: its record's, and for the wide Gold tables
   * the sensor catalog's that runs declared.
   */
  public Catalog.Table declared(String table) {
    Catalog.Table t = declared.get(table);
    return t != null ? t : Catalog.table(table);
  }

  public boolean has(String view) {
    return tables.containsKey(view);
  }

  /** Row counts of the tables that exist. */
  public Map<String, Long> tableCounts() {
    return tables;
  }

  public String tableSummary() {
    List<String> parts = new ArrayList<>();
    tables.forEach((k, v) -> parts.add(k + "=" + v));
    return String.join(", ", parts);
  }

  public void execute(String sql) throws SQLException {
    try (Statement s = connection.createStatement()) {
      s.execute(sql);
    }
  }

  public long scalarLong(String sql) throws SQLException {
    try (Statement s = connection.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** All rows of a query, each as a list of its values. */
  public List<List<Object>> rows(String sql) throws SQLException {
    return rows(connection, sql);
  }

  /** The rows of a query on {@code connection}, each a list of its columns' JDBC objects. */
  public static List<List<Object>> rows(Connection connection, String sql) throws SQLException {
    List<List<Object>> out = new ArrayList<>();
    try (Statement s = connection.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        List<Object> row = new ArrayList<>(n);
        for (int i = 1; i <= n; i++) {
          row.add(rs.getObject(i));
        }
        out.add(row);
      }
    }
    return out;
  }

  /** A query's result as an aligned text table. */
  public String table(String sql) throws SQLException {
    List<String> header = new ArrayList<>();
    List<List<String>> rows = new ArrayList<>();
    try (Statement s = connection.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      ResultSetMetaData md = rs.getMetaData();
      int n = md.getColumnCount();
      for (int i = 1; i <= n; i++) {
        header.add(md.getColumnLabel(i));
      }
      while (rs.next()) {
        List<String> row = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
          row.add(String.valueOf(rs.getObject(i)));
        }
        rows.add(row);
      }
    }
    return TextTables.render(header, rows);
  }

  @Override
  public void close() throws SQLException {
    connection.close();
  }

  /**
   * Loads DuckDB's native library on a thread of its own, for a command that opens DuckDB after
   * reading the catalog ({@code query}, {@code validate}, {@code quality}). The first connection
   * unpacks the 57 MB library from its jar into the temporary directory and loads it, about 0.3 s;
   * started early, that overlaps the command's own work, and the later connection ({@link #duckDb})
   * finds it loaded or waits for the load under way. A failure is kept for that connection to
   * report. The command's exit waits for a load under way (at most {@link
   * #EARLY_LOAD_WAIT_MILLIS}): DuckDB marks its copy for deletion only once written. Not for a
   * pipeline's run, which a crash or {@code kill -9} may end at any time, and a JVM ended so
   * deletes nothing: each would leave the copy behind. Does nothing without DuckDB (the Spark job
   * jar).
   */
  static void loadDuckDbEarly() {
    if (!withDuckDb()) {
      return;
    }
    Thread loader =
        new Thread(
            () -> {
              try (Connection c = duckDb()) {
                // opened and closed: the library stays loaded
              } catch (Throwable e) {
                earlyLoadFailure = e;
              }
            },
            "load-duckdb");
    loader.setDaemon(true);
    loader.start();
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    loader.join(EARLY_LOAD_WAIT_MILLIS);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                },
                "wait-for-duckdb"));
  }

  /** How long a command's exit waits for DuckDB's library still being unpacked. */
  static final long EARLY_LOAD_WAIT_MILLIS = 10_000;

  /** Why the early load failed ({@link #loadDuckDbEarly}), for the command's connection to say. */
  private static volatile @Nullable Throwable earlyLoadFailure;

  /** Whether DuckDB is on the classpath: not in the Spark job jar (spark-job). */
  static boolean withDuckDb() {
    try {
      Class.forName("org.duckdb.DuckDBDriver", false, LakeSql.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }

  /**
   * An in-memory DuckDB. The Spark job jar (spark-job) leaves DuckDB out: there a command that
   * needs it says so, instead of JDBC's "No suitable driver".
   */
  static Connection duckDb() throws SQLException {
    try {
      Class.forName("org.duckdb.DuckDBDriver");
    } catch (ClassNotFoundException e) {
      throw new SQLException(
          "DuckDB is not in the Spark job jar, which carries only what the pipelines need:"
              + " run this command with ./medallion");
    }
    try {
      return DriverManager.getConnection("jdbc:duckdb:");
    } catch (LinkageError e) {
      // The library failed to load: the first attempt carries the reason (a temporary directory
      // that cannot be written or executed from); a later one meets "Could not initialize class",
      // which names the first only in passing.
      Throwable first = earlyLoadFailure != null ? earlyLoadFailure : e;
      throw new SQLException(
          "DuckDB's native library did not load: " + Failures.oneLine(first), first);
    }
  }
}
