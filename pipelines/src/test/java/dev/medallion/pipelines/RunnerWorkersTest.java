package dev.medallion.pipelines;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A failed job returns to its caller only once none of its work is still running: a bundle that was
 * writing when another one failed has finished by then, so the caller's cleanup after the failure
 * sees every file the job wrote.
 */
class RunnerWorkersTest {
  /** The slow element's bundle has started; the failing one fails only after that. */
  private static volatile CountDownLatch slowStarted;

  private static final AtomicBoolean SLOW_FINISHED = new AtomicBoolean();

  /** Element "fail" fails once "slow" is being processed; "slow" takes 2 s, then finishes. */
  static class FailWhileAnotherWritesFn extends DoFn<String, String> {
    @ProcessElement
    public void process(@Element String e) throws InterruptedException {
      if (e.equals("slow")) {
        slowStarted.countDown();
        Thread.sleep(2000);
        SLOW_FINISHED.set(true);
      } else {
        assertThat(slowStarted.await(30, TimeUnit.SECONDS)).isTrue();
        throw new IllegalStateException("the disk is full");
      }
    }
  }

  @BeforeEach
  void reset() {
    slowStarted = new CountDownLatch(1);
    SLOW_FINISHED.set(false);
  }

  @Test
  void aFailedDirectRunnerJobReturnsAfterItsOtherBundlesEnded() {
    PipelineOptions o = PipelineOptionsFactory.fromArgs("--blockOnRun=false").create();
    o.setRunner(DirectRunner.class);
    Pipeline p = Pipeline.create(o);
    // Two roots: their bundles run at the same time on two of the runner's threads.
    p.apply("Slow", Create.of("slow")).apply("SlowFn", ParDo.of(new FailWhileAnotherWritesFn()));
    p.apply("Fail", Create.of("fail")).apply("FailFn", ParDo.of(new FailWhileAnotherWritesFn()));

    assertThatThrownBy(() -> Progress.runAndWait(p)).hasMessageContaining("the disk is full");
    assertThat(SLOW_FINISHED).as("the other bundle ended before the failure was thrown").isTrue();
    assertThat(RunnerWorkers.busy()).isEmpty();
  }

  @Test
  void aFailedSparkJobReturnsAfterItsOtherTasksEnded() {
    JavaSparkContext spark = LocalSpark.start("local[2]", "runner-workers");
    try {
      Pipeline p = Pipeline.create(LocalSpark.options(spark));
      // Two elements in two partitions: two tasks at once on local[2].
      p.apply(Create.of("slow", "fail")).apply(ParDo.of(new FailWhileAnotherWritesFn()));

      assertThatThrownBy(() -> Progress.runAndWait(p)).hasMessageContaining("the disk is full");
      assertThat(SLOW_FINISHED).as("the other task ended before the failure was thrown").isTrue();
      assertThat(RunnerWorkers.busy()).isEmpty();
    } finally {
      spark.stop();
    }
  }
}
