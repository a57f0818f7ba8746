package dev.medallion.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.Closeable;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.metrics.BoundedTrie;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Distribution;
import org.apache.beam.sdk.metrics.Gauge;
import org.apache.beam.sdk.metrics.MetricName;
import org.apache.beam.sdk.metrics.MetricsContainer;
import org.apache.beam.sdk.metrics.MetricsEnvironment;
import org.apache.beam.sdk.metrics.StringSet;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * A DoFn's rejections reach the metrics when its bundle ends ({@link Rejections.Examples#flush}):
 * one increment per counter and bundle, and one example per reason over all the DoFn's bundles.
 */
class RejectionsTest {
  /** What reached the metrics, one line per call: "counter name +n" or "example name: text". */
  private static final class Recorded implements MetricsContainer {
    private static final long serialVersionUID = 1L;
    final List<String> calls = new ArrayList<>();

    @Override
    public Counter getCounter(MetricName name) {
      return new Counter() {
        @Override
        public void inc() {
          inc(1);
        }

        @Override
        public void inc(long n) {
          calls.add(name.getName() + " +" + n);
        }

        @Override
        public void dec() {
          inc(-1);
        }

        @Override
        public void dec(long n) {
          inc(-n);
        }

        @Override
        public MetricName getName() {
          return name;
        }
      };
    }

    @Override
    public StringSet getStringSet(MetricName name) {
      return new StringSet() {
        @Override
        public void add(String value) {
          calls.add(name.getName() + ": " + value.substring(0, value.indexOf('\t')));
        }

        @Override
        public MetricName getName() {
          return name;
        }
      };
    }

    @Override
    public Distribution getDistribution(MetricName name) {
      throw new UnsupportedOperationException(name.toString());
    }

    @Override
    public Gauge getGauge(MetricName name) {
      throw new UnsupportedOperationException(name.toString());
    }

    @Override
    public BoundedTrie getBoundedTrie(MetricName name) {
      throw new UnsupportedOperationException(name.toString());
    }
  }

  private static DeadLetter letter(String reason, String source) {
    return DeadLetter.of(
        DeadLetter.SILVER, reason, "why", "{}", source, "f", null, new Instant(0L));
  }

  @Test
  void aBundlesRejectionsAreReportedWhenItEndsEachExampleOnce() throws Exception {
    Recorded metrics = new Recorded();
    Rejections.Examples rejections = new Rejections.Examples();
    try (Closeable scope = MetricsEnvironment.scopedMetricsContainer(metrics)) {
      rejections.count("silver", letter("out_of_range:value", "file:a#1"));
      rejections.count("silver", letter("unknown_device", "file:a#2"));
      rejections.count("silver", letter("out_of_range:ts", "file:a#3"));
      assertThat(metrics.calls).as("nothing before the bundle ends").isEmpty();
      rejections.flush();
      assertThat(metrics.calls)
          .containsExactly(
              "silver_rejected +3",
              "silver_rejected_out_of_range +2",
              "silver_rejected_unknown_device +1",
              "silver_example_out_of_range: file:a#1",
              "silver_example_unknown_device: file:a#2");

      // The next bundle: counted again, but a reason already shown keeps its first example.
      metrics.calls.clear();
      rejections.count("silver", letter("out_of_range:value", "file:b#9"));
      rejections.flush();
      assertThat(metrics.calls)
          .containsExactly("silver_rejected +1", "silver_rejected_out_of_range +1");

      // A bundle without rejections reports nothing.
      metrics.calls.clear();
      rejections.flush();
      assertThat(metrics.calls).isEmpty();
    }
  }

  @Test
  void reasonsBeyondSixtyFourAreCountedWithoutAnExample() throws Exception {
    Recorded metrics = new Recorded();
    Rejections.Examples rejections = new Rejections.Examples();
    try (Closeable scope = MetricsEnvironment.scopedMetricsContainer(metrics)) {
      for (int i = 0; i < 70; i++) {
        rejections.count("bronze", letter("reason" + i, "file:a#" + i));
      }
      rejections.flush();
    }
    assertThat(metrics.calls).contains("bronze_rejected +70");
    assertThat(metrics.calls.stream().filter(c -> c.startsWith("bronze_rejected_reason")))
        .hasSize(70);
    assertThat(metrics.calls.stream().filter(c -> c.startsWith("bronze_example_"))).hasSize(64);
  }
}
