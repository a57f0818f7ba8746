package dev.medallion.core;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Counters for records a stage keeps or rejects. Every rejection is counted twice: in {@code
 * <stage>/rejected} and in {@code <stage>/rejected_<reason>}, so the progress line and the final
 * report can show both the total and the reasons. A stage that counts through {@link Examples} also
 * keeps an example of each reason (a string-set metric {@code <stage>_example_<reason>}), so the
 * final report can show what a rejected record looked like.
 */
public final class Rejections {
  private Rejections() {}

  public static final String NAMESPACE = "medallion";

  /** The infix of an example's metric name: {@code <stage>_example_<reason>}. */
  public static final String EXAMPLE = "_example_";

  /** How much of a payload and of a detail an example keeps. */
  static final int EXAMPLE_CHARS = 160;

  public static Counter accepted(String stage) {
    return Metrics.counter(NAMESPACE, acceptedName(stage));
  }

  private static String acceptedName(String stage) {
    return stage + "_accepted";
  }

  /**
   * The {@code <stage>_accepted} counter of one copy of a DoFn, added up over a bundle ({@link
   * BundleCounter}).
   */
  public static final class Accepted extends BundleCounter {
    private static final long serialVersionUID = 2L;

    public Accepted(String stage) {
      super(NAMESPACE, acceptedName(stage));
    }
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

  /**
   * An example as the metric holds it: source, payload and detail separated by tabs (tabs and line
   * breaks inside them are spaces), each cut to {@link #EXAMPLE_CHARS}.
   */
  static String example(DeadLetter d) {
    return cut(d.getSource()) + "\t" + cut(d.getOriginalPayload()) + "\t" + cut(d.getDetail());
  }

  private static String cut(String s) {
    String flat = s.replace('\t', ' ').replace('\n', ' ').replace('\r', ' ');
    return flat.length() <= EXAMPLE_CHARS ? flat : flat.substring(0, EXAMPLE_CHARS - 1) + "…";
  }

  /**
   * Counts a DoFn's rejections and keeps, as an example, the first record of each reason that this
   * instance of the DoFn rejects: a few examples per reason in all (one per DoFn instance), never
   * one per record. The counts and the new examples are added up over a bundle and reach the
   * metrics when it ends ({@link #flush}, from the DoFn's {@code @FinishBundle}), as {@link
   * BundleCounter}'s do: once a step has touched a metric in a bundle, the DirectRunner gathers its
   * metrics after every element that follows. Hold one per DoFn, in a field.
   */
  public static final class Examples implements CountsPerBundle {
    private static final long serialVersionUID = 2L;

    /** Reasons of a stage beyond this many get counted but no example. */
    private static final int MAX_REASONS = 64;

    // The reasons this instance has kept an example of, over all its bundles.
    private transient @Nullable Set<String> kept;
    // This bundle's counts by counter name, and its new examples by string-set name.
    private transient @Nullable Map<String, long[]> counts;
    private transient @Nullable Map<String, String> examples;

    /** Counts {@code letter}'s rejection under {@code stage}, and keeps it if it is the first. */
    public void count(String stage, DeadLetter letter) {
      String code = reasonCode(letter.getReason());
      if (counts == null || examples == null || kept == null) {
        // the first rejection of this copy of the DoFn (the fields are not serialized)
        counts = new LinkedHashMap<>();
        examples = new LinkedHashMap<>();
        kept = new HashSet<>();
      }
      counts.computeIfAbsent(stage + "_rejected", name -> new long[1])[0]++;
      counts.computeIfAbsent(stage + "_rejected_" + code, name -> new long[1])[0]++;
      if (kept.size() < MAX_REASONS && kept.add(stage + "/" + code)) {
        examples.put(stage + EXAMPLE + code, example(letter));
      }
    }

    /** Adds this bundle's counts and examples to the metrics; call it when the bundle ends. */
    @Override
    public void flush() {
      if (counts != null && examples != null) {
        counts.forEach((name, n) -> Metrics.counter(NAMESPACE, name).inc(n[0]));
        examples.forEach((name, example) -> Metrics.stringSet(NAMESPACE, name).add(example));
        counts.clear();
        examples.clear();
      }
    }
  }
}
