package dev.medallion.core;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.ListCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.GlobalWindow;
import org.apache.beam.sdk.transforms.windowing.GlobalWindows;
import org.apache.beam.sdk.transforms.windowing.PartitioningWindowFn;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.TupleTagList;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * Records keyed for a grouping, in batches: each bundle's records of one key and one window (taken
 * from their timestamps, {@link #into}, or the global window, {@link #inTheGlobalWindow}) are
 * encoded together, as a list of the input's records or with a coder of the batch ({@link
 * #withBatchCoder}), into one value of at most {@link #MAX_RECORDS} records ({@link
 * #withMaxRecords}; all the open batches are handed on sooner when together they hold {@link
 * #MAX_HELD}, {@link #withMaxHeld}), stamped at the end of its window and put into it. {@link
 * #decode} gives them back.
 *
 * <p>For a bounded input grouped by few keys. A grouping step costs the DirectRunner per value, not
 * per byte: it sets timers and holds for every value, and copies every value of a key through its
 * coder whenever it reads the key's state again (a byte array is copied as it is). Grouping a batch
 * per key and window of a bundle instead of each record saves both; the records that reach each key
 * and window are the same. The batch's timestamp, the end of its window, is where a grouping puts
 * its output by default; a window's records are grouped, or dropped as expired, by their window,
 * never by their own timestamps.
 *
 * <p>Records that a step would split off before the grouping can be split off here instead ({@link
 * #rejecting}): on Spark, a step with two outputs that later steps read is kept on disk, so a split
 * of its own encodes and decodes every record it keeps once more before they are batched.
 */
public final class KeyedBatches<T>
    extends PTransform<PCollection<T>, PCollection<KV<String, byte[]>>> {
  /** The batches, in the output of {@link #rejecting}. */
  public static final TupleTag<KV<String, byte[]>> BATCHES = new TupleTag<>() {};

  /** A batch is handed on when it holds this many records, before its bundle ends. */
  public static final int MAX_RECORDS = 2_000;

  /**
   * Every open batch is handed on when together they hold this many records, before their bundle
   * ends. Spark's bundle is a whole part of the input: Gold's batches per group of devices and
   * minute rarely fill before it ends, and held every reading of the replay decoded in memory until
   * then (731,800 readings alive at once in a heap histogram of the 1M replay, and three full
   * collections of about half a second each while they were).
   */
  public static final int MAX_HELD = 20_000;

  private final SerializableFunction<T, String> key;
  private final int maxRecords;
  private final int maxHeld;
  // How a batch is encoded; null: a list of the input's records.
  private final @Nullable Coder<List<T>> coder;
  // The windows of the batches; null: the global window.
  private final @Nullable Window<KV<String, byte[]>> into;
  // Whether a batch's key names its window too (keyedPerWindow).
  private final boolean perWindow;

  private KeyedBatches(
      SerializableFunction<T, String> key,
      @Nullable Window<KV<String, byte[]>> into,
      int maxRecords,
      int maxHeld,
      @Nullable Coder<List<T>> coder,
      boolean perWindow) {
    this.key = key;
    this.into = into;
    this.maxRecords = maxRecords;
    this.maxHeld = maxHeld;
    this.coder = coder;
    this.perWindow = perWindow;
  }

  /**
   * Batches of an input in the global window per {@code key} and window of {@code window}, which
   * must partition time ({@link FixedWindows}, say): each record's window is taken from its
   * timestamp, and the batches, not the records, are windowed with {@code window}. The same batches
   * as windowing the records first, without a step run for every record.
   */
  public static <T> KeyedBatches<T> into(
      SerializableFunction<T, String> key, Window<KV<String, byte[]>> window) {
    if (!(window.getWindowFn() instanceof PartitioningWindowFn)) {
      throw new IllegalArgumentException(
          "batches go into windows that partition time, not " + window.getWindowFn());
    }
    return new KeyedBatches<>(key, window, MAX_RECORDS, MAX_HELD, null, false);
  }

  /**
   * Batches of an input in the global window per {@code key}, in the global window: each bundle's
   * records of a key, stamped at the end of the global window (where a grouping in it puts its
   * output).
   */
  public static <T> KeyedBatches<T> inTheGlobalWindow(SerializableFunction<T, String> key) {
    return new KeyedBatches<>(key, null, MAX_RECORDS, MAX_HELD, null, false);
  }

  /** At most {@code max} records to a batch instead of {@link #MAX_RECORDS}. */
  public KeyedBatches<T> withMaxRecords(int max) {
    if (max < 1) {
      throw new IllegalArgumentException("a batch holds at least one record, not " + max);
    }
    return new KeyedBatches<>(key, into, max, maxHeld, coder, perWindow);
  }

  /**
   * Every open batch handed on when together they hold {@code max} records instead of {@link
   * #MAX_HELD}.
   */
  public KeyedBatches<T> withMaxHeld(int max) {
    if (max < 1) {
      throw new IllegalArgumentException("the open batches hold at least one record, not " + max);
    }
    return new KeyedBatches<>(key, into, maxRecords, max, coder, perWindow);
  }

  /**
   * Each batch encoded whole with {@code coder} (which may write what its records repeat once per
   * batch), instead of as a list of the input's records; {@link #decodeBatch} with the same coder
   * gives them back.
   */
  public KeyedBatches<T> withBatchCoder(Coder<List<T>> coder) {
    return new KeyedBatches<>(key, into, maxRecords, maxHeld, coder, perWindow);
  }

  /**
   * Each batch's key names its window too ({@code key@} the end of the window, where the batch is
   * stamped), so that a grouping's key holds one window's batches. The grouping's keys and windows
   * pair up the same records as without it.
   *
   * <p>For a bounded input on Spark: Beam's Spark runner groups a batch job by key first and then
   * by window, with every value of a key, of all its windows, in memory at once. Gold's groups of
   * devices kept every minute of their devices there: the IoT replay of 7,964,551 events (1,000
   * devices over 488 minutes) ran out of memory with {@code -Xmx2g} in Gold's join, where the
   * DirectRunner finished it; with the minute in the key it finished on Spark, Gold equal (see
   * bench/HISTORY.md).
   */
  public KeyedBatches<T> keyedPerWindow() {
    if (into == null) {
      throw new IllegalStateException("batches in the global window have no window to key by");
    }
    return new KeyedBatches<>(key, into, maxRecords, maxHeld, coder, true);
  }

  /**
   * The same batches of the records for which {@code reject} gives null; each other record goes to
   * {@code rejected} as what {@code reject} gave for it, in the global window. The output holds
   * {@link #BATCHES} and {@code rejected}. A {@code reject} that counts per bundle ({@link
   * CountsPerBundle}) is flushed when each bundle ends.
   */
  public <R> Rejecting<T, R> rejecting(
      TupleTag<R> rejected, SerializableFunction<T, @Nullable R> reject) {
    return new Rejecting<>(this, rejected, reject);
  }

  @Override
  public PCollection<KV<String, byte[]>> expand(PCollection<T> records) {
    return batch(records, null, null).get(BATCHES);
  }

  /** The batches ({@link #BATCHES}), and what {@code reject} turned away ({@code rejected}). */
  private <R> PCollectionTuple batch(
      PCollection<T> records,
      @Nullable TupleTag<R> rejected,
      @Nullable SerializableFunction<T, @Nullable R> reject) {
    if (!(records.getWindowingStrategy().getWindowFn() instanceof GlobalWindows)) {
      throw new IllegalArgumentException(
          "records to batch into windows are in the global window, not "
              + records.getWindowingStrategy().getWindowFn());
    }
    PCollectionTuple out =
        records.apply(
            ParDo.of(
                    new BatchFn<>(
                        key,
                        coder == null ? ListCoder.of(records.getCoder()) : coder,
                        maxRecords,
                        maxHeld,
                        into == null ? null : (PartitioningWindowFn<?, ?>) into.getWindowFn(),
                        perWindow,
                        rejected,
                        reject))
                .withOutputTags(
                    BATCHES, rejected == null ? TupleTagList.empty() : TupleTagList.of(rejected)));
    PCollection<KV<String, byte[]>> batches =
        out.get(BATCHES).setCoder(KvCoder.of(StringUtf8Coder.of(), BatchBytesCoder.of()));
    PCollectionTuple result =
        PCollectionTuple.of(BATCHES, into == null ? batches : batches.apply(into));
    return rejected == null ? result : result.and(rejected, out.get(rejected));
  }

  /** {@link KeyedBatches} that turns some records away ({@link #rejecting}). */
  public static final class Rejecting<T, R> extends PTransform<PCollection<T>, PCollectionTuple> {
    private final KeyedBatches<T> batches;
    private final TupleTag<R> rejected;
    private final SerializableFunction<T, @Nullable R> reject;

    private Rejecting(
        KeyedBatches<T> batches,
        TupleTag<R> rejected,
        SerializableFunction<T, @Nullable R> reject) {
      this.batches = batches;
      this.rejected = rejected;
      this.reject = reject;
    }

    @Override
    public PCollectionTuple expand(PCollection<T> records) {
      return batches.batch(records, rejected, reject);
    }
  }

  /** The records of a batch, in the order they came. */
  public static <T> List<T> decode(byte[] batch, Coder<T> coder) {
    return decodeBatch(batch, ListCoder.of(coder));
  }

  /** The records of a batch encoded whole ({@link #withBatchCoder}), in the order they came. */
  public static <T> List<T> decodeBatch(byte[] batch, Coder<List<T>> coder) {
    try {
      return CoderUtils.decodeFromByteArray(coder, batch);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A bundle's open batches, by key and window, handed on (still in the global window) when full,
   * all of them when together they hold the most allowed, and when the bundle ends.
   */
  static final class BatchFn<T, R> extends DoFn<T, KV<String, byte[]>> {
    private final SerializableFunction<T, String> key;
    private final Coder<List<T>> coder;
    private final int maxRecords;
    private final int maxHeld;
    private final @Nullable PartitioningWindowFn<?, ?> windows;
    private final boolean perWindow;
    private final @Nullable TupleTag<R> rejected;
    private final @Nullable SerializableFunction<T, @Nullable R> reject;
    private transient Map<KV<String, BoundedWindow>, List<T>> open;
    // The records in the open batches.
    private transient int held;

    BatchFn(
        SerializableFunction<T, String> key,
        Coder<List<T>> coder,
        int maxRecords,
        int maxHeld,
        @Nullable PartitioningWindowFn<?, ?> windows,
        boolean perWindow,
        @Nullable TupleTag<R> rejected,
        @Nullable SerializableFunction<T, @Nullable R> reject) {
      this.key = key;
      this.coder = coder;
      this.maxRecords = maxRecords;
      this.maxHeld = maxHeld;
      this.windows = windows;
      this.perWindow = perWindow;
      this.rejected = rejected;
      this.reject = reject;
    }

    @StartBundle
    public void start() {
      open = new LinkedHashMap<>();
      held = 0;
    }

    @ProcessElement
    public void process(@Element T record, @Timestamp Instant timestamp, MultiOutputReceiver out) {
      if (reject != null && rejected != null) {
        R turnedAway = reject.apply(record);
        if (turnedAway != null) {
          out.get(rejected).output(turnedAway);
          return;
        }
      }
      BoundedWindow batchWindow =
          windows == null ? GlobalWindow.INSTANCE : windows.assignWindow(timestamp);
      KV<String, BoundedWindow> at = KV.of(key.apply(record), batchWindow);
      List<T> batch = open.computeIfAbsent(at, k -> new ArrayList<>());
      batch.add(record);
      held++;
      if (batch.size() >= maxRecords) {
        open.remove(at);
        held -= batch.size();
        out.get(BATCHES)
            .outputWithTimestamp(KV.of(keyOf(at), encode(batch)), batchWindow.maxTimestamp());
      }
      if (held >= maxHeld) {
        handOnAll((encoded, end) -> out.get(BATCHES).outputWithTimestamp(encoded, end));
      }
    }

    /**
     * A batch of an earlier window than the record that filled the open batches is stamped earlier
     * than that record; it is never earlier than its own records.
     */
    @Override
    public Duration getAllowedTimestampSkew() {
      return EventTimestamps.ANY_EARLIER;
    }

    @FinishBundle
    public void finish(FinishBundleContext c) {
      handOnAll((encoded, end) -> c.output(BATCHES, encoded, end, GlobalWindow.INSTANCE));
      if (reject instanceof CountsPerBundle counts) {
        counts.flush();
      }
    }

    /** Every open batch, encoded, to {@code out} with the end of its window; none stays open. */
    private void handOnAll(BiConsumer<KV<String, byte[]>, Instant> out) {
      open.forEach(
          (at, batch) -> out.accept(KV.of(keyOf(at), encode(batch)), at.getValue().maxTimestamp()));
      open.clear();
      held = 0;
    }

    /**
     * The key a batch is handed on with: its records' key, and with {@link #keyedPerWindow} the end
     * of its window too (made once per batch, not per record).
     */
    private String keyOf(KV<String, BoundedWindow> at) {
      return perWindow ? at.getKey() + "@" + at.getValue().maxTimestamp().getMillis() : at.getKey();
    }

    private byte[] encode(List<T> batch) {
      try {
        return CoderUtils.encodeToByteArray(coder, batch);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
