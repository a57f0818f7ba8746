package dev.medallion.core;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.coders.ByteArrayCoder;
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
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * Records keyed for a grouping, in batches: each bundle's records of one key and one window (taken
 * from their timestamps, {@link #into}, or the global window, {@link #inTheGlobalWindow}) are
 * encoded together, with the input's coder or one given ({@link #withCoder}), into one value of at
 * most {@link #MAX_RECORDS} records ({@link #withMaxRecords}), stamped at the end of its window and
 * put into it. {@link #decode} gives them back.
 *
 * <p>For a bounded input grouped by few keys. A grouping step costs the DirectRunner per value, not
 * per byte: it sets timers and holds for every value, and copies every value of a key through its
 * coder whenever it reads the key's state again (a byte array is copied as it is). Grouping a batch
 * per key and window of a bundle instead of each record saves both; the records that reach each key
 * and window are the same. The batch's timestamp, the end of its window, is where a grouping puts
 * its output by default; a window's records are grouped, or dropped as expired, by their window,
 * never by their own timestamps.
 */
public final class KeyedBatches<T>
    extends PTransform<PCollection<T>, PCollection<KV<String, byte[]>>> {
  /** A batch is handed on when it holds this many records, before its bundle ends. */
  public static final int MAX_RECORDS = 2_000;

  private final SerializableFunction<T, String> key;
  private final int maxRecords;
  private final @Nullable Coder<T> coder;
  // The windows of the batches; null: the global window.
  private final @Nullable Window<KV<String, byte[]>> into;

  private KeyedBatches(
      SerializableFunction<T, String> key,
      @Nullable Window<KV<String, byte[]>> into,
      int maxRecords,
      @Nullable Coder<T> coder) {
    this.key = key;
    this.into = into;
    this.maxRecords = maxRecords;
    this.coder = coder;
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
    return new KeyedBatches<>(key, window, MAX_RECORDS, null);
  }

  /**
   * Batches of an input in the global window per {@code key}, in the global window: each bundle's
   * records of a key, stamped at the end of the global window (where a grouping in it puts its
   * output).
   */
  public static <T> KeyedBatches<T> inTheGlobalWindow(SerializableFunction<T, String> key) {
    return new KeyedBatches<>(key, null, MAX_RECORDS, null);
  }

  /** At most {@code max} records to a batch instead of {@link #MAX_RECORDS}. */
  public KeyedBatches<T> withMaxRecords(int max) {
    if (max < 1) {
      throw new IllegalArgumentException("a batch holds at least one record, not " + max);
    }
    return new KeyedBatches<>(key, into, max, coder);
  }

  /** The records encoded with {@code coder} instead of the input's coder. */
  public KeyedBatches<T> withCoder(Coder<T> coder) {
    return new KeyedBatches<>(key, into, maxRecords, coder);
  }

  @Override
  public PCollection<KV<String, byte[]>> expand(PCollection<T> records) {
    if (!(records.getWindowingStrategy().getWindowFn() instanceof GlobalWindows)) {
      throw new IllegalArgumentException(
          "records to batch into windows are in the global window, not "
              + records.getWindowingStrategy().getWindowFn());
    }
    PCollection<KV<String, byte[]>> batches =
        records
            .apply(
                ParDo.of(
                    new BatchFn<>(
                        key,
                        ListCoder.of(coder == null ? records.getCoder() : coder),
                        maxRecords,
                        into == null ? null : (PartitioningWindowFn<?, ?>) into.getWindowFn())))
            .setCoder(KvCoder.of(StringUtf8Coder.of(), ByteArrayCoder.of()));
    return into == null ? batches : batches.apply(into);
  }

  /** The records of a batch, in the order they came. */
  public static <T> List<T> decode(byte[] batch, Coder<T> coder) {
    try {
      return CoderUtils.decodeFromByteArray(ListCoder.of(coder), batch);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A bundle's open batches, by key and window, handed on (still in the global window) when full
   * and when the bundle ends.
   */
  static final class BatchFn<T> extends DoFn<T, KV<String, byte[]>> {
    private final SerializableFunction<T, String> key;
    private final ListCoder<T> coder;
    private final int maxRecords;
    private final @Nullable PartitioningWindowFn<?, ?> windows;
    private transient Map<KV<String, BoundedWindow>, List<T>> open;

    BatchFn(
        SerializableFunction<T, String> key,
        ListCoder<T> coder,
        int maxRecords,
        @Nullable PartitioningWindowFn<?, ?> windows) {
      this.key = key;
      this.coder = coder;
      this.maxRecords = maxRecords;
      this.windows = windows;
    }

    @StartBundle
    public void start() {
      open = new LinkedHashMap<>();
    }

    @ProcessElement
    public void process(
        @Element T record, @Timestamp Instant timestamp, OutputReceiver<KV<String, byte[]>> out) {
      BoundedWindow batchWindow =
          windows == null ? GlobalWindow.INSTANCE : windows.assignWindow(timestamp);
      KV<String, BoundedWindow> at = KV.of(key.apply(record), batchWindow);
      List<T> batch = open.computeIfAbsent(at, k -> new ArrayList<>());
      batch.add(record);
      if (batch.size() >= maxRecords) {
        open.remove(at);
        out.outputWithTimestamp(KV.of(at.getKey(), encode(batch)), batchWindow.maxTimestamp());
      }
    }

    @FinishBundle
    public void finish(FinishBundleContext c) {
      open.forEach(
          (at, batch) -> {
            BoundedWindow window = at.getValue();
            c.output(
                KV.of(at.getKey(), encode(batch)), window.maxTimestamp(), GlobalWindow.INSTANCE);
          });
      open.clear();
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
