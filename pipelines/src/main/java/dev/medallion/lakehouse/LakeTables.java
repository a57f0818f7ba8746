package dev.medallion.lakehouse;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.medallion.core.Json;
import dev.medallion.core.MedallionException;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.beam.sdk.io.FileSystems;
import org.apache.beam.sdk.io.fs.EmptyMatchTreatment;
import org.apache.beam.sdk.io.fs.MatchResult;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.OverwriteFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.ReplacePartitions;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotUpdate;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.jdbc.UncheckedSQLException;
import org.apache.iceberg.mapping.MappingUtil;
import org.apache.iceberg.mapping.NameMappingParser;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * The lakehouse's tables as Apache Iceberg tables: Beam writes Parquet data files into a table's
 * folder as before, and nothing a reader sees changes until they are committed here, each change of
 * a table one atomic Iceberg commit. Readers plan their files from a table's current snapshot, so a
 * file that was written but not committed (a run that died, a file being replaced) is never read.
 *
 * <p>A run that changes several tables commits a {@link Step} per table. The first commit carries
 * the whole list in its snapshot summary ({@code medallion.plan}), so once it is in, the run has
 * happened: {@link #rollForward} finishes any step a crash left out, at the end of the run or at
 * the start of the next. Bronze's first commit also carries the input files it ingested ({@code
 * medallion.ingested-files}), so "ingested" and "in Bronze" are one fact.
 *
 * <p>The catalog is embedded by default: JDBC on a SQLite file, {@code
 * <lakehouse>/_catalog/iceberg.db}; its commits are compare-and-swap updates of one row, safe
 * between processes. {@code --catalog=glue} uses AWS Glue instead.
 */
public final class LakeTables implements AutoCloseable {
  public static final String RUN_ID = "medallion.run-id";
  public static final String STEP = "medallion.step";
  public static final String PLAN = "medallion.plan";
  public static final String INGESTED = "medallion.ingested-files";

  /** A Bronze commit's summary property: the versions of the files it ingested (path → version). */
  public static final String INGESTED_VERSIONS = "medallion.ingested-versions";

  /** Where the tables are and which catalog keeps them; serializable, for the streaming commits. */
  public record Config(String lakehouse, String catalog, String catalogUri)
      implements Serializable {
    public static Config of(LakehouseOptions o) {
      return new Config(o.getLakehouse(), o.getCatalog(), o.getCatalogUri());
    }

    private static volatile String defaultCatalog = "jdbc";
    private static volatile String defaultCatalogUri = "";

    /**
     * The catalog flags of a command that is not a pipeline ({@code query}, {@code quality}, …),
     * set once from its command line; {@link #of(String)} uses them.
     */
    public static void setDefaults(String catalog, String catalogUri) {
      defaultCatalog = catalog;
      defaultCatalogUri = catalogUri;
    }

    /** A lakehouse with the catalog flags this process was given (the embedded one by default). */
    public static Config of(String lakehouse) {
      return new Config(lakehouse, defaultCatalog, defaultCatalogUri);
    }

    /**
     * The lakehouse root, absolute when it is a local folder (catalogs keep absolute locations).
     */
    public String root() {
      String spelled = lakehouse.startsWith("file://") ? lakehouse.substring(7) : lakehouse;
      if (spelled.contains("://")) {
        return spelled.replaceAll("/+$", "");
      }
      return Path.of(spelled).toAbsolutePath().normalize().toString();
    }

    public boolean glue() {
      return "glue".equals(catalog);
    }

    /** The JDBC URL of the embedded catalog. */
    public String jdbcUri() {
      if (!catalogUri.isEmpty()) {
        return catalogUri;
      }
      return "jdbc:sqlite:" + localCatalogDir().resolve("iceberg.db");
    }

    /**
     * The local folder of the embedded catalog (and of the lakehouse lock): {@code _catalog/} in a
     * local lakehouse; for an {@code s3://} one, a folder under {@code ~/.medallion/catalogs/} (or
     * the system property {@code medallion.catalogs}).
     */
    public Path localCatalogDir() {
      if (!lakehouse.contains("://")) {
        return Path.of(root(), "_catalog");
      }
      String catalogs =
          System.getProperty(
              "medallion.catalogs",
              Path.of(System.getProperty("user.home"), ".medallion", "catalogs").toString());
      return Path.of(catalogs).resolve(root().replaceAll("[^A-Za-z0-9._-]+", "_"));
    }
  }

  /** How a step changes its table. */
  public enum Op {
    /** Adds the files. */
    APPEND,
    /** The files become the whole table. */
    REPLACE_ALL,
    /** The files replace the partitions they are in; other partitions stay. */
    REPLACE_PARTITIONS,
    /** The files replace the rows whose {@code column} is one of {@code values}. */
    REPLACE_WHERE,
    /** The files replace the files named in {@code values}, which hold the same rows. */
    REWRITE,
    /**
     * The files named in {@code values} go and the files come, in one snapshot: a re-ingest, whose
     * new files hold the rows of the old ones but for the replaced input's, and its new rows.
     */
    REPLACE_FILES
  }

  /** One table's change in a run: files (full paths) and how they go in. */
  public record Step(String table, Op op, List<String> files, String column, List<String> values) {
    public static Step of(String table, Op op, List<String> files) {
      return new Step(table, op, files, "", List.of());
    }

    public static Step replaceWhere(
        String table, String column, List<String> values, List<String> files) {
      return new Step(table, Op.REPLACE_WHERE, files, column, values);
    }

    /** {@code replaced} leave the table and {@code files} enter it, in one snapshot. */
    public static Step replaceFiles(String table, List<String> replaced, List<String> files) {
      return new Step(table, Op.REPLACE_FILES, files, "", replaced);
    }

    /**
     * A run's files entering the table, with the files of a rewrite ({@code replaced} by {@code
     * rewritten}) in the same snapshot; a plain append when nothing was rewritten.
     */
    public static Step rewriteAndAdd(
        String table, dev.medallion.core.TableRewrite.Rewritten rewrite, List<String> run) {
      if (rewrite.replaced().isEmpty()) {
        return of(table, Op.APPEND, run);
      }
      List<String> files = new ArrayList<>(run);
      files.addAll(rewrite.added());
      return replaceFiles(table, rewrite.replaced(), files);
    }
  }

  private final Config config;
  private final org.apache.iceberg.catalog.Catalog catalog;
  private final Map<String, Table> loaded = new HashMap<>();

  private LakeTables(Config config, org.apache.iceberg.catalog.Catalog catalog) {
    this.config = config;
    this.catalog = catalog;
  }

  public static LakeTables open(LakehouseOptions o) {
    return open(Config.of(o));
  }

  public static LakeTables open(Config config) {
    Map<String, String> props = new HashMap<>();
    props.put(CatalogProperties.WAREHOUSE_LOCATION, config.root());
    props.put(CatalogProperties.FILE_IO_IMPL, BeamFileIO.class.getName());
    if (config.glue()) {
      try {
        return new LakeTables(
            config,
            CatalogUtil.loadCatalog(
                "org.apache.iceberg.aws.glue.GlueCatalog", "medallion", props, null));
      } catch (IllegalArgumentException | NoClassDefFoundError e) {
        throw new IllegalArgumentException(
            "--catalog=glue needs iceberg-aws and the AWS SDK's glue module on the classpath: "
                + e.getMessage());
      }
    }
    if (!"jdbc".equals(config.catalog())) {
      throw new IllegalArgumentException(
          "--catalog must be jdbc (the embedded catalog) or glue, got '" + config.catalog() + "'");
    }
    String uri = config.jdbcUri();
    if (uri.startsWith("jdbc:sqlite:") && config.catalogUri().isEmpty()) {
      try {
        Files.createDirectories(config.localCatalogDir());
      } catch (IOException e) {
        throw new UncheckedIOException("cannot create " + config.localCatalogDir(), e);
      }
    }
    props.put(CatalogProperties.URI, uri);
    props.put("jdbc.schema-version", "V1");
    // Another process holding SQLite's write lock makes this one wait, not fail.
    props.put("jdbc.busy_timeout", "60000");
    // The catalog's own tables are created (if missing) by a catalog that is closed at once:
    // Iceberg leaves the result set of that check open, and on SQLite an open result set holds a
    // read lock on the file for as long as its pooled connection lives, blocking every commit.
    // On the embedded catalog that is done under its lock: stages started together on a new
    // lakehouse each found the tables missing, or without the column for views, and all but one
    // failed to create or add them (SQLITE_BUSY, "duplicate column name: iceberg_type"), which
    // ended that stage at its start. (A catalog a reader may not write is only read.)
    Runnable createTables =
        () -> {
          try (JdbcCatalog init = new JdbcCatalog()) {
            init.initialize("medallion-init", props);
          }
        };
    if (config.catalogUri().isEmpty() && Files.isWritable(config.localCatalogDir())) {
      underCatalogLock(config, createTables);
    } else {
      createTables.run();
    }
    props.put("jdbc.init-catalog-tables", "false");
    JdbcCatalog jdbc = new JdbcCatalog();
    jdbc.initialize("medallion", props);
    return new LakeTables(config, jdbc);
  }

  public Config config() {
    return config;
  }

  /** The table, created (empty, with its schema and partitions) when it does not exist yet. */
  public Table table(Catalog.Table def) {
    Table cached = loaded.get(def.name());
    if (cached != null) {
      return cached;
    }
    return whenNotBusy(() -> load(def));
  }

  private Table load(Catalog.Table def) {
    TableIdentifier id = id(def);
    Table table;
    try {
      table = catalog.loadTable(id);
    } catch (NoSuchTableException e) {
      table = create(def, id);
    }
    if (!table.properties().containsKey(TableProperties.DEFAULT_NAME_MAPPING)) {
      mapNamesToIds(table);
    }
    evolve(def, table);
    loaded.put(def.name(), checked(def, table));
    return table;
  }

  /**
   * Creates {@code def}'s table with {@code def}'s columns, or gives the table the nullable columns
   * of {@code def} it lacks (see {@link #evolve}): a run declares the columns its sensor catalog
   * gives the wide Gold tables before it writes them.
   */
  public Table declare(Catalog.Table def) {
    loaded.remove(def.name());
    return table(def);
  }

  /**
   * {@code def} with the columns its table has now, in the table's order: those of its record and
   * those a run declared (the sensor catalog's in the wide Gold tables). {@code def} itself when
   * the table does not exist.
   */
  public Catalog.Table current(Catalog.Table def) {
    Optional<Table> table = existing(def);
    if (table.isEmpty()) {
      return def;
    }
    org.apache.beam.sdk.schemas.Schema declared = def.schema();
    org.apache.beam.sdk.schemas.Schema.Builder columns =
        org.apache.beam.sdk.schemas.Schema.builder();
    Set<String> seen = new java.util.HashSet<>();
    for (Types.NestedField c : table.get().schema().columns()) {
      seen.add(c.name());
      columns.addField(
          declared.hasField(c.name())
              ? declared.getField(c.name())
              : org.apache.beam.sdk.schemas.Schema.Field.nullable(c.name(), beamType(c)));
    }
    for (org.apache.beam.sdk.schemas.Schema.Field f : declared.getFields()) {
      if (!seen.contains(f.getName())) {
        columns.addField(f);
      }
    }
    return def.withSchema(columns.build());
  }

  private static org.apache.beam.sdk.schemas.Schema.FieldType beamType(Types.NestedField c) {
    return switch (c.type().typeId()) {
      case STRING -> org.apache.beam.sdk.schemas.Schema.FieldType.STRING;
      case INTEGER -> org.apache.beam.sdk.schemas.Schema.FieldType.INT32;
      case LONG -> org.apache.beam.sdk.schemas.Schema.FieldType.INT64;
      case DOUBLE -> org.apache.beam.sdk.schemas.Schema.FieldType.DOUBLE;
      case FLOAT -> org.apache.beam.sdk.schemas.Schema.FieldType.FLOAT;
      case BOOLEAN -> org.apache.beam.sdk.schemas.Schema.FieldType.BOOLEAN;
      case TIMESTAMP -> org.apache.beam.sdk.schemas.Schema.FieldType.DATETIME;
      default ->
          throw new IllegalArgumentException(
              "column " + c.name() + " has a type Medallion does not write: " + c.type());
    };
  }

  /**
   * A table written by an older Medallion is brought to its record's schema, which only ever grows
   * by nullable columns: a declared column the table lacks is added as optional (the {@code extra}
   * column of Bronze and Silver), and a column the record now declares nullable becomes optional
   * (the registry's optional latitude, longitude and model in Silver). Iceberg allows both, and
   * older files read with the new column null. The name mapping follows.
   */
  private static void evolve(Catalog.Table def, Table table) {
    for (int attempt = 0; ; attempt++) {
      org.apache.iceberg.UpdateSchema update = null;
      for (org.apache.beam.sdk.schemas.Schema.Field f : def.schema().getFields()) {
        Types.NestedField column = table.schema().findField(f.getName());
        if (column == null && f.getType().getNullable()) {
          update = update == null ? table.updateSchema() : update;
          update.addColumn(f.getName(), icebergType(f));
        } else if (column != null && column.isRequired() && f.getType().getNullable()) {
          update = update == null ? table.updateSchema() : update;
          update.makeColumnOptional(f.getName());
        }
      }
      if (update == null) {
        return;
      }
      try {
        update.commit();
      } catch (org.apache.iceberg.exceptions.CommitFailedException | IllegalArgumentException e) {
        if (attempt > 0) {
          throw e;
        }
        table.refresh(); // another run evolved it meanwhile: look again
        continue;
      }
      mapNamesToIds(table);
      return;
    }
  }

  /**
   * The data files carry no Iceberg field ids: readers map their columns by name, with the ids the
   * table itself assigned.
   */
  private static void mapNamesToIds(Table table) {
    table
        .updateProperties()
        .set(
            TableProperties.DEFAULT_NAME_MAPPING,
            NameMappingParser.toJson(MappingUtil.create(table.schema())))
        .commit();
  }

  /**
   * A table whose location is not this lakehouse's folder for it: the catalog belongs to a
   * lakehouse that was moved or copied (catalogs keep absolute locations).
   */
  private Table checked(Catalog.Table def, Table table) {
    String expected = new Lakehouse(config.root()).table(def.path());
    if (!table.location().replaceAll("/+$", "").equals(expected)) {
      throw new MedallionException(
          "the catalog "
              + (config.glue() ? "(glue)" : config.jdbcUri())
              + " keeps "
              + def.name()
              + " at "
              + table.location()
              + ", not at "
              + expected
              + ": was the lakehouse moved or copied? Use it where it was written, or pass the"
              + " catalog of this one (--catalogUri)");
    }
    return table;
  }

  /** The table if it exists (readers never create one). */
  public Optional<Table> existing(Catalog.Table def) {
    try {
      return Optional.of(checked(def, catalog.loadTable(id(def))));
    } catch (NoSuchTableException | NoSuchNamespaceException e) {
      return Optional.empty();
    }
  }

  private Table create(Catalog.Table def, TableIdentifier id) {
    if (catalog instanceof SupportsNamespaces ns && !ns.namespaceExists(id.namespace())) {
      try {
        ns.createNamespace(id.namespace());
      } catch (AlreadyExistsException e) {
        // created meanwhile by another run
      }
    }
    Schema schema = icebergSchema(def.schema());
    PartitionSpec.Builder spec = PartitionSpec.builderFor(schema);
    def.partitions().forEach(spec::identity);
    try {
      return catalog
          .buildTable(id, schema)
          .withPartitionSpec(spec.build())
          .withLocation(new Lakehouse(config.root()).table(def.path()))
          .create();
    } catch (AlreadyExistsException e) {
      return catalog.loadTable(id);
    }
  }

  static TableIdentifier id(Catalog.Table def) {
    String[] parts = def.path().split("/");
    return TableIdentifier.of(Namespace.of(parts[0]), parts[1]);
  }

  /** Beam schema → Iceberg schema; nullable fields are optional. */
  static Schema icebergSchema(org.apache.beam.sdk.schemas.Schema beam) {
    List<Types.NestedField> fields = new ArrayList<>();
    int id = 1;
    for (org.apache.beam.sdk.schemas.Schema.Field f : beam.getFields()) {
      Type type = icebergType(f);
      fields.add(
          f.getType().getNullable()
              ? Types.NestedField.optional(id++, f.getName(), type)
              : Types.NestedField.required(id++, f.getName(), type));
    }
    return new Schema(fields);
  }

  static Type icebergType(org.apache.beam.sdk.schemas.Schema.Field f) {
    return switch (f.getType().getTypeName()) {
      case STRING -> Types.StringType.get();
      case INT32, INT16, BYTE -> Types.IntegerType.get();
      case INT64 -> Types.LongType.get();
      case DOUBLE -> Types.DoubleType.get();
      case FLOAT -> Types.FloatType.get();
      case BOOLEAN -> Types.BooleanType.get();
      case DATETIME -> Types.TimestampType.withZone();
      default -> throw new IllegalArgumentException("no Iceberg type for " + f);
    };
  }

  /** The data files of a table's current snapshot (none when the table does not exist). */
  public List<DataFile> files(Catalog.Table def) {
    return files(def, Expressions.alwaysTrue());
  }

  /** The data files of the current snapshot that may hold rows matching {@code filter}. */
  public List<DataFile> files(Catalog.Table def, Expression filter) {
    Optional<Table> table = existing(def);
    List<DataFile> out = new ArrayList<>();
    if (table.isEmpty() || table.get().currentSnapshot() == null) {
      return out;
    }
    try (CloseableIterable<FileScanTask> tasks = table.get().newScan().filter(filter).planFiles()) {
      tasks.forEach(t -> out.add(t.file().copy()));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot plan the files of " + def.name(), e);
    }
    out.sort(java.util.Comparator.comparing(DataFile::location));
    return out;
  }

  /** The paths of {@link #files(Catalog.Table)}. */
  public List<String> paths(Catalog.Table def) {
    return files(def).stream().map(DataFile::location).toList();
  }

  /**
   * The version ({@link InputFiles#versions}) of each input file a committed Bronze snapshot
   * recorded, the newest for a file ingested more than once; files of snapshots that recorded no
   * versions are not in it.
   */
  public Map<String, String> ingestedVersions(Catalog.Table bronze) {
    Map<String, String> out = new TreeMap<>();
    Optional<Table> table = existing(bronze);
    if (table.isPresent()) {
      List<Snapshot> snapshots = new ArrayList<>();
      table.get().snapshots().forEach(snapshots::add);
      snapshots.sort(java.util.Comparator.comparingLong(Snapshot::sequenceNumber));
      for (Snapshot s : snapshots) {
        String versions = s.summary().get(INGESTED_VERSIONS);
        if (versions != null) {
          out.putAll(read(versions, new TypeReference<Map<String, String>>() {}));
        }
      }
    }
    return out;
  }

  /** The summary properties of a Bronze commit that ingested {@code fresh} files. */
  public static Map<String, String> ingestedSummary(InputFiles.NewInput input) {
    return input.fresh().isEmpty()
        ? Map.of()
        : Map.of(INGESTED, write(input.fresh()), INGESTED_VERSIONS, write(input.versions()));
  }

  /** Every input file any committed Bronze snapshot ingested. */
  public Set<String> ingested(Catalog.Table bronze) {
    Set<String> out = new TreeSet<>();
    Optional<Table> table = existing(bronze);
    if (table.isPresent()) {
      for (Snapshot s : table.get().snapshots()) {
        String files = s.summary().get(INGESTED);
        if (files != null) {
          out.addAll(fromJson(files));
        }
      }
    }
    return out;
  }

  /** The files run {@code runId} wrote, in every table, that none of its commits added. */
  public List<String> uncommittedFilesOf(String runId) {
    List<String> out = new ArrayList<>();
    for (Catalog.Table def : Catalog.TABLES) {
      List<String> written = writtenBy(def, runId, "");
      if (written.isEmpty()) {
        continue;
      }
      Set<String> committed = committedFiles(def, runId);
      written.stream().filter(f -> !committed.contains(f)).forEach(out::add);
    }
    return out;
  }

  /**
   * The files the commits of run {@code runId} added to a table, below {@code under} (e.g. {@code
   * stage=silver}), sorted: what a stream, which commits as it goes, has put in.
   */
  public List<String> committedBy(Catalog.Table def, String runId, String under) {
    return below(def, under, committedFiles(def, runId));
  }

  /** Those of {@code files} below the folder {@code under} of a table ("": all of it), sorted. */
  private List<String> below(Catalog.Table def, String under, Iterable<String> files) {
    String location = new Lakehouse(config.root()).table(def.path());
    String prefix = (under.isEmpty() ? location : location + "/" + under) + "/";
    List<String> out = new ArrayList<>();
    for (String f : files) {
      if (!f.isBlank() && f.startsWith(prefix)) {
        out.add(f);
      }
    }
    out.sort(null);
    return out;
  }

  private Set<String> committedFiles(Catalog.Table def, String runId) {
    Set<String> committed = new java.util.HashSet<>();
    existing(def)
        .ifPresent(
            t -> {
              for (Snapshot s : t.snapshots()) {
                if (runId.equals(s.summary().get(RUN_ID))) {
                  s.addedDataFiles(t.io()).forEach(f -> committed.add(f.location()));
                }
              }
            });
    return committed;
  }

  /**
   * The files run {@code runId} lists in its manifest of a table ({@link Lakehouse#written}), below
   * {@code under} (e.g. {@code stage=silver}): the ones its job's successful bundles wrote. A
   * bundle the runner retried or recomputed may have left others; they are never committed. Without
   * a manifest (the streaming writes), every file of the run.
   */
  public List<String> listedBy(Catalog.Table def, String runId, String under) {
    Lakehouse lake = new Lakehouse(config.root());
    String manifest = lake.written(runId, def.path());
    String text;
    try {
      MatchResult m = FileSystems.match(manifest, EmptyMatchTreatment.ALLOW);
      if (m.status() == MatchResult.Status.ERROR) {
        // Not "no manifest": listing the folder instead could commit a retried bundle's files.
        throw new IOException("cannot tell whether the manifest " + manifest + " exists");
      }
      if (m.status() == MatchResult.Status.NOT_FOUND || m.metadata().isEmpty()) {
        return writtenBy(def, runId, under);
      }
      try (var in =
          java.nio.channels.Channels.newInputStream(
              FileSystems.open(m.metadata().get(0).resourceId()))) {
        text = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + manifest, e);
    }
    return below(def, under, List.of(text.split("\n")));
  }

  /**
   * Every file run {@code runId} wrote to a table (below {@code under}, e.g. {@code stage=silver}),
   * listed or not.
   */
  public List<String> writtenBy(Catalog.Table def, String runId, String under) {
    String location = new Lakehouse(config.root()).table(def.path());
    String root = under.isEmpty() ? location : location + "/" + under;
    try {
      MatchResult m =
          FileSystems.match(root + "/**part-" + runId + "-*.parquet", EmptyMatchTreatment.ALLOW);
      List<String> out = new ArrayList<>();
      if (m.status() == MatchResult.Status.OK) {
        for (MatchResult.Metadata md : m.metadata()) {
          String path = md.resourceId().toString();
          // Beam's FileIO, which wrote a stream's files until 33a124e, kept its unfinished files
          // in .temp folders of the table (an older lakehouse may still hold some).
          if (!path.contains("/.temp")) {
            out.add(path);
          }
        }
      }
      out.sort(null);
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list the files of " + def.name(), e);
    }
  }

  /**
   * Commits a run's steps: the first (its snapshot carrying the plan and {@code firstSummary}),
   * then the others. Appends without files are left out, but for a first one whose snapshot carries
   * {@code firstSummary}.
   */
  public void commit(String runId, List<Step> steps, Map<String, String> firstSummary) {
    // The first step is kept even without files when its snapshot carries something (Bronze's
    // ingested files: input whose every line was a dead letter is still ingested).
    List<Step> plan = new ArrayList<>();
    for (int i = 0; i < steps.size(); i++) {
      Step s = steps.get(i);
      boolean noOp =
          (s.op() == Op.APPEND || s.op() == Op.REPLACE_PARTITIONS) && s.files().isEmpty();
      if (!noOp || (i == 0 && !firstSummary.isEmpty())) {
        plan.add(s);
      }
    }
    if (plan.isEmpty()) {
      return;
    }
    Map<String, String> summary = new LinkedHashMap<>(firstSummary);
    summary.put(PLAN, planJson(plan));
    apply(runId, 0, plan.get(0), summary);
    CrashPoints.reached(CrashPoints.MID_PUBLISH);
    rollForward(runId);
  }

  /** Appends files as one commit of run {@code runId} (a streaming flush). */
  public void append(String runId, String table, List<String> files, Map<String, String> summary) {
    // A retried bundle must not add a file twice: files already in the table are left out.
    Set<String> present = new java.util.HashSet<>(paths(Catalog.table(table)));
    List<String> fresh = files.stream().filter(f -> !present.contains(f)).toList();
    if (fresh.isEmpty() && !files.isEmpty()) {
      return;
    }
    apply(runId, -1, Step.of(table, Op.APPEND, fresh), summary);
  }

  /**
   * Replaces files of a table by files holding the same rows (compaction), as one commit. Refused
   * when a file to replace is no longer in the table or the row counts differ.
   */
  public void rewrite(String runId, String table, List<String> replaced, List<String> added) {
    apply(runId, -1, new Step(table, Op.REWRITE, added, "", replaced), Map.of());
  }

  /**
   * Finishes every run whose first commit is in but whose other steps are not (a crash between
   * them): appends are always completed; a replacing step only while no later run has changed its
   * table since. Returns how many steps it applied.
   */
  public int rollForward() {
    return rollForward(null);
  }

  /** {@link #rollForward()} of run {@code onlyRunId}'s steps alone (null: every run's). */
  public int rollForward(@Nullable String onlyRunId) {
    int applied = 0;
    for (Catalog.Table def : Catalog.TABLES) {
      Optional<Table> carrier = existing(def);
      if (carrier.isEmpty()) {
        continue;
      }
      for (Snapshot s : carrier.get().snapshots()) {
        String planJson = s.summary().get(PLAN);
        if (planJson == null) {
          continue;
        }
        String runId = s.summary().get(RUN_ID);
        if (onlyRunId != null && !onlyRunId.equals(runId)) {
          continue;
        }
        List<Step> plan = read(planJson, new TypeReference<List<Step>>() {});
        for (int i = 1; i < plan.size(); i++) {
          Step step = plan.get(i);
          Table target = table(Catalog.table(step.table()));
          target.refresh();
          if (done(target, runId, i)
              || (step.op() != Op.APPEND && superseded(target, runId, s.timestampMillis()))) {
            continue;
          }
          apply(runId, i, step, Map.of());
          applied++;
        }
      }
    }
    return applied;
  }

  private static boolean done(Table table, String runId, int step) {
    for (Snapshot s : table.snapshots()) {
      if (runId.equals(s.summary().get(RUN_ID))
          && String.valueOf(step).equals(s.summary().get(STEP))) {
        return true;
      }
    }
    return false;
  }

  private static boolean superseded(Table table, String runId, long since) {
    for (Snapshot s : table.snapshots()) {
      if (s.timestampMillis() >= since && !runId.equals(s.summary().get(RUN_ID))) {
        return true;
      }
    }
    return false;
  }

  /**
   * Commits a step. Iceberg retries a commit that lost a race with another writer's; SQLite may
   * also refuse the catalog update at once when two connections want to write together ({@code
   * SQLITE_BUSY}, nothing changed): then the step is built again on the table's newest state.
   */
  private void apply(String runId, int index, Step step, Map<String, String> summary) {
    whenNotBusy(
        () -> {
          if (embedded()) {
            underCatalogLock(config, () -> applyOnce(runId, index, step, summary));
          } else {
            applyOnce(runId, index, step, summary);
          }
          return null;
        });
  }

  /**
   * {@code work}, a catalog read or write, done again when SQLite refused it at once because
   * another connection was writing ({@code SQLITE_BUSY}: nothing was changed). A run that starts
   * beside a running stage creates and evolves its tables, and marks Gold, while that stage
   * commits.
   */
  public static <T> T whenNotBusy(java.util.function.Supplier<T> work) {
    for (int attempt = 1; ; attempt++) {
      try {
        return work.get();
      } catch (UncheckedSQLException e) {
        if (attempt >= 30 || !String.valueOf(e.getCause()).contains("SQLITE_BUSY")) {
          throw e;
        }
        try {
          Thread.sleep(
              20L * attempt + java.util.concurrent.ThreadLocalRandom.current().nextInt(50));
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }

  private static final Object COMMITS = new Object();

  /**
   * Runs {@code work} as the only writer of the embedded catalog's SQLite file, between threads (a
   * lock in this JVM) and processes (an operating-system lock on {@code _commit.lock} beside it,
   * let go when its process dies): a commit, or the creation of the catalog's own tables.
   */
  private static void underCatalogLock(Config config, Runnable work) {
    synchronized (COMMITS) {
      try (java.nio.channels.FileChannel channel =
              java.nio.channels.FileChannel.open(
                  config.localCatalogDir().resolve("_commit.lock"),
                  java.nio.file.StandardOpenOption.CREATE,
                  java.nio.file.StandardOpenOption.WRITE);
          java.nio.channels.FileLock lock = channel.lock()) {
        work.run();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot lock the catalog " + config.localCatalogDir(), e);
      }
    }
  }

  /** The data files of the table's current snapshot, by location. */
  private static Map<String, DataFile> currentFiles(Table table, String name) {
    Map<String, DataFile> current = new HashMap<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      tasks.forEach(t -> current.put(t.file().location(), t.file().copy()));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot plan the files of " + name, e);
    }
    return current;
  }

  private boolean embedded() {
    return !config.glue() && config.catalogUri().isEmpty();
  }

  private void applyOnce(String runId, int index, Step step, Map<String, String> summary) {
    Table table = table(Catalog.table(step.table()));
    table.refresh();
    SnapshotUpdate<?> update;
    switch (step.op()) {
      case APPEND -> {
        AppendFiles append = table.newAppend();
        step.files().forEach(f -> append.appendFile(dataFile(table, f)));
        update = append;
      }
      case REPLACE_PARTITIONS -> {
        if (step.files().isEmpty()) {
          return;
        }
        ReplacePartitions replace = table.newReplacePartitions();
        step.files().forEach(f -> replace.addFile(dataFile(table, f)));
        update = replace;
      }
      case REPLACE_ALL, REPLACE_WHERE -> {
        Expression rows =
            step.op() == Op.REPLACE_ALL
                ? Expressions.alwaysTrue()
                : Expressions.in(step.column(), step.values().toArray());
        OverwriteFiles overwrite = table.newOverwrite().overwriteByRowFilter(rows);
        step.files().forEach(f -> overwrite.addFile(dataFile(table, f)));
        update = overwrite;
      }
      case REWRITE -> {
        Map<String, DataFile> current = currentFiles(table, step.table());
        RewriteFiles rewrite = table.newRewrite();
        long before = 0;
        for (String f : step.values()) {
          DataFile old = current.get(f);
          if (old == null) {
            throw new IllegalStateException(f + " is no longer in " + step.table());
          }
          before += old.recordCount();
          rewrite.deleteFile(old);
        }
        long after = 0;
        for (String f : step.files()) {
          DataFile merged = dataFile(table, f);
          after += merged.recordCount();
          rewrite.addFile(merged);
        }
        if (before != after) {
          throw new IllegalStateException(
              "compacting " + step.table() + " would turn " + before + " rows into " + after);
        }
        update = rewrite;
      }
      case REPLACE_FILES -> {
        Map<String, DataFile> current = currentFiles(table, step.table());
        OverwriteFiles overwrite = table.newOverwrite();
        for (String f : step.values()) {
          DataFile old = current.get(f);
          if (old == null) {
            throw new IllegalStateException(f + " is no longer in " + step.table());
          }
          overwrite.deleteFile(old);
        }
        step.files().forEach(f -> overwrite.addFile(dataFile(table, f)));
        update = overwrite;
      }
      default -> throw new IllegalStateException(step.op().name());
    }
    update.set(RUN_ID, runId);
    if (index >= 0) {
      update.set(STEP, String.valueOf(index));
    }
    summary.forEach(update::set);
    update.commit();
  }

  /**
   * A written Parquet file as an Iceberg data file: its partition from its folder, its metrics from
   * its footer (timestamps are microseconds, as Iceberg's bounds are).
   */
  static DataFile dataFile(Table table, String path) {
    InputFile in = table.io().newInputFile(path);
    Metrics metrics;
    try {
      metrics =
          ParquetFooters.metrics(
              in, MetricsConfig.forTable(table), MappingUtil.create(table.schema()));
    } catch (RuntimeException e) {
      // Bounds of a column whose Parquet type is not the table's (a file from another tool):
      // counts only, so that no filter prunes the file wrongly; readers report the mismatch.
      metrics =
          ParquetFooters.metrics(
              in,
              MetricsConfig.fromProperties(
                  Map.of(TableProperties.DEFAULT_WRITE_METRICS_MODE, "counts")),
              MappingUtil.create(table.schema()));
    }
    DataFiles.Builder file =
        DataFiles.builder(table.spec())
            .withPath(path)
            .withFormat(FileFormat.PARQUET)
            .withFileSizeInBytes(in.getLength())
            .withMetrics(metrics);
    if (table.spec().isPartitioned()) {
      String prefix = table.location().replaceAll("/+$", "") + "/";
      if (!path.startsWith(prefix)) {
        throw new IllegalArgumentException(path + " is not below the table " + table.location());
      }
      String rel = path.substring(prefix.length());
      file.withPartitionPath(rel.substring(0, Math.max(0, rel.lastIndexOf('/'))));
    }
    return file.build();
  }

  private static List<String> fromJson(String json) {
    return read(json, new TypeReference<List<String>>() {});
  }

  /** A plan as its snapshot summary holds it. */
  static String planJson(List<Step> plan) {
    return write(plan);
  }

  private static String write(Object value) {
    try {
      return Json.mapper().writeValueAsString(value);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private static <T> T read(String json, TypeReference<T> type) {
    try {
      return Json.mapper().readValue(json, type);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("unreadable Medallion snapshot summary: " + json, e);
    }
  }

  @Override
  public void close() throws IOException {
    if (catalog instanceof AutoCloseable c) {
      try {
        c.close();
      } catch (IOException | RuntimeException e) {
        throw e;
      } catch (Exception e) {
        throw new IOException(e);
      }
    }
  }
}
