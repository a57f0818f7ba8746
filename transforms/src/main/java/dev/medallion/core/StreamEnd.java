package dev.medallion.core;

import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.GlobalWindow;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * The watermark a stream's source reports once it has nothing more to give (the generator after its
 * duration, a Kafka read when idle or asked to stop).
 *
 * <p>On the DirectRunner: the end of time, which ends the job once every step has caught up. On the
 * SparkRunner: one day before the end of the global window. Spark's runner gives every step of a
 * micro-batch the sources' watermark, so at the end of time the global window of the stream's
 * writes (the files of each flush, gathered to be committed) would already be over while the last
 * panes' files are still on their way: the runner drops them, and their rows were written but never
 * committed (two Bronze rows of 967 in a 3-minute live run on Spark {@code local[2]}). A day short
 * of it, every event-time window still closes and fires, the writes' window stays open, and the
 * driver stops the job once the last flushes are committed ({@code SparkStreamingEnd}).
 */
public final class StreamEnd {
  private StreamEnd() {}

  /** A Spark stream's last watermark. */
  public static final Instant ON_SPARK =
      GlobalWindow.INSTANCE.maxTimestamp().minus(Duration.standardDays(1));

  /** The last watermark of a stream on Spark ({@code spark}) or on another runner. */
  public static Instant watermark(boolean spark) {
    return spark ? ON_SPARK : BoundedWindow.TIMESTAMP_MAX_VALUE;
  }
}
