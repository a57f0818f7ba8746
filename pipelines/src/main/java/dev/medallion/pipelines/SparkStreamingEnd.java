package dev.medallion.pipelines;

import dev.medallion.core.Failures;
import dev.medallion.core.StreamEnd;
import java.io.IOException;
import java.util.Map;
import org.apache.beam.runners.spark.util.GlobalWatermarkHolder;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.metrics.MetricResults;
import org.joda.time.Duration;

/**
 * Ends a Spark streaming job once its input is done. Spark's streaming context runs until it is
 * stopped, even after every source has said it has nothing more (the generator after {@code
 * --durationMinutes}, a Kafka stage at {@code --idleStopSeconds} or on Ctrl-C): each of them then
 * reports the last watermark of a stream on Spark ({@link StreamEnd#ON_SPARK}). The driver sees the
 * sources' watermarks (the Spark runner's {@code GlobalWatermarkHolder}); once all of them are
 * there, a few more micro-batches fire the last windows and flush and commit the last files, and
 * then the job is stopped gracefully (Spark finishes the batch in flight). Such a job has ended as
 * a job that read all its input: {@link PipelineResult.State#DONE}.
 */
final class SparkStreamingEnd {
  /** Micro-batches completed after the sources ended, before the job is stopped. */
  static final int SETTLE_BATCHES = 4;

  /**
   * Micro-batches in a row without a new table commit before the job is stopped: under load the
   * last flushes may still be on their way to their commit after {@link #SETTLE_BATCHES} (a CI run
   * on 2026-12-04 found a live run's Silver readings never committed).
   */
  static final int QUIET_BATCHES = 2;

  /** The most micro-batches waited for after the sources ended, quiet or not. */
  static final int MAX_SETTLE_BATCHES = 16;

  private SparkStreamingEnd() {}

  /** Whether {@code result} is a Spark streaming job's. */
  static boolean applies(PipelineResult result) {
    return result
        .getClass()
        .getName()
        .startsWith("org.apache.beam.runners.spark.SparkPipelineResult$Streaming");
  }

  /** Waits for the end of the sources, lets the last batches run, and stops the job. */
  static PipelineResult await(PipelineResult result, Duration settle) throws IOException {
    boolean ended = false;
    int batchesSince = 0;
    int quietBatches = 0;
    long lastBatch = -1;
    long lastCommits = -1;
    long endedAtNanos = 0;
    while (true) {
      PipelineResult.State state = result.waitUntilFinish(Duration.standardSeconds(1));
      if (state != null && state.isTerminal()) {
        return result;
      }
      long batch = lastBatchTime();
      if (!ended) {
        if (sourcesEnded()) {
          ended = true;
          lastBatch = batch;
          endedAtNanos = System.nanoTime();
        }
        continue;
      }
      if (batch != lastBatch) {
        batchesSince++;
        lastBatch = batch;
        long commits = commits(result);
        quietBatches = commits == lastCommits ? quietBatches + 1 : 0;
        lastCommits = commits;
      }
      boolean settled = System.nanoTime() - endedAtNanos >= settle.getMillis() * 1_000_000L;
      if (mayStop(batchesSince, quietBatches, settled)) {
        try {
          result.cancel(); // a graceful stop of the streaming context
        } catch (RuntimeException e) {
          // Stopping interrupts the context's idle threads (the Kafka consumers' polls, …), and
          // Spark hands back what they threw. The input was read and the last batches done.
          System.err.println(
              "\nspark: the streaming context said, stopping after its input ended: "
                  + Failures.oneLine(e));
        }
        return new Ended(result);
      }
    }
  }

  /**
   * Whether a job whose sources ended {@code batchesSince} micro-batches ago may be stopped: after
   * {@link #SETTLE_BATCHES} and the settle time, once no table was committed in the last {@link
   * #QUIET_BATCHES}, or after {@link #MAX_SETTLE_BATCHES} in any case.
   */
  static boolean mayStop(int batchesSince, int quietBatches, boolean settled) {
    if (batchesSince < SETTLE_BATCHES || !settled) {
      return false;
    }
    return quietBatches >= QUIET_BATCHES || batchesSince >= MAX_SETTLE_BATCHES;
  }

  /** The table commits the job made so far ({@link CommitFlushes}); -1 when not known yet. */
  private static long commits(PipelineResult result) {
    try {
      return Progress.counters(result).getOrDefault(CommitFlushes.COMMITS, 0L);
    } catch (RuntimeException e) {
      return -1;
    }
  }

  /** The time of the last micro-batch whose watermarks the runner took in. */
  private static long lastBatchTime() {
    return GlobalWatermarkHolder.getLastWatermarkedBatchTime();
  }

  /** Whether every source of the job reports a stream's last watermark. */
  private static boolean sourcesEnded() {
    Map<Integer, GlobalWatermarkHolder.SparkWatermarks> watermarks;
    try {
      watermarks = GlobalWatermarkHolder.get(null);
    } catch (RuntimeException e) {
      return false; // not reported yet
    }
    if (watermarks == null || watermarks.isEmpty()) {
      return false;
    }
    for (GlobalWatermarkHolder.SparkWatermarks w : watermarks.values()) {
      if (w.getHighWatermark().isBefore(StreamEnd.ON_SPARK)) {
        return false;
      }
    }
    return true;
  }

  /** A job stopped after it read all its input: done, with the metrics it counted. */
  private static final class Ended implements PipelineResult {
    private final PipelineResult stopped;

    Ended(PipelineResult stopped) {
      this.stopped = stopped;
    }

    @Override
    public State getState() {
      return State.DONE;
    }

    @Override
    public State cancel() {
      return State.DONE;
    }

    @Override
    public State waitUntilFinish(Duration duration) {
      return State.DONE;
    }

    @Override
    public State waitUntilFinish() {
      return State.DONE;
    }

    @Override
    public MetricResults metrics() {
      return stopped.metrics();
    }
  }
}
