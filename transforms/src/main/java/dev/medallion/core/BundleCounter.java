package dev.medallion.core;

import org.apache.beam.sdk.metrics.Metrics;

/**
 * A counter of one copy of a DoFn, added up over a bundle and incremented once when the bundle ends
 * ({@link #flush}, from its {@code @FinishBundle}). The DirectRunner collects a step's metrics
 * after every element: a counter incremented for each record made it build and merge an update per
 * record (a tenth of a Kafka stage's CPU for its records in and out, JFR, 2026-12-06). Hold one per
 * DoFn, in a field; the total is the same, reported a bundle at a time.
 */
public class BundleCounter implements CountsPerBundle {
  private static final long serialVersionUID = 1L;

  private final String namespace;
  private final String name;
  private transient long count;

  public BundleCounter(String namespace, String name) {
    this.namespace = namespace;
    this.name = name;
  }

  /** One more in this bundle. */
  public void add() {
    count++;
  }

  /** Increments the counter by this bundle's count; call it when the bundle ends. */
  @Override
  public void flush() {
    if (count > 0) {
      Metrics.counter(namespace, name).inc(count);
      count = 0;
    }
  }
}
