package dev.medallion.core;

import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.metrics.MetricQueryResults;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.MetricsFilter;

/**
 * Records the runner itself dropped because they came later than its watermark allowed. Medallion
 * decides lateness before grouping (too-late records become dead letters) and gives the runner
 * extra slack, so this should stay 0; when it does not, the run report says so instead of the loss
 * being silent. Runners count these in Beam's own counters: {@code DroppedDueToLateness} (the
 * DirectRunner) and {@code droppedDueToLateness} (runners-core, used by Spark).
 */
public final class RunnerDrops {
  private RunnerDrops() {}

  public static long count(PipelineResult result) {
    MetricQueryResults q = result.metrics().queryMetrics(MetricsFilter.builder().build());
    long dropped = 0;
    for (MetricResult<Long> c : q.getCounters()) {
      if (c.getName().getName().equalsIgnoreCase("droppedDueToLateness")) {
        dropped += c.getAttempted();
      }
    }
    return dropped;
  }
}
