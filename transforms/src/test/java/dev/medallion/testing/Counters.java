package dev.medallion.testing;

import java.util.Map;
import java.util.TreeMap;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.metrics.MetricNameFilter;
import org.apache.beam.sdk.metrics.MetricQueryResults;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.MetricsFilter;
import org.apache.beam.sdk.metrics.StringSetResult;

/** A finished test pipeline's metrics of one namespace, by name, summed over its steps. */
public final class Counters {
  private Counters() {}

  /** The attempted value of each counter in {@code namespace}. */
  public static Map<String, Long> of(PipelineResult result, String namespace) {
    Map<String, Long> byName = new TreeMap<>();
    for (MetricResult<Long> c : query(result, namespace).getCounters()) {
      byName.merge(c.getName().getName(), c.getAttempted(), Long::sum);
    }
    return byName;
  }

  /** How many strings each string set in {@code namespace} holds. */
  public static Map<String, Integer> stringSetSizes(PipelineResult result, String namespace) {
    Map<String, Integer> byName = new TreeMap<>();
    for (MetricResult<StringSetResult> s : query(result, namespace).getStringSets()) {
      byName.merge(s.getName().getName(), s.getAttempted().getStringSet().size(), Integer::sum);
    }
    return byName;
  }

  private static MetricQueryResults query(PipelineResult result, String namespace) {
    result.waitUntilFinish();
    return result
        .metrics()
        .queryMetrics(
            MetricsFilter.builder().addNameFilter(MetricNameFilter.inNamespace(namespace)).build());
  }
}
