package dev.medallion.pipelines;

import dev.medallion.core.Rejections;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.metrics.MetricNameFilter;
import org.apache.beam.sdk.metrics.MetricQueryResults;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.MetricsFilter;
import org.apache.beam.sdk.metrics.StringSetResult;

/**
 * A live progress line on stderr, from Beam metrics once a second: events per second into Bronze
 * and each layer's kept and rejected counts.
 */
public final class Progress {
  private final Thread thread;
  private volatile boolean running = true;

  private Progress(PipelineResult result) {
    thread = new Thread(() -> loop(result), "medallion-progress");
    thread.setDaemon(true);
  }

  /**
   * Runs {@code pipeline} and waits for its end, with the live progress line on stderr meanwhile. A
   * failed job throws (Beam's exception), as {@code waitUntilFinish} does.
   */
  public static PipelineResult runAndWait(Pipeline pipeline) {
    PipelineResult result = pipeline.run();
    Progress progress = new Progress(result);
    progress.thread.start();
    try {
      result.waitUntilFinish();
      return result;
    } finally {
      progress.stop();
    }
  }

  private void stop() {
    running = false;
    thread.interrupt();
    try {
      thread.join(2000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    System.err.println();
  }

  private void loop(PipelineResult result) {
    long startNanos = System.nanoTime();
    long lastIn = 0;
    long lastNanos = startNanos;
    while (running) {
      try {
        Thread.sleep(1000);
      } catch (InterruptedException e) {
        return;
      }
      Map<String, Long> c;
      try {
        c = counters(result);
      } catch (RuntimeException e) {
        continue; // metrics not available yet
      }
      boolean users = c.keySet().stream().anyMatch(k -> k.startsWith("bronze_user_"));
      String bronze = users ? "bronze_user" : "bronze";
      long in = c.getOrDefault(bronze + "_accepted", 0L) + c.getOrDefault(bronze + "_rejected", 0L);
      long now = System.nanoTime();
      double rate = (in - lastIn) / ((now - lastNanos) / 1e9);
      lastIn = in;
      lastNanos = now;
      System.err.printf(
          Locale.ROOT, "\r[%4ds] %7.0f ev/s | ", (now - startNanos) / 1_000_000_000L, rate);
      System.err.print(users ? usersLine(c) : iotLine(c));
    }
  }

  private static String iotLine(Map<String, Long> c) {
    return String.format(
        Locale.ROOT,
        "bronze %d kept %d dead | silver %d kept %d quarantined | gold %d device-min rows %d too late   ",
        c.getOrDefault("bronze_accepted", 0L),
        c.getOrDefault("bronze_rejected", 0L),
        c.getOrDefault("silver_accepted", 0L),
        c.getOrDefault("silver_rejected", 0L),
        c.getOrDefault("gold_device_minute_rows", 0L),
        c.getOrDefault("gold_rejected", 0L));
  }

  private static String usersLine(Map<String, Long> c) {
    return String.format(
        Locale.ROOT,
        "bronze %d rows %d dead | silver %d kept %d quarantined %d duplicates | gold %d user rows   ",
        c.getOrDefault("bronze_user_accepted", 0L),
        c.getOrDefault("bronze_user_rejected", 0L),
        c.getOrDefault("silver_user_accepted", 0L),
        c.getOrDefault("silver_user_rejected", 0L),
        c.getOrDefault("silver_user_duplicates", 0L),
        c.getOrDefault("gold_user_features_rows", 0L));
  }

  /**
   * One example of each rejection reason ({@link Rejections.Examples}): {@code <stage>_<reason>} →
   * source, payload and detail, tab-separated; of several, the first in order of source.
   */
  public static Map<String, String> examples(PipelineResult result) {
    MetricQueryResults q = medallionMetrics(result);
    Map<String, String> out = new TreeMap<>();
    for (MetricResult<StringSetResult> r : q.getStringSets()) {
      String name = r.getName().getName();
      int at = name.indexOf(Rejections.EXAMPLE);
      if (at < 0) {
        continue;
      }
      String key = name.substring(0, at) + "_" + name.substring(at + Rejections.EXAMPLE.length());
      for (String example : r.getAttempted().getStringSet()) {
        out.merge(key, example, (a, b) -> a.compareTo(b) <= 0 ? a : b);
      }
    }
    return out;
  }

  /** Every Medallion counter by name (attempted values: all runners report them). */
  public static Map<String, Long> counters(PipelineResult result) {
    MetricQueryResults q = medallionMetrics(result);
    Map<String, Long> out = new HashMap<>();
    for (MetricResult<Long> r : q.getCounters()) {
      out.merge(r.getName().getName(), r.getAttempted(), Long::sum);
    }
    return out;
  }

  private static MetricQueryResults medallionMetrics(PipelineResult result) {
    return result
        .metrics()
        .queryMetrics(
            MetricsFilter.builder()
                .addNameFilter(MetricNameFilter.inNamespace(Rejections.NAMESPACE))
                .build());
  }
}
