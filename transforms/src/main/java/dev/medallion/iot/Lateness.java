package dev.medallion.iot;

import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * When a record is too late for its window. A record arrives at {@code receivedAt} on its source's
 * event-time clock (the clock the source's watermark follows). Beam would drop it when the
 * watermark has passed the end of its window plus the allowed lateness; Medallion decides that
 * itself, from the record alone, before the grouping: too late iff {@code window.maxTimestamp() +
 * allowedLateness < receivedAt}. The decision is therefore the same on every runner and in every
 * run, and a too-late record becomes a {@code too_late} dead letter instead of vanishing. Records
 * with no arrival clock (a replay of files) are never too late.
 */
public final class Lateness {
  private Lateness() {}

  public static boolean isTooLate(
      Instant eventTs, @Nullable Instant receivedAt, Duration windowSize, Duration allowed) {
    if (receivedAt == null) {
      return false;
    }
    IntervalWindow window = FixedWindows.of(windowSize).assignWindow(eventTs);
    return window.maxTimestamp().plus(allowed).isBefore(receivedAt);
  }
}
