package dev.medallion.pipelines;

import static org.assertj.core.api.Assertions.assertThat;

import dev.medallion.testing.BundleFlushes;
import org.junit.jupiter.api.Test;

/**
 * Every DoFn of the pipelines that counts per bundle (the Kafka stages' counters and rejections)
 * has a {@code @FinishBundle} to report it from.
 */
class BundleFlushesTest {
  @Test
  void everyDoFnThatCountsPerBundleFinishesItsBundles() throws Exception {
    assertThat(BundleFlushes.countingDoFns(ReadKafkaLines.class))
        .extracting(Class::getSimpleName)
        .contains("ParseFn", "ToRawEventFn", "SilverRowFn");
    assertThat(BundleFlushes.withoutFinishBundle(ReadKafkaLines.class)).isEmpty();
  }
}
