package dev.medallion.pipelines;

import dev.medallion.core.Rejections;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.metrics.MetricNameFilter;
import org.apache.beam.sdk.metrics.MetricQueryResults;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.MetricsFilter;
import org.apache.beam.sdk.metrics.StringSetResult;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Duration;

/**
 * A live progress line on stderr, from Beam metrics once a second: events per second into Bronze
 * and each layer's kept and rejected counts.
 */
public final class Progress {
  /** Records a stage read from Kafka, and records it forwarded to the next stage's topic. */
  public static final String KAFKA_IN = "kafka_records_in";

  public static final String KAFKA_OUT = "kafka_records_out";

  private final Thread thread;
  private final @Nullable KafkaLag lag;
  private final @Nullable Supplier<Map<String, Long>> written;
  private volatile boolean running = true;

  private Progress(
      PipelineResult result,
      @Nullable KafkaLag lag,
      @Nullable Supplier<Map<String, Long>> written) {
    this.lag = lag;
    this.written = written;
    thread = new Thread(() -> loop(result), "medallion-progress");
    thread.setDaemon(true);
  }

  /**
   * Runs {@code pipeline} and waits for its end, with the live progress line on stderr meanwhile. A
   * failed job throws (Beam's exception), as {@code waitUntilFinish} does, once none of its work is
   * still running in this JVM ({@link RunnerWorkers#stopAfterFailure}).
   */
  public static PipelineResult runAndWait(Pipeline pipeline) {
    return runAndWait(pipeline, null, null);
  }

  /**
   * As {@link #runAndWait(Pipeline)}, a Kafka-fed stage's line also with its group's lag ({@code
   * lag}, or null). On Spark, whose counters a recomputed or retried task increments again, the
   * line's per-layer counts are those of the table files the job has written (or, for a stream,
   * committed) so far, as {@code written} counts them every {@link #FILES_EVERY} seconds, counter
   * names as keys; without it, and on other runners, the counters'.
   */
  static PipelineResult runAndWait(
      Pipeline pipeline, @Nullable KafkaLag lag, @Nullable Supplier<Map<String, Long>> written) {
    boolean spark = RunnerDefaults.isSpark(pipeline.getOptions());
    PipelineResult result;
    try {
      result = pipeline.run();
    } catch (RuntimeException | Error e) {
      RunnerWorkers.stopAfterFailure(null, RunnerWorkers.WAIT_MILLIS);
      throw e;
    }
    Progress progress = new Progress(result, lag, spark ? written : null);
    progress.thread.start();
    boolean done = false;
    try {
      PipelineResult ended;
      if (SparkStreamingEnd.applies(result)) {
        ended = SparkStreamingEnd.await(result, settle(pipeline));
      } else {
        result.waitUntilFinish();
        ended = result;
      }
      done = ended.getState() == PipelineResult.State.DONE;
      return ended;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      if (!done) {
        // The caller deletes what a failed job wrote: nothing of the job may still be writing.
        RunnerWorkers.stopAfterFailure(result, RunnerWorkers.WAIT_MILLIS);
      }
      progress.stop();
    }
  }

  /**
   * How long a Spark streaming job runs on after its sources ended: two flushes of the table
   * writers ({@code --flushSeconds}) and two seconds more, so the last files are written and
   * committed.
   */
  private static Duration settle(Pipeline pipeline) {
    IotOptions o = pipeline.getOptions().as(IotOptions.class);
    return Duration.standardSeconds(2L * o.getFlushSeconds() + 2);
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
    // {nanos, records in, records out} of the last samples: the Kafka rates are taken over up to
    // RATE_WINDOW seconds, because a runner that commits its metrics per micro-batch (Spark)
    // moves them in jumps, and a rate from one second to the next would read 0 between them.
    java.util.ArrayDeque<long[]> kafkaSamples = new java.util.ArrayDeque<>();
    Long lagNow = null;
    long awaySince = -1;
    java.util.Set<String> gone = new java.util.HashSet<>();
    java.util.Set<String> missedBefore = new java.util.HashSet<>();
    long lastNanos = startNanos;
    Map<String, Long> inFiles = Map.of();
    long filesAt = startNanos - FILES_EVERY * 1_000_000_000L; // the first count at once
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
      if (written != null) {
        if (System.nanoTime() - filesAt >= FILES_EVERY * 1_000_000_000L) {
          filesAt = System.nanoTime();
          try {
            inFiles = written.get();
          } catch (RuntimeException e) {
            // the tables cannot be read just now: the last counts stand
          }
        }
        c.putAll(inFiles);
      }
      boolean users = c.keySet().stream().anyMatch(k -> k.startsWith("bronze_user_"));
      String bronze = users ? "bronze_user" : "bronze";
      long in = c.getOrDefault(bronze + "_accepted", 0L) + c.getOrDefault(bronze + "_rejected", 0L);
      long now = System.nanoTime();
      double seconds = (now - lastNanos) / 1e9;
      double rate = (in - lastIn) / seconds;
      lastIn = in;
      lastNanos = now;
      long elapsed = (now - startNanos) / 1_000_000_000L;
      if (lag != null) {
        long kafkaIn = c.getOrDefault(KAFKA_IN, 0L);
        long kafkaOut = c.getOrDefault(KAFKA_OUT, 0L);
        if (elapsed % 2 == 0) {
          KafkaLag.Look look = lag.look();
          lagNow = look.lag();
          if (!look.answered() && awaySince < 0 && elapsed > 2) {
            awaySince = elapsed;
            System.err.printf(
                Locale.ROOT,
                "%nkafka: the broker at %s does not answer; the stage waits for it (nothing it"
                    + " read is lost) and goes on when it is back%n",
                lag.servers());
          } else if (look.answered()) {
            if (awaySince >= 0) {
              System.err.printf(
                  Locale.ROOT,
                  "%nkafka: the broker at %s answers again (after %d s)%n",
                  lag.servers(),
                  elapsed - awaySince);
              awaySince = -1;
            }
            List<String> recreated = new java.util.ArrayList<>(look.recreated());
            recreated.removeAll(gone); // said gone before: now said back
            topicsGone(lag, gone, missedBefore, look.missing());
            topicsRecreated(lag, recreated);
          }
        }
        System.err.printf(
            Locale.ROOT,
            "\r[%4ds] in %6.0f rec/s, lag %s | out %6.0f rec/s | ",
            elapsed,
            perSecond(kafkaSamples, 1, kafkaIn, now),
            lagNow == null ? "?" : lagNow.toString(),
            perSecond(kafkaSamples, 2, kafkaOut, now));
        kafkaSamples.addLast(new long[] {now, kafkaIn, kafkaOut});
        while (kafkaSamples.size() > RATE_WINDOW) {
          kafkaSamples.removeFirst();
        }
      } else {
        System.err.printf(Locale.ROOT, "\r[%4ds] %7.0f ev/s | ", elapsed, rate);
      }
      System.err.print(users ? usersLine(c) : iotLine(c));
    }
  }

  /**
   * Says which of the stage's topics were deleted under it ({@code missing}, as the broker answered
   * now and at the look before: a broker of a cluster may not know a new topic for a moment) or
   * exist again since ({@code gone}: those said before), and stops the stage cleanly when its input
   * topic is gone: a topic created again under that name numbers its records from 0 again, and
   * Bronze names a record by its topic, partition and offset.
   *
   * @param missedBefore the topics missing at the look before, updated to those missing now
   */
  private static void topicsGone(
      KafkaLag lag,
      java.util.Set<String> gone,
      java.util.Set<String> missedBefore,
      List<String> missing) {
    for (String topic : missing) {
      if (!missedBefore.contains(topic) || !gone.add(topic)) {
        continue;
      }
      happened(
          lag,
          topic,
          named(lag, topic)
              + " does not exist on "
              + lag.servers()
              + " any more (deleted under the stage)",
          "forwarding waits until it exists again, then sends what the stage keeps meanwhile"
              + " (nothing it read is lost; what the topic held is gone with it). Ctrl-C waits for"
              + " it too; Ctrl-C twice stops at once");
    }
    missedBefore.clear();
    missedBefore.addAll(missing);
    for (java.util.Iterator<String> it = gone.iterator(); it.hasNext(); ) {
      String topic = it.next();
      if (!missing.contains(topic)) {
        it.remove();
        System.err.printf(
            Locale.ROOT, "%nkafka: %s exists again on %s%n", named(lag, topic), lag.servers());
      }
    }
  }

  /** {@code topic (--flag)}: a topic of the stage, with the flag that named it. */
  private static String named(KafkaLag lag, String topic) {
    return "topic " + topic + " (" + lag.flag(topic) + ")";
  }

  /**
   * Says {@code what} happened to {@code topic}: its input topic stops the stage cleanly, its
   * output topic goes on as {@code forwarding} says.
   */
  private static void happened(KafkaLag lag, String topic, String what, String forwarding) {
    if (topic.equals(lag.inputTopic())) {
      System.err.printf(
          Locale.ROOT, "%nkafka: %s: the stage stops; what it read is committed first%n", what);
      CleanStop.because("Kafka " + what + "; it stopped, after committing what it had read");
    } else {
      System.err.printf(Locale.ROOT, "%nkafka: %s: %s%n", what, forwarding);
    }
  }

  /**
   * Says which of the stage's topics were deleted and created again since the look before (the same
   * name, another id), and stops the stage cleanly when it is its input topic, as when it is gone.
   */
  private static void topicsRecreated(KafkaLag lag, List<String> recreated) {
    for (String topic : recreated) {
      happened(
          lag,
          topic,
          named(lag, topic)
              + " on "
              + lag.servers()
              + " was deleted and created again under the stage",
          "forwarding goes on into it (what the topic held is gone with it)");
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

  /** How often, in seconds, the line counts the table files on Spark. */
  static final int FILES_EVERY = 5;

  /** Seconds of samples the Kafka rates of the progress line are taken over, at most. */
  static final int RATE_WINDOW = 10;

  /**
   * Records per second of the {@code column} of {@code samples} ({@code {nanos, in, out}}, oldest
   * first), from the oldest sample to {@code value} at {@code now}; 0 without samples.
   */
  static double perSecond(java.util.Deque<long[]> samples, int column, long value, long now) {
    if (samples.isEmpty()) {
      return 0;
    }
    long[] oldest = samples.peekFirst();
    double seconds = (now - oldest[0]) / 1e9;
    return seconds <= 0 ? 0 : (value - oldest[column]) / seconds;
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
