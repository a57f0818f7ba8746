package dev.medallion.core;

import java.io.IOException;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.transforms.windowing.AfterFirst;
import org.apache.beam.sdk.transforms.windowing.AfterPane;
import org.apache.beam.sdk.transforms.windowing.AfterProcessingTime;
import org.apache.beam.sdk.transforms.windowing.GlobalWindows;
import org.apache.beam.sdk.transforms.windowing.Repeatedly;
import org.apache.beam.sdk.transforms.windowing.Trigger;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.Row;
import org.joda.time.Duration;

/**
 * Appends a PCollection of schema'd records to a Parquet table folder, partitioned hive-style
 * ({@code date=2026-11-29/hour=10}). Records are moved into the global window and flushed on a
 * processing-time trigger, so no record is ever dropped by the write for being late, in batch and
 * in streaming alike; every flush writes new files ({@code part-<runId>-<uuid>.parquet}, as a
 * replay's, {@link WriteTableFiles}), never rewriting old ones, at most {@link #withNumShards}
 * files per partition and flush (and one more whenever {@link #withFlushBatches} batches of a shard
 * wait, when set). The Parquet schema is derived from the record's Beam schema: one definition. The
 * output gives each file written as its partition and path, in the pane of the flush that wrote it.
 * A file whose write failed is deleted and in no output; one a retried task left is in no output
 * either, and the run deletes the files it wrote and did not commit when it ends.
 *
 * <p>Not Beam's {@code FileIO.write}, whose temporary files are gathered, renamed and gathered
 * again (the write was 28 steps per table, 26 of them {@code FileIO}'s): the DirectRunner's driver
 * looks for fired timers in every step after every task (17 % of a stream's worker CPU for 250
 * steps, 224 of them the seven tables' writes and commits; JFR, 2026-12-06), and on S3 a rename is
 * a copy. Here a table's write is five steps: the window, the batches per partition, their shards,
 * one grouping, and the files.
 */
public class WriteTable<T> extends PTransform<PCollection<T>, PCollection<KV<String, String>>> {
  private final String tableRoot;
  private final SerializableFunction<T, String> partition;
  private final String runId;
  private final int numShards;
  private final Duration flushEvery;
  // A shard's file is written once this many batches wait; 0: only at the flush interval.
  private final int flushBatches;

  private WriteTable(
      String tableRoot,
      SerializableFunction<T, String> partition,
      String runId,
      int numShards,
      Duration flushEvery,
      int flushBatches) {
    this.tableRoot = tableRoot;
    this.partition = partition;
    this.runId = runId;
    this.numShards = numShards;
    this.flushEvery = flushEvery;
    this.flushBatches = flushBatches;
  }

  public static <T> WriteTable<T> to(
      String tableRoot, SerializableFunction<T, String> partition, String runId) {
    return new WriteTable<>(tableRoot, partition, runId, 1, Duration.standardSeconds(10), 0);
  }

  /** At most {@code shards} files per partition and flush, written in parallel (default 1). */
  public WriteTable<T> withNumShards(int shards) {
    if (shards < 1) {
      throw new IllegalArgumentException("a table is written in at least one shard, not " + shards);
    }
    return new WriteTable<>(tableRoot, partition, runId, shards, flushEvery, flushBatches);
  }

  public WriteTable<T> withFlushEvery(Duration every) {
    return new WriteTable<>(tableRoot, partition, runId, numShards, every, flushBatches);
  }

  /**
   * A shard also writes its file as soon as {@code batches} batches of its partition wait (each up
   * to {@link KeyedBatches#MAX_RECORDS} records), before the flush interval (0, the default: only
   * at the interval): what a writer holds is bounded by the batches, not by the rate times the
   * interval. The DirectRunner copies a group's waiting batches whenever a bundle reaches it; at
   * 50,000 records/s and 5 s those copies were a quarter of the bytes a stream allocated, and each
   * young collection moved the newest ones again (bench/HISTORY.md).
   */
  public WriteTable<T> withFlushBatches(int batches) {
    if (batches < 0) {
      throw new IllegalArgumentException(
          "a file is written for at least one waiting batch (or 0: only at the flush interval), not "
              + batches);
    }
    return new WriteTable<>(tableRoot, partition, runId, numShards, flushEvery, batches);
  }

  /** Every flush interval, and as soon as {@link #flushBatches} batches wait when set. */
  private Trigger flushTrigger() {
    Trigger.OnceTrigger onTime =
        AfterProcessingTime.pastFirstElementInPane().plusDelayOf(flushEvery);
    return Repeatedly.forever(
        flushBatches == 0
            ? onTime
            : AfterFirst.of(AfterPane.elementCountAtLeast(flushBatches), onTime));
  }

  @Override
  public PCollection<KV<String, String>> expand(PCollection<T> input) {
    // Parquet files of an Iceberg table hold microsecond timestamps (ParquetRecords).
    ParquetRecords records = ParquetRecords.of(input.getSchema());
    return input
        .apply(
            "FlushOnProcessingTime",
            Window.<T>into(new GlobalWindows())
                .triggering(flushTrigger())
                .withAllowedLateness(Duration.ZERO)
                .discardingFiredPanes())
        .apply("BatchByPartition", KeyedBatches.inTheGlobalWindow(partition))
        .apply("SpreadOverShards", ParDo.of(new SpreadOverShardsFn(numShards)))
        .setCoder(
            KvCoder.of(KvCoder.of(StringUtf8Coder.of(), VarIntCoder.of()), BatchBytesCoder.of()))
        .apply("GroupIntoFiles", GroupByKey.create())
        .apply(
            "WriteFiles",
            ParDo.of(
                new WriteFileFn<>(
                    tableRoot, runId, input.getCoder(), input.getToRowFunction(), records)))
        .setCoder(KvCoder.of(StringUtf8Coder.of(), StringUtf8Coder.of()));
  }

  /**
   * Each batch to one of its partition's shards, in turn per partition from a random first one (as
   * Beam's sharded writes do), so a flush's batches of a partition spread evenly over its files.
   */
  static class SpreadOverShardsFn
      extends DoFn<KV<String, byte[]>, KV<KV<String, Integer>, byte[]>> {
    private final int shards;
    // The next shard of each partition this instance has seen (a stream's partitions: its days or
    // hours so far).
    private transient Map<String, Integer> next;

    SpreadOverShardsFn(int shards) {
      this.shards = shards;
    }

    @Setup
    public void setup() {
      next = new HashMap<>();
    }

    @ProcessElement
    public void process(
        @Element KV<String, byte[]> batch, OutputReceiver<KV<KV<String, Integer>, byte[]>> out) {
      String part = batch.getKey();
      int shard = next.computeIfAbsent(part, p -> ThreadLocalRandom.current().nextInt(shards));
      next.put(part, (shard + 1) % shards);
      out.output(KV.of(KV.of(part, shard), batch.getValue()));
    }
  }

  /**
   * Writes a shard's batches of records ({@link KeyedBatches}) of one flush record by record into
   * one new Parquet file, as a replay's files are written ({@link RowWriteSupport}: no Avro record
   * per row; the same column settings, {@link TableFile}); outputs its partition and path once the
   * file is whole; a file whose write failed is deleted. A key's pane without batches (its on-time
   * pane at the end of a bounded input, when its flushes took every batch) writes nothing. The
   * DirectRunner copies a group's values through their coder whenever a bundle reaches it: batches
   * are copied as byte arrays, not record by record (the copies grew with the rate times the flush
   * interval: 20 % of a stream's CPU at 8,600 records/s, JFR, 2026-12-04).
   */
  static class WriteFileFn<T>
      extends DoFn<KV<KV<String, Integer>, Iterable<byte[]>>, KV<String, String>> {
    private final String tableRoot;
    private final String runId;
    private final Coder<T> coder;
    private final SerializableFunction<T, Row> toRow;
    private final ParquetRecords records;

    WriteFileFn(
        String tableRoot,
        String runId,
        Coder<T> coder,
        SerializableFunction<T, Row> toRow,
        ParquetRecords records) {
      this.tableRoot = tableRoot;
      this.runId = runId;
      this.coder = coder;
      this.toRow = toRow;
      this.records = records;
    }

    @ProcessElement
    public void process(
        @Element KV<KV<String, Integer>, Iterable<byte[]>> shard,
        OutputReceiver<KV<String, String>> out)
        throws IOException {
      Iterator<byte[]> batches = shard.getValue().iterator();
      if (!batches.hasNext()) {
        return;
      }
      String part = shard.getKey().getKey();
      TableFile<T> file =
          TableFile.open(WriteTableFiles.newFile(tableRoot, part, runId), records, toRow);
      try {
        while (batches.hasNext()) {
          for (T record : KeyedBatches.decode(batches.next(), coder)) {
            file.write(record);
          }
        }
      } catch (IOException | RuntimeException e) {
        file.abandon();
        throw e;
      }
      file.close();
      out.output(KV.of(part, file.path()));
    }
  }
}
