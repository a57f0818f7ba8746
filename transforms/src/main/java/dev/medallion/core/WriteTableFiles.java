package dev.medallion.core;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.apache.beam.sdk.io.FileSystems;
import org.apache.beam.sdk.io.fs.MoveOptions;
import org.apache.beam.sdk.io.fs.ResourceId;
import org.apache.beam.sdk.transforms.Combine;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.transforms.windowing.DefaultTrigger;
import org.apache.beam.sdk.transforms.windowing.GlobalWindow;
import org.apache.beam.sdk.transforms.windowing.GlobalWindows;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.util.MimeTypes;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PDone;
import org.apache.beam.sdk.values.Row;
import org.apache.beam.sdk.values.WindowingStrategy;
import org.apache.beam.vendor.guava.v32_1_2_jre.com.google.common.io.CountingOutputStream;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.DelegatingPositionOutputStream;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;
import org.joda.time.Duration;

/**
 * Writes a bounded PCollection of schema'd records to a Parquet table folder, partitioned
 * hive-style, without shuffling them: each bundle writes its own file per partition it holds
 * ({@code part-<runId>-<uuid>.parquet}), and the files of the bundles that succeeded are listed in
 * a manifest (one path per line), which is what the job commits. A bundle the runner retried or
 * recomputed leaves files no manifest lists; the run's cleanup deletes them. Memory per bundle is
 * one Parquet row group per open file ({@link #ROW_GROUP_BYTES}, at most {@link #MAX_OPEN_FILES}
 * files), whatever the data's size.
 *
 * <p>For streaming (unbounded input, flushes on a trigger) use {@link WriteTable}.
 */
public class WriteTableFiles<T> extends PTransform<PCollection<T>, PDone> {
  /** The Parquet row group size: the most a bundle buffers per open partition. */
  public static final long ROW_GROUP_BYTES = 32L << 20;

  /**
   * The most files a bundle keeps open: a bundle spanning more partitions closes its oldest file (a
   * partition seen again gets a new one).
   */
  public static final int MAX_OPEN_FILES = 8;

  private final String tableRoot;
  private final SerializableFunction<T, String> partition;
  private final String runId;
  private final String manifest;

  private WriteTableFiles(
      String tableRoot, SerializableFunction<T, String> partition, String runId, String manifest) {
    this.tableRoot = tableRoot;
    this.partition = partition;
    this.runId = runId;
    this.manifest = manifest;
  }

  /**
   * @param manifest the file that will list the written files, one path per line (empty when the
   *     input was)
   */
  public static <T> WriteTableFiles<T> to(
      String tableRoot, SerializableFunction<T, String> partition, String runId, String manifest) {
    return new WriteTableFiles<>(tableRoot, partition, runId, manifest);
  }

  @Override
  public PDone expand(PCollection<T> input) {
    ParquetRecords records = ParquetRecords.of(input.getSchema());
    PCollection<String> paths =
        inTheGlobalWindow(input)
            .apply(
                "WriteBundleFiles",
                ParDo.of(
                    new WriteBundleFilesFn<>(
                        tableRoot, partition, runId, input.getToRowFunction(), records)));
    listIn(paths, manifest);
    return PDone.in(input.getPipeline());
  }

  /**
   * Lists the file paths of its input in one manifest at {@code path}, once, when the input ends
   * (sorted, one per line; replacing one a retried attempt wrote): for a bounded job that commits
   * the files it lists, and not files a retried or recomputed task left beside them.
   */
  public static PTransform<PCollection<String>, PDone> manifest(String path) {
    return new ListInManifest(path);
  }

  private static final class ListInManifest extends PTransform<PCollection<String>, PDone> {
    private final String path;

    private ListInManifest(String path) {
      this.path = path;
    }

    @Override
    public PDone expand(PCollection<String> paths) {
      listIn(inTheGlobalWindow(paths), path);
      return PDone.in(paths.getPipeline());
    }
  }

  /**
   * The steps that list {@code paths} (in the global window, default trigger) in the manifest at
   * {@code manifest}, applied where the caller is, so a replay's steps keep their names ({@code
   * …/ListFiles}, {@code …/WriteManifest}).
   */
  private static void listIn(PCollection<String> paths, String manifest) {
    paths
        .apply("ListFiles", Combine.globally(new JoinLines()))
        .apply("WriteManifest", ParDo.of(new WriteManifestFn(manifest)));
  }

  /**
   * The input in the global window with the default trigger: whatever its windows and trigger, the
   * manifest is written once, at the end. An input already there (Bronze's and Silver's rows) is
   * not windowed again: the DirectRunner would run that step for every record.
   */
  private static <T> PCollection<T> inTheGlobalWindow(PCollection<T> input) {
    WindowingStrategy<?, ?> windowing = input.getWindowingStrategy();
    if (windowing.getWindowFn() instanceof GlobalWindows
        && windowing.getTrigger() instanceof DefaultTrigger) {
      return input;
    }
    return input.apply(
        "GlobalWindow",
        Window.<T>into(new GlobalWindows())
            .triggering(DefaultTrigger.of())
            .withAllowedLateness(Duration.ZERO)
            .discardingFiredPanes());
  }

  /** Writes each bundle's records into one new file per partition; outputs the files' paths. */
  static class WriteBundleFilesFn<T> extends DoFn<T, String> {
    private final String tableRoot;
    private final SerializableFunction<T, String> partition;
    private final String runId;
    private final SerializableFunction<T, Row> toRow;
    private final ParquetRecords records;
    private transient Map<String, TableFile<T>> files;

    WriteBundleFilesFn(
        String tableRoot,
        SerializableFunction<T, String> partition,
        String runId,
        SerializableFunction<T, Row> toRow,
        ParquetRecords records) {
      this.tableRoot = tableRoot;
      this.partition = partition;
      this.runId = runId;
      this.toRow = toRow;
      this.records = records;
    }

    @StartBundle
    public void start() {
      files = new LinkedHashMap<>();
    }

    @ProcessElement
    public void process(@Element T record, OutputReceiver<String> out) throws IOException {
      String part = partition.apply(record);
      TableFile<T> file = files.get(part);
      if (file == null && files.size() >= MAX_OPEN_FILES) {
        // Each open file holds a row group (and on S3 an upload buffer): close the oldest.
        TableFile<T> oldest = files.remove(files.keySet().iterator().next());
        oldest.close();
        out.output(oldest.path());
      }
      if (file == null) {
        file = TableFile.open(newFile(tableRoot, part, runId), records, toRow);
        files.put(part, file);
      }
      file.write(record);
    }

    @FinishBundle
    public void finish(FinishBundleContext c) throws IOException {
      Map<String, TableFile<T>> open = files;
      files = null;
      try {
        for (TableFile<T> file : open.values()) {
          file.close();
          c.output(file.path(), GlobalWindow.INSTANCE.maxTimestamp(), GlobalWindow.INSTANCE);
        }
      } catch (IOException | RuntimeException e) {
        abandon(open);
        throw e;
      }
    }

    /**
     * A bundle that failed: its files are half-written and listed nowhere. The DirectRunner calls
     * this on the thread that cancels the failed job, maybe while a worker still writes them.
     */
    @Teardown
    public void teardown() {
      Map<String, TableFile<T>> open = files;
      files = null;
      if (open != null) {
        abandon(open);
      }
    }

    private static <T> void abandon(Map<String, TableFile<T>> open) {
      try {
        new ArrayList<>(open.values()).forEach(TableFile::abandon);
      } catch (ConcurrentModificationException e) {
        // A worker still adding a file to this bundle: the run's cleanup deletes what it leaves.
      }
    }
  }

  /**
   * Deletes a file whose write failed, if it is there; a failure to is left to the run's cleanup.
   */
  static void deleteQuietly(String path) {
    try {
      FileSystems.delete(
          List.of(FileSystems.matchNewResource(path, false)),
          MoveOptions.StandardMoveOptions.IGNORE_MISSING_FILES);
    } catch (IOException | RuntimeException ignored) {
      // The write's own failure is the one reported.
    }
  }

  /**
   * A new file of run {@code runId} in partition {@code part} of the table at {@code tableRoot}.
   */
  static String newFile(String tableRoot, String part, String runId) {
    return tableRoot
        + (tableRoot.endsWith("/") ? "" : "/")
        + (part.isEmpty() ? "" : part + "/")
        + "part-"
        + runId
        + "-"
        + UUID.randomUUID()
        + ".parquet";
  }

  /**
   * Columns whose values are (nearly) all different: the raw lines and where they came from, event
   * ids and instants, and Gold's one row per user. Parquet tries a dictionary for every column of a
   * row group until it is full (1 MiB), which for these only costs time: the benchmark's
   * hand-written loop took 43 s for the 2M-event workload with a dictionary on them, 33 s without
   * (and without statistics for text columns). {@code user_id} too: a user's events are spread over
   * the whole input, and at 2M events (200k users) its dictionary overflowed in every row group of
   * Bronze, Silver and Gold, each then written plain after all.
   */
  static final java.util.Set<String> UNIQUE_COLUMNS =
      java.util.Set.of(
          "raw_line",
          "raw_payload",
          "original_payload",
          "source",
          "event_id",
          "line_number",
          "source_offset",
          "event_timestamp",
          "event_ts",
          "received_at",
          "user_id",
          "first_event_timestamp",
          "last_event_timestamp",
          "last_feature_hash");

  /**
   * The raw text, which nothing filters on: min/max statistics compare every value with both, and
   * their bounds prune nothing. ({@code source} keeps them: a Kafka stage's resume filters on it.)
   */
  static final java.util.Set<String> NO_STATISTICS =
      java.util.Set.of("raw_line", "raw_payload", "original_payload");

  /** A new file of Avro records of {@code schema} (a table's files, rewritten). */
  static ParquetWriter<GenericRecord> open(String path, Schema schema) throws IOException {
    return configured(
        AvroParquetWriter.<GenericRecord>builder(ChannelOutputFile.of(path)).withSchema(schema),
        schema);
  }

  /** Every table file's settings: the columns' encodings and statistics, Snappy, row groups. */
  static <T, B extends ParquetWriter.Builder<T, B>> ParquetWriter<T> configured(
      B builder, Schema schema) throws IOException {
    for (Schema.Field f : schema.getFields()) {
      if (UNIQUE_COLUMNS.contains(f.name())) {
        builder = builder.withDictionaryEncoding(f.name(), false);
      }
      if (NO_STATISTICS.contains(f.name())) {
        builder = builder.withStatisticsEnabled(f.name(), false);
      }
    }
    return builder
        .withCompressionCodec(CompressionCodecName.SNAPPY)
        .withRowGroupSize(ROW_GROUP_BYTES)
        .withWriteMode(ParquetFileWriter.Mode.OVERWRITE)
        // not Hadoop's Configuration, which parses its XML defaults out of jars for every file
        .withConf(new PlainParquetConfiguration())
        .build();
  }

  /** The lines, sorted, joined with newlines; "" for none. */
  static class JoinLines extends Combine.CombineFn<String, List<String>, String> {
    @Override
    public List<String> createAccumulator() {
      return new ArrayList<>();
    }

    @Override
    public List<String> addInput(List<String> acc, String line) {
      acc.add(line);
      return acc;
    }

    @Override
    public List<String> mergeAccumulators(Iterable<List<String>> accs) {
      List<String> all = new ArrayList<>();
      accs.forEach(all::addAll);
      return all;
    }

    @Override
    public String extractOutput(List<String> acc) {
      List<String> sorted = new ArrayList<>(acc);
      sorted.sort(null);
      return String.join("\n", sorted);
    }
  }

  /** Writes the manifest (replacing one a retried attempt wrote). */
  static class WriteManifestFn extends DoFn<String, Void> {
    private final String path;

    WriteManifestFn(String path) {
      this.path = path;
    }

    @ProcessElement
    public void process(@Element String lines) throws IOException {
      ResourceId id = FileSystems.matchNewResource(path, false);
      try (OutputStream out = Channels.newOutputStream(FileSystems.create(id, MimeTypes.TEXT))) {
        out.write(lines.getBytes(StandardCharsets.UTF_8));
      }
    }
  }

  /**
   * A new file of Beam's file systems (local, {@code s3://}, …) as Parquet's {@link OutputFile}.
   */
  static final class ChannelOutputFile implements OutputFile {
    private final String path;

    private ChannelOutputFile(String path) {
      this.path = path;
    }

    static ChannelOutputFile of(String path) {
      return new ChannelOutputFile(path);
    }

    @Override
    public PositionOutputStream create(long blockSizeHint) throws IOException {
      ResourceId file = FileSystems.matchNewResource(path, false);
      return positioned(Channels.newOutputStream(FileSystems.create(file, MimeTypes.BINARY)));
    }

    @Override
    public PositionOutputStream createOrOverwrite(long blockSizeHint) throws IOException {
      return create(blockSizeHint);
    }

    @Override
    public boolean supportsBlockSize() {
      return false;
    }

    @Override
    public long defaultBlockSize() {
      return 0;
    }

    @Override
    public String getPath() {
      return path;
    }
  }

  /** {@code out}, counting the bytes written to it (Parquet's delegating stream, Guava's count). */
  private static PositionOutputStream positioned(OutputStream out) {
    CountingOutputStream counting = new CountingOutputStream(out);
    return new DelegatingPositionOutputStream(counting) {
      @Override
      public long getPos() {
        return counting.getCount();
      }
    };
  }
}
