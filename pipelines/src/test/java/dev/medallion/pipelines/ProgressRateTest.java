package dev.medallion.pipelines;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import org.junit.jupiter.api.Test;

/** The Kafka rates of the progress line, over the last seconds rather than the last one. */
class ProgressRateTest {
  private static final long SECOND = 1_000_000_000L;

  @Test
  void aCounterThatMovesOncePerMicroBatchReadsAsItsMeanRate() {
    ArrayDeque<long[]> samples = new ArrayDeque<>();
    assertThat(Progress.perSecond(samples, 1, 500, 0)).isZero();
    // Spark commits 300 records read at the end of a 3-second micro-batch: the second-to-second
    // difference is 0, 0, then 300; over the samples kept it is 100 records/s.
    samples.addLast(new long[] {0, 0, 0});
    samples.addLast(new long[] {SECOND, 0, 0});
    samples.addLast(new long[] {2 * SECOND, 0, 0});
    assertThat(Progress.perSecond(samples, 1, 0, 2 * SECOND)).isZero();
    assertThat(Progress.perSecond(samples, 1, 300, 3 * SECOND)).isEqualTo(100.0);
    // the out column (2) is taken from its own values
    assertThat(Progress.perSecond(samples, 2, 60, 3 * SECOND)).isEqualTo(20.0);
  }
}
