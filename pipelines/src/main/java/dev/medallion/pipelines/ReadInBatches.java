package dev.medallion.pipelines;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.ListCoder;
import org.apache.beam.sdk.io.Read;
import org.apache.beam.sdk.io.UnboundedSource;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.PBegin;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TimestampedValue;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * Reads an {@link UnboundedSource} as batches of up to {@code maxBatch} records, then lets each
 * record go on alone with its own timestamp.
 *
 * <p>The DirectRunner takes at most ten records from an unbounded reader per bundle, and every
 * bundle costs it the same bookkeeping downstream whatever its size; it also closes the reader (for
 * a Kafka source: its consumer) after one bundle in twenty on average. A Kafka-fed stage read about
 * 300 records/s that way. Here a bundle's element is a batch of what the reader has at hand, so the
 * same bookkeeping carries up to {@code maxBatch} records. The checkpoint is the wrapped reader's:
 * a batch is emitted whole before the next checkpoint, so no record is held back and none is
 * committed before it was emitted. The watermark is the wrapped reader's too.
 *
 * <p>A reader that has caught up finalizes its last checkpoint itself (for a Kafka source: commits
 * the consumer group's offsets up to the last record handed on). The DirectRunner finalizes a
 * reader's checkpoint only when a later bundle has records, so a stage that had read its whole
 * topic kept the last bundle's offsets uncommitted for as long as nothing new came (its progress
 * line, and any tool watching the group, showed up to 10,000 records of lag per part of the read
 * that were read long ago). The reader does it at its first call that finds nothing when no record
 * has been handed on since the runner last took a checkpoint: those records' bundle was over and
 * committed, as a runner asks before it finalizes. (Spark's runner finalizes at the end of each
 * micro-batch already; there this adds a commit of the same offsets.)
 */
public final class ReadInBatches<T> extends PTransform<PBegin, PCollection<T>> {
  private final UnboundedSource<T, ?> source;
  private final int maxBatch;

  private ReadInBatches(UnboundedSource<T, ?> source, int maxBatch) {
    if (source.requiresDeduping()) {
      throw new IllegalArgumentException("a source that needs record ids cannot be batched");
    }
    if (maxBatch < 1) {
      throw new IllegalArgumentException("maxBatch must be 1 or more");
    }
    this.source = source;
    this.maxBatch = maxBatch;
  }

  public static <T> ReadInBatches<T> of(UnboundedSource<T, ?> source, int maxBatch) {
    return new ReadInBatches<>(source, maxBatch);
  }

  @Override
  public PCollection<T> expand(PBegin begin) {
    return begin
        .apply("Read", Read.from(new Batches<>(source, maxBatch)))
        .apply("Unbatch", ParDo.of(new UnbatchFn<T>()))
        .setCoder(source.getOutputCoder());
  }

  /** Each record of a batch, at its own timestamp (never before the batch's, its earliest). */
  static class UnbatchFn<T> extends DoFn<List<TimestampedValue<T>>, T> {
    @ProcessElement
    public void process(@Element List<TimestampedValue<T>> batch, OutputReceiver<T> out) {
      for (TimestampedValue<T> record : batch) {
        out.outputWithTimestamp(record.getValue(), record.getTimestamp());
      }
    }
  }

  /** The wrapped source, its records gathered in batches. */
  static final class Batches<T, C extends UnboundedSource.CheckpointMark>
      extends UnboundedSource<List<TimestampedValue<T>>, C> {
    private final UnboundedSource<T, C> inner;
    private final int maxBatch;

    @SuppressWarnings("unchecked")
    Batches(UnboundedSource<T, ?> inner, int maxBatch) {
      this.inner = (UnboundedSource<T, C>) inner;
      this.maxBatch = maxBatch;
    }

    @Override
    public List<Batches<T, C>> split(int desiredNumSplits, PipelineOptions options)
        throws Exception {
      List<Batches<T, C>> splits = new ArrayList<>();
      for (UnboundedSource<T, C> part : inner.split(desiredNumSplits, options)) {
        splits.add(new Batches<>(part, maxBatch));
      }
      return splits;
    }

    @Override
    public UnboundedReader<List<TimestampedValue<T>>> createReader(
        PipelineOptions options, @Nullable C checkpoint) throws IOException {
      return new BatchReader<>(this, inner.createReader(options, checkpoint));
    }

    @Override
    public Coder<C> getCheckpointMarkCoder() {
      return inner.getCheckpointMarkCoder();
    }

    @Override
    public Coder<List<TimestampedValue<T>>> getOutputCoder() {
      return ListCoder.of(TimestampedValue.TimestampedValueCoder.of(inner.getOutputCoder()));
    }
  }

  /** Takes from the wrapped reader what it has at hand, up to {@code maxBatch} records. */
  static final class BatchReader<T, C extends UnboundedSource.CheckpointMark>
      extends UnboundedSource.UnboundedReader<List<TimestampedValue<T>>> {
    private final Batches<T, C> source;
    private final UnboundedSource.UnboundedReader<T> inner;
    private @Nullable List<TimestampedValue<T>> current;
    private Instant currentTimestamp = Instant.EPOCH;

    /** Whether records were handed on since the runner last took a checkpoint. */
    private boolean handedOnSinceCheckpoint;

    /** Whether the position the reader stands at has been finalized. */
    private boolean finalizedHere;

    BatchReader(Batches<T, C> source, UnboundedSource.UnboundedReader<T> inner) {
      this.source = source;
      this.inner = inner;
    }

    @Override
    public boolean start() throws IOException {
      return gather(inner.start());
    }

    @Override
    public boolean advance() throws IOException {
      return gather(inner.advance());
    }

    /** A batch from the inner reader's current record on; false when it had none. */
    private boolean gather(boolean has) throws IOException {
      List<TimestampedValue<T>> batch = new ArrayList<>();
      Instant earliest = null;
      while (has) {
        Instant at = inner.getCurrentTimestamp();
        batch.add(TimestampedValue.of(inner.getCurrent(), at));
        earliest = earliest == null || at.isBefore(earliest) ? at : earliest;
        if (batch.size() >= source.maxBatch) {
          break;
        }
        has = inner.advance();
      }
      if (batch.isEmpty()) {
        current = null;
        finalizeWhenCaughtUp();
        return false;
      }
      current = batch;
      currentTimestamp = earliest;
      handedOnSinceCheckpoint = true;
      finalizedHere = false;
      return true;
    }

    /**
     * Finalizes the position the reader stands at, once, when it has nothing new and handed on
     * nothing since the runner's last checkpoint (see the class comment).
     */
    private void finalizeWhenCaughtUp() throws IOException {
      if (!handedOnSinceCheckpoint && !finalizedHere) {
        finalizedHere = true;
        inner.getCheckpointMark().finalizeCheckpoint();
      }
    }

    @Override
    public List<TimestampedValue<T>> getCurrent() {
      if (current == null) {
        throw new NoSuchElementException();
      }
      return current;
    }

    @Override
    public Instant getCurrentTimestamp() {
      if (current == null) {
        throw new NoSuchElementException();
      }
      return currentTimestamp;
    }

    @Override
    public Instant getWatermark() {
      return inner.getWatermark();
    }

    @Override
    public UnboundedSource.CheckpointMark getCheckpointMark() {
      handedOnSinceCheckpoint = false;
      return inner.getCheckpointMark();
    }

    @Override
    public long getSplitBacklogBytes() {
      return inner.getSplitBacklogBytes();
    }

    @Override
    public long getTotalBacklogBytes() {
      return inner.getTotalBacklogBytes();
    }

    @Override
    public UnboundedSource<List<TimestampedValue<T>>, ?> getCurrentSource() {
      return source;
    }

    @Override
    public void close() throws IOException {
      inner.close();
    }
  }
}
