package dev.medallion.pipelines;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The command line's DirectRunner and SparkRunner defaults, and that a user's own flags win. */
class RunnerDefaultsTest {
  @Test
  void theDirectRunnerRunsWithoutItsDevelopmentChecksUnlessAsked() {
    assertThat(RunnerDefaults.apply(new String[] {"--lakehouse=x"}))
        .containsExactly(
            "--lakehouse=x",
            "--enforceImmutability=false",
            "--enforceEncodability=false",
            "--blockOnRun=false");
    assertThat(
            RunnerDefaults.apply(
                new String[] {"--runner=DirectRunner", "--enforceImmutability=true"}))
        .containsExactly(
            "--runner=DirectRunner",
            "--enforceImmutability=true",
            "--enforceEncodability=false",
            "--blockOnRun=false");
  }

  @Test
  void sparkKeepsWhatTwoStepsReadInMemoryAndOnDiskUnlessAsked() {
    assertThat(RunnerDefaults.apply(new String[] {"--runner=SparkRunner"}))
        .containsExactly(
            "--runner=SparkRunner",
            "--storageLevel=MEMORY_AND_DISK",
            "--experiments=use_bounded_concurrent_output_for_sdf");
    assertThat(
            RunnerDefaults.apply(
                new String[] {
                  "--runner=SparkRunner", "--storageLevel=MEMORY_ONLY", "--experiments=other"
                }))
        .containsExactly(
            "--runner=SparkRunner", "--storageLevel=MEMORY_ONLY", "--experiments=other");
  }

  @Test
  void otherRunnersGetNothingAdded() {
    assertThat(RunnerDefaults.apply(new String[] {"--runner=FlinkRunner"}))
        .containsExactly("--runner=FlinkRunner");
  }
}
