import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.MessageType;

/**
 * The tables the benchmark's hand-written loops ({@code UsersLoop}, {@code IotLoop}) write: each
 * table's rows go, in batches, to a thread of its own that encodes them into one open Parquet file
 * per partition (Snappy, row groups of 32 MiB, as the project's table files), so the reading thread
 * and the encoding keep both cores busy; at most {@link #IN_FLIGHT} batches wait. A row is an
 * {@code Object[]} in the schema's column order: String, Integer, Long or Double, null for none.
 */
public final class LoopTables implements AutoCloseable {
  private static final int BATCH = 4096;
  private static final int IN_FLIGHT = 8;
  private final Path out;
  private final Set<String> noDictionary;
  private final Set<String> noStatistics;
  private final Semaphore inFlight = new Semaphore(IN_FLIGHT);
  private final Map<String, Table> open = new HashMap<>();

  /**
   * Tables under {@code out}. Columns named in {@code noDictionary} (values nearly all different:
   * a dictionary is tried per row group first) are written plain; those in {@code noStatistics}
   * (raw text nothing filters on) without min/max statistics.
   */
  public LoopTables(Path out, Set<String> noDictionary, Set<String> noStatistics) {
    this.out = out;
    this.noDictionary = noDictionary;
    this.noStatistics = noStatistics;
  }

  /**
   * A loop's {@code name=value} arguments; exits 2 with {@code usage} when one of {@code required}
   * is missing.
   */
  public static Map<String, String> arguments(String[] args, String usage, String... required) {
    Map<String, String> a = new HashMap<>();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      if (eq > 0) {
        a.put(arg.substring(0, eq), arg.substring(eq + 1));
      }
    }
    for (String name : required) {
      if (!a.containsKey(name)) {
        System.err.println("usage: " + usage);
        System.exit(2);
      }
    }
    return a;
  }

  /** A loop's counts on stdout: a header line of their names, then a line of them, tab-separated. */
  public static void print(Map<String, Long> counts) {
    System.out.println(String.join("\t", counts.keySet()));
    System.out.println(
        String.join("\t", counts.values().stream().map(String::valueOf).toArray(String[]::new)));
  }

  /** Adds {@code row} to {@code table}'s file of {@code partition} (a relative folder). */
  public void write(String table, MessageType schema, String partition, Object[] row)
      throws IOException {
    Table t = open.get(table);
    if (t == null) {
      t = new Table(out.resolve(table), schema);
      open.put(table, t);
    }
    t.parts.add(partition);
    t.rows.add(row);
    if (t.rows.size() == BATCH) {
      hand(t);
    }
  }

  private void hand(Table t) throws IOException {
    List<String> parts = t.parts;
    List<Object[]> rows = t.rows;
    t.parts = new ArrayList<>(BATCH);
    t.rows = new ArrayList<>(BATCH);
    inFlight.acquireUninterruptibly();
    t.pending.add(
        t.thread.submit(
            () -> {
              try {
                for (int i = 0; i < rows.size(); i++) {
                  t.writer(parts.get(i)).write(rows.get(i));
                }
              } finally {
                inFlight.release();
              }
              return null;
            }));
    for (var it = t.pending.iterator(); it.hasNext(); ) {
      Future<?> f = it.next();
      if (f.isDone()) {
        IOException e = failed(f);
        if (e != null) {
          throw e;
        }
        it.remove();
      }
    }
  }

  private static IOException failed(Future<?> f) {
    try {
      f.get();
      return null;
    } catch (ExecutionException e) {
      return e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new IOException(e);
    }
  }

  @Override
  public void close() throws IOException {
    IOException first = null;
    for (Table t : open.values()) {
      try {
        if (!t.rows.isEmpty()) {
          hand(t);
        }
        t.pending.add(t.thread.submit(t::closeAll));
      } catch (IOException e) {
        first = first == null ? e : first;
      } finally {
        t.thread.shutdown();
      }
      for (Future<?> f : t.pending) {
        IOException e = failed(f);
        first = first == null ? e : first;
      }
    }
    if (first != null) {
      throw first;
    }
  }

  /** One table: its thread, and (used only there) one open Parquet file per partition. */
  private final class Table {
    final Path dir;
    final MessageType schema;
    final ExecutorService thread =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "parquet-writer");
              t.setDaemon(true); // a failed run ends; it never waits for a writer
              return t;
            });
    final List<Future<?>> pending = new ArrayList<>();
    final Map<String, ParquetWriter<Object[]>> writers = new HashMap<>();
    List<String> parts = new ArrayList<>();
    List<Object[]> rows = new ArrayList<>();

    Table(Path dir, MessageType schema) {
      this.dir = dir;
      this.schema = schema;
    }

    ParquetWriter<Object[]> writer(String partition) throws IOException {
      ParquetWriter<Object[]> w = writers.get(partition);
      if (w == null) {
        Path folder = Files.createDirectories(dir.resolve(partition));
        Writer b = new Writer(new LocalOutputFile(folder.resolve("part-0.parquet")), schema);
        for (String unique : noDictionary) {
          if (schema.containsField(unique)) {
            b = b.withDictionaryEncoding(unique, false);
          }
        }
        for (String text : noStatistics) {
          if (schema.containsField(text)) {
            b = b.withStatisticsEnabled(text, false);
          }
        }
        w =
            b.withCompressionCodec(CompressionCodecName.SNAPPY)
                .withRowGroupSize(32L << 20)
                .withWriteMode(ParquetFileWriter.Mode.OVERWRITE)
                .withConf(new PlainParquetConfiguration())
                .build();
        writers.put(partition, w);
      }
      return w;
    }

    /** Closes every open file; the first failure is thrown once all are tried. */
    Void closeAll() throws IOException {
      IOException first = null;
      for (ParquetWriter<Object[]> w : writers.values()) {
        try {
          w.close();
        } catch (IOException e) {
          first = first == null ? e : first;
        }
      }
      if (first != null) {
        throw first;
      }
      return null;
    }
  }

  private static final class Writer extends ParquetWriter.Builder<Object[], Writer> {
    private final MessageType schema;

    Writer(OutputFile file, MessageType schema) {
      super(file);
      this.schema = schema;
    }

    @Override
    protected Writer self() {
      return this;
    }

    @Override
    protected WriteSupport<Object[]> getWriteSupport(Configuration conf) {
      return new RowSupport(schema);
    }

    @Override
    protected WriteSupport<Object[]> getWriteSupport(ParquetConfiguration conf) {
      return new RowSupport(schema);
    }
  }

  /** Writes an {@code Object[]} row: String, Integer, Long or Double per column, null for none. */
  private static final class RowSupport extends WriteSupport<Object[]> {
    private final MessageType schema;
    private RecordConsumer out;

    RowSupport(MessageType schema) {
      this.schema = schema;
    }

    @Override
    public WriteContext init(Configuration conf) {
      return new WriteContext(schema, Map.of());
    }

    @Override
    public WriteContext init(ParquetConfiguration conf) {
      return new WriteContext(schema, Map.of());
    }

    @Override
    public void prepareForWrite(RecordConsumer consumer) {
      out = consumer;
    }

    @Override
    public void write(Object[] row) {
      out.startMessage();
      for (int i = 0; i < row.length; i++) {
        Object v = row[i];
        if (v == null) {
          continue;
        }
        String name = schema.getFieldName(i);
        out.startField(name, i);
        switch (schema.getType(i).asPrimitiveType().getPrimitiveTypeName()) {
          case BINARY -> out.addBinary(Binary.fromString((String) v));
          case INT32 -> out.addInteger((Integer) v);
          case INT64 -> out.addLong((Long) v);
          default -> out.addDouble((Double) v);
        }
        out.endField(name, i);
      }
      out.endMessage();
    }
  }
}
