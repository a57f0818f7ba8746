package dev.medallion.tools;

import dev.medallion.lakehouse.Catalog;
import dev.medallion.lakehouse.LakeTables;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.beam.sdk.io.fs.MatchResult;
import org.apache.beam.sdk.schemas.Schema;

/**
 * SQL over the catalog's tables with embedded DuckDB, on a local or an {@code s3://} lakehouse.
 *
 * <p>The files of each table are planned from its current Iceberg snapshot (never a file that is
 * uncommitted or replaced), grouped by the partition Iceberg's metadata records. Before a query
 * runs, Medallion works out which of those partitions it needs: DuckDB plans the query over a
 * skeleton of the table (one empty Parquet file per partition) and reports which it would read.
 * Only those partitions' files are then read: in place on a local lakehouse; on S3 their objects
 * are first copied into the local {@link ObjectCache}, because the embedded engine cannot read
 * {@code s3://} offline.
 */
public final class LakeQuery implements AutoCloseable {
  /** What a query read. */
  public record Stats(
      int partitionsRead,
      int partitionsTotal,
      long filesRead,
      int filesTotal,
      boolean remote,
      int objectsFetched,
      int objectsReused) {
    @Override
    public String toString() {
      return String.format(
              Locale.ROOT,
              "read %d of %d partitions, %d of %d files",
              partitionsRead,
              partitionsTotal,
              filesRead,
              filesTotal)
          + (remote
              ? String.format(
                  Locale.ROOT,
                  "; fetched %d object(s) from S3, reused %d from the cache",
                  objectsFetched,
                  objectsReused)
              : "");
    }
  }

  /** A query's columns, rows and what it read. */
  public record Result(List<String> columns, List<List<Object>> rows, Stats stats) {}

  private final String lakehouse;
  private final boolean remote;
  private final ObjectCache cache;
  private final Path skeleton;
  private final Connection connection;
  private final Map<String, Catalog.Table> tables = new LinkedHashMap<>();
  private final Map<String, Map<String, List<MatchResult.Metadata>>> committed =
      new LinkedHashMap<>();

  public LakeQuery(String lakehouse, Path cacheRoot) throws IOException, SQLException {
    this.lakehouse = lakehouse.replaceAll("/+$", "");
    this.remote = ObjectCache.isRemote(lakehouse);
    this.cache = new ObjectCache(this.lakehouse, cacheRoot);
    this.skeleton = Files.createTempDirectory("medallion-skeleton");
    this.connection = LakeSql.duckDb();
    execute("SET TimeZone = 'UTC'");
    // The files of each table's current snapshot, planned once: the whole query reads one state.
    try (LakeTables lake = LakeTables.open(LakeTables.Config.of(this.lakehouse))) {
      for (Catalog.Table t : Catalog.TABLES) {
        if (lake.existing(t).isPresent()) {
          tables.put(t.name(), lake.current(t));
          committed.put(t.name(), ObjectCache.partitions(lake, t));
        }
      }
    }
    if (tables.isEmpty()) {
      throw new IllegalArgumentException(
          "no tables in " + lakehouse + ": run a pipeline on this lakehouse first");
    }
  }

  public Result run(String sql) throws IOException, SQLException {
    Map<String, Map<String, List<MatchResult.Metadata>>> files = new LinkedHashMap<>();
    for (Catalog.Table t : tables.values()) {
      if (mentions(sql, t.name()) || currentViewOf(sql, t.name()) != null) {
        files.put(t.name(), committed.get(t.name()));
      }
    }
    // 1) plan on the skeleton: which partitions does the query read?
    Map<String, Set<String>> needed = new LinkedHashMap<>();
    for (String name : files.keySet()) {
      writeSkeleton(tables.get(name), files.get(name).keySet());
      createView(name, skeletonGlobs(name, files.get(name).keySet()));
    }
    for (String name : files.keySet()) {
      String current = currentViewOf(sql, name);
      if (current != null) {
        execute(
            "CREATE OR REPLACE VIEW " + current + " AS " + LakeSql.CURRENT_VIEWS.get(current)[1]);
      }
    }
    for (String name : files.keySet()) {
      // the other tables stay on their whole skeleton; this one's view is restored afterwards
      needed.put(name, neededPartitions(sql, name, files.get(name).keySet()));
    }
    // 2) read what is needed: in place, or fetched into the cache
    int partitionsTotal = 0;
    int partitionsRead = 0;
    int filesTotal = 0;
    long filesRead = 0;
    for (String name : files.keySet()) {
      Map<String, List<MatchResult.Metadata>> parts = files.get(name);
      partitionsTotal += parts.size();
      partitionsRead += needed.get(name).size();
      List<String> globs = new ArrayList<>();
      for (String partition : needed.get(name)) {
        filesRead += parts.get(partition).size();
        if (remote) {
          cache.fetch(tables.get(name).path(), partition, parts.get(partition));
        }
        for (MatchResult.Metadata md : parts.get(partition)) {
          globs.add(
              remote
                  ? sqlPath(
                      cache
                          .localDir(tables.get(name).path(), partition)
                          .resolve(md.resourceId().getFilename()))
                  : md.resourceId().toString());
        }
      }
      filesTotal += parts.values().stream().mapToInt(List::size).sum();
      if (globs.isEmpty()) {
        globs = skeletonGlobs(name, Set.of());
      }
      createView(name, globs);
    }
    for (Catalog.Table t : tables.values()) {
      if (!files.containsKey(t.name())) {
        execute("DROP VIEW IF EXISTS " + t.name());
      }
    }
    List<String> columns = new ArrayList<>();
    List<List<Object>> rows = new ArrayList<>();
    try (Statement s = connection.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      ResultSetMetaData md = rs.getMetaData();
      for (int i = 1; i <= md.getColumnCount(); i++) {
        columns.add(md.getColumnLabel(i));
      }
      while (rs.next()) {
        List<Object> row = new ArrayList<>();
        for (int i = 1; i <= columns.size(); i++) {
          row.add(rs.getObject(i));
        }
        rows.add(row);
      }
    }
    return new Result(
        columns,
        rows,
        new Stats(
            partitionsRead,
            partitionsTotal,
            filesRead,
            filesTotal,
            remote,
            cache.fetched(),
            cache.reused()));
  }

  private Path skeletonDir(String table) {
    return skeleton.resolve(table);
  }

  private static boolean mentions(String sql, String name) {
    return Pattern.compile("\\b" + name + "\\b", Pattern.CASE_INSENSITIVE).matcher(sql).find();
  }

  /** The newest-pane view of {@code table} that the query mentions, or null. */
  private static String currentViewOf(String sql, String table) {
    for (Map.Entry<String, String[]> v : LakeSql.CURRENT_VIEWS.entrySet()) {
      if (v.getValue()[0].equals(table) && mentions(sql, v.getKey())) {
        return v.getKey();
      }
    }
    return null;
  }

  /** One empty Parquet file with the declared schema per partition folder (and one outside). */
  private void writeSkeleton(Catalog.Table t, Set<String> partitions)
      throws IOException, SQLException {
    StringBuilder select = new StringBuilder("SELECT ");
    List<Schema.Field> fields = t.schema().getFields();
    for (int i = 0; i < fields.size(); i++) {
      select
          .append(i == 0 ? "" : ", ")
          .append("CAST(NULL AS ")
          .append(LakeSql.duckType(fields.get(i).getType()))
          .append(") AS ")
          .append(LakeSql.quote(fields.get(i).getName()));
    }
    select.append(" WHERE false");
    Path empty = emptyFile(t);
    Files.createDirectories(empty.getParent());
    execute("COPY (" + select + ") TO '" + sqlPath(empty) + "' (FORMAT parquet)");
    for (String partition : partitions) {
      Path f = skeletonDir(t.name()).resolve(partition).resolve("s.parquet");
      Files.createDirectories(f.getParent());
      Files.copy(empty, f, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  /**
   * The empty file of a table's skeleton, so that every view has at least one file. It has no rows,
   * so its partition values never show; they only have to cast to the column's type ({@code
   * __HIVE_DEFAULT_PARTITION__} does not cast to an integer such as {@code hour}).
   */
  private Path emptyFile(Catalog.Table t) {
    Path dir = skeletonDir(t.name()).resolve("_empty");
    for (String column : t.partitions()) {
      String type = LakeSql.duckType(t.schema().getField(column).getType());
      String placeholder =
          switch (type) {
            case "VARCHAR" -> "__HIVE_DEFAULT_PARTITION__";
            case "DATE" -> "1970-01-01";
            default -> "0";
          };
      dir = dir.resolve(column + "=" + placeholder);
    }
    return dir.resolve("empty.parquet");
  }

  private List<String> skeletonGlobs(String table, Set<String> partitions) {
    List<String> globs = new ArrayList<>();
    globs.add(sqlPath(emptyFile(tables.get(table))));
    for (String p : partitions) {
      globs.add(sqlPath(skeletonDir(table).resolve(p).resolve("s.parquet")));
    }
    return globs;
  }

  /**
   * The partitions of {@code table} the query reads: the skeleton view of {@code table} is set to
   * the empty file plus one partition at a time, and DuckDB's plan says whether it would read one
   * file more than with the empty file alone.
   */
  private Set<String> neededPartitions(String sql, String table, Set<String> partitions)
      throws SQLException {
    Set<String> needed = new TreeSet<>();
    if (partitions.isEmpty()) {
      return needed;
    }
    createView(table, skeletonGlobs(table, Set.of()));
    long none = filesRead(sql);
    for (String p : partitions) {
      createView(table, skeletonGlobs(table, Set.of(p)));
      if (filesRead(sql) > none) {
        needed.add(p);
      }
    }
    createView(table, skeletonGlobs(table, partitions));
    return needed;
  }

  private static final Pattern FILES_READ = Pattern.compile("Total Files Read: (\\d+)");

  /** Files DuckDB opens for the query, summed over its scans (from EXPLAIN ANALYZE). */
  private long filesRead(String sql) throws SQLException {
    long n = 0;
    try (Statement s = connection.createStatement();
        ResultSet rs = s.executeQuery("EXPLAIN ANALYZE " + sql)) {
      while (rs.next()) {
        Matcher m = FILES_READ.matcher(rs.getString(2));
        while (m.find()) {
          n += Long.parseLong(m.group(1));
        }
      }
    }
    return n;
  }

  private void createView(String table, List<String> globs) throws SQLException {
    Catalog.Table t = tables.get(table);
    StringBuilder types = new StringBuilder();
    for (String column : t.partitions()) {
      types
          .append(types.length() == 0 ? "" : ", ")
          .append('\'')
          .append(column)
          .append("': '")
          .append(LakeSql.duckType(t.schema().getField(column).getType()))
          .append('\'');
    }
    StringBuilder list = new StringBuilder();
    for (String g : globs) {
      list.append(list.length() == 0 ? "" : ", ")
          .append('\'')
          .append(g.replace("'", "''"))
          .append('\'');
    }
    String columns =
        String.join(
            ", ", t.schema().getFields().stream().map(f -> LakeSql.quote(f.getName())).toList());
    execute(
        "CREATE OR REPLACE VIEW "
            + LakeSql.quote(table)
            + " AS SELECT "
            + columns
            + " FROM read_parquet(["
            + list
            + "], hive_partitioning = true, hive_types = {"
            + types
            + "}, union_by_name = true)");
  }

  private static String sqlPath(Path p) {
    return p.toAbsolutePath().toString().replace('\\', '/');
  }

  private void execute(String sql) throws SQLException {
    try (Statement s = connection.createStatement()) {
      s.execute(sql);
    }
  }

  @Override
  public void close() throws SQLException, IOException {
    connection.close();
    try (Stream<Path> paths = Files.walk(skeleton)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
