package dev.medallion.pipelines;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SparkStreamingEndTest {
  @Test
  void aStreamStopsOnceSettledAndNoTableWasCommittedForTwoBatches() {
    // not before the settle batches and the settle time
    assertThat(SparkStreamingEnd.mayStop(3, 3, true)).isFalse();
    assertThat(SparkStreamingEnd.mayStop(4, 4, false)).isFalse();
    // settled, and quiet: stop
    assertThat(SparkStreamingEnd.mayStop(4, 2, true)).isTrue();
    // settled, but a table was committed in the last batches: wait
    assertThat(SparkStreamingEnd.mayStop(4, 0, true)).isFalse();
    assertThat(SparkStreamingEnd.mayStop(15, 1, true)).isFalse();
    // commits still coming after the most batches waited for: stop anyway
    assertThat(SparkStreamingEnd.mayStop(16, 0, true)).isTrue();
  }
}
