package dev.medallion.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.medallion.iot.IngestToBronze;
import dev.medallion.testing.BundleFlushes;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every DoFn of the transforms that counts per bundle ({@link CountsPerBundle}) has a
 * {@code @FinishBundle} to report it from; the tests that hold the counters to the outputs check
 * that each flushes what it counted.
 */
class BundleFlushesTest {
  @Test
  void everyDoFnThatCountsPerBundleFinishesItsBundles() throws Exception {
    List<Class<?>> counting = BundleFlushes.countingDoFns(IngestToBronze.class);

    // The scan sees the holders it must: directly (Bronze), through a rule (Gold's too-late split).
    assertThat(counting)
        .extracting(Class::getSimpleName)
        .contains("ParseRawEventFn", "ValidateFn", "SplitTooLateFn", "SetAsideFn", "SplitFn");
    assertThat(BundleFlushes.withoutFinishBundle(IngestToBronze.class)).isEmpty();
  }

  @Test
  void aDoFnThatCountsWithoutFinishingItsBundlesIsFound() throws Exception {
    assertThat(BundleFlushes.countingDoFns(BundleFlushesTest.class))
        .contains(CountsButNeverFlushes.class, CountsThroughARule.class);
    assertThat(BundleFlushes.withoutFinishBundle(BundleFlushesTest.class))
        .contains(CountsButNeverFlushes.class.getName(), CountsThroughARule.class.getName())
        .doesNotContain(CountsAndFlushes.class.getName());
  }

  static final class CountsButNeverFlushes
      extends org.apache.beam.sdk.transforms.DoFn<String, String> {
    private final Rejections.Examples rejections = new Rejections.Examples();

    @ProcessElement
    public void process(@Element String s) {}
  }

  static final class Rule implements java.io.Serializable {
    private final BundleCounter counted = new BundleCounter("test", "counted");
  }

  static final class CountsThroughARule
      extends org.apache.beam.sdk.transforms.DoFn<String, String> {
    private final Rule rule = new Rule();

    @ProcessElement
    public void process(@Element String s) {}
  }

  static final class CountsAndFlushes extends org.apache.beam.sdk.transforms.DoFn<String, String> {
    private final Rejections.Examples rejections = new Rejections.Examples();

    @ProcessElement
    public void process(@Element String s) {}

    @FinishBundle
    public void finish() {
      rejections.flush();
    }
  }
}
