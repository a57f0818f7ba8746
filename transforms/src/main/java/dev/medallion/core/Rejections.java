package dev.medallion.core;

import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;

/**
 * Counters for records a stage keeps or rejects. Every rejection is counted twice: in {@code
 * <stage>/rejected} and in {@code <stage>/rejected_<reason>}, so the progress line and the final
 * report can show both the total and the reasons.
 */
public final class Rejections {
  private Rejections() {}

  public static final String NAMESPACE = "medallion";

  public static Counter accepted(String stage) {
    return Metrics.counter(NAMESPACE, stage + "_accepted");
  }

  public static void count(String stage, String reason) {
    Metrics.counter(NAMESPACE, stage + "_rejected").inc();
    Metrics.counter(NAMESPACE, stage + "_rejected_" + reasonCode(reason)).inc();
  }

  /** The reason without its field suffix: {@code out_of_range:value} counts as out_of_range. */
  public static String reasonCode(String reason) {
    int colon = reason.indexOf(':');
    return colon < 0 ? reason : reason.substring(0, colon);
  }
}
