package dev.medallion.pipelines;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import dev.medallion.core.ReadNdjsonLines;
import dev.medallion.lakehouse.LakehouseOptions;
import java.util.List;
import java.util.OptionalInt;
import java.util.Properties;
import org.apache.beam.runners.direct.DirectOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.junit.jupiter.api.Test;

/** The command line's DirectRunner and SparkRunner defaults, and that a user's own flags win. */
class RunnerDefaultsTest {
  // one worker per core, at least two
  private static final int PER_CORE = Math.max(2, Runtime.getRuntime().availableProcessors());

  private static final String WORKERS = "--targetParallelism=" + PER_CORE;

  @Test
  void theDirectRunnerRunsWithoutItsDevelopmentChecksUnlessAsked() {
    assertThat(RunnerDefaults.apply(new String[] {"--lakehouse=x"}))
        .containsExactly(
            "--lakehouse=x",
            "--enforceImmutability=false",
            "--enforceEncodability=false",
            "--blockOnRun=false",
            WORKERS);
    assertThat(
            RunnerDefaults.apply(
                new String[] {"--runner=DirectRunner", "--enforceImmutability=true"}))
        .containsExactly(
            "--runner=DirectRunner",
            "--enforceImmutability=true",
            "--enforceEncodability=false",
            "--blockOnRun=false",
            WORKERS);
  }

  @Test
  void theDirectRunnerRunsOneWorkerPerCoreAndAtLeastTwoUnlessAsked() {
    assertThat(RunnerDefaults.workers(1)).isEqualTo(2);
    assertThat(RunnerDefaults.workers(2)).isEqualTo(2);
    assertThat(RunnerDefaults.workers(16)).isEqualTo(16);
    assertThat(RunnerDefaults.apply(new String[] {"--targetParallelism=5"}))
        .containsExactly(
            "--targetParallelism=5",
            "--enforceImmutability=false",
            "--enforceEncodability=false",
            "--blockOnRun=false");
    // a job's options carry it (Beam's own default would be at least 3)
    assertThat(
            RunnerDefaults.options(new String[] {}, UsersOptions.class)
                .as(DirectOptions.class)
                .getTargetParallelism())
        .isEqualTo(PER_CORE);
  }

  @Test
  void sparkKeepsWhatTwoStepsReadOnDiskUnlessAsked() {
    assertThat(RunnerDefaults.apply(new String[] {"--runner=SparkRunner"}))
        .containsExactly("--runner=SparkRunner", "--storageLevel=DISK_ONLY");
    assertThat(
            RunnerDefaults.apply(
                new String[] {
                  "--runner=SparkRunner", "--storageLevel=MEMORY_ONLY", "--experiments=other"
                }))
        .containsExactly(
            "--runner=SparkRunner", "--storageLevel=MEMORY_ONLY", "--experiments=other");
  }

  @Test
  void aRunnerNamedAsBeamAcceptsItGetsItsDefaults() {
    for (String spark :
        List.of(
            "spark",
            "SPARK",
            "sparkrunner",
            "SparkRunner",
            "org.apache.beam.runners.spark.SparkRunner")) {
      assertThat(RunnerDefaults.apply(new String[] {"--runner=" + spark}))
          .containsExactly("--runner=" + spark, "--storageLevel=DISK_ONLY");
      // and Beam takes it for the SparkRunner too
      assertThat(
              PipelineOptionsFactory.fromArgs("--runner=" + spark)
                  .create()
                  .getRunner()
                  .getSimpleName())
          .isEqualTo("SparkRunner");
    }
    for (String direct : List.of("direct", "Direct", "directrunner", "DirectRunner")) {
      assertThat(RunnerDefaults.apply(new String[] {"--runner=" + direct}))
          .contains("--enforceImmutability=false", WORKERS);
      assertThat(
              PipelineOptionsFactory.fromArgs("--runner=" + direct)
                  .create()
                  .getRunner()
                  .getSimpleName())
          .isEqualTo("DirectRunner");
    }
  }

  @Test
  void otherRunnersGetNothingAdded() {
    assertThat(RunnerDefaults.apply(new String[] {"--runner=FlinkRunner"}))
        .containsExactly("--runner=FlinkRunner");
  }

  @Test
  void sparkLeavesRoomForTheParquetWritersInASmallHeapUnlessSet() {
    long gib = 1L << 30;
    Properties local = new Properties();
    RunnerDefaults.sparkConf(2 * gib, "spark://master:7077", local);
    // (2048 - 300 - 1200) / (2048 - 300) MB = 0.313...
    assertThat(local).containsOnly(entry("spark.memory.fraction", "0.31"));

    Properties large = new Properties();
    RunnerDefaults.sparkConf(8 * gib, "spark://master:7077", large);
    assertThat(large).containsEntry("spark.memory.fraction", "0.6");

    Properties tiny = new Properties();
    RunnerDefaults.sparkConf(gib, "spark://master:7077", tiny);
    assertThat(tiny).containsEntry("spark.memory.fraction", "0.1");

    Properties cluster = new Properties();
    cluster.setProperty("spark.memory.fraction", "0.5");
    RunnerDefaults.sparkConf(2 * gib, "spark://master:7077", cluster);
    assertThat(cluster).containsOnly(entry("spark.memory.fraction", "0.5"));
  }

  @Test
  void aLocalSparkMasterStartsNoWebUiUnlessAsked() {
    long gib = 1L << 30;
    Properties local = new Properties();
    RunnerDefaults.sparkConf(2 * gib, "local[2]", local);
    assertThat(local).containsEntry("spark.ui.enabled", "false");

    Properties asked = new Properties();
    asked.setProperty("spark.ui.enabled", "true");
    RunnerDefaults.sparkConf(2 * gib, "local[2]", asked);
    assertThat(asked).containsEntry("spark.ui.enabled", "true");

    // spark-submit's master wins over the options' default (local[4])
    Properties submitted = new Properties();
    submitted.setProperty("spark.master", "spark://master:7077");
    RunnerDefaults.sparkConf(2 * gib, "local[4]", submitted);
    assertThat(submitted).doesNotContainKey("spark.ui.enabled");

    Properties submittedLocal = new Properties();
    submittedLocal.setProperty("spark.master", "local[2]");
    RunnerDefaults.sparkConf(2 * gib, "spark://master:7077", submittedLocal);
    assertThat(submittedLocal).containsEntry("spark.ui.enabled", "false");
  }

  @Test
  void sparkReadsALargeFileInMorePartsThanTheDirectRunner() {
    assertThat(
            PipelineOptionsFactory.fromArgs("--runner=SparkRunner")
                .as(LakehouseOptions.class)
                .getMaxReadParts())
        .isEqualTo(1024);
    assertThat(PipelineOptionsFactory.create().as(LakehouseOptions.class).getMaxReadParts())
        .isEqualTo(ReadNdjsonLines.MAX_PARTS);
    assertThat(
            PipelineOptionsFactory.fromArgs("--runner=SparkRunner", "--maxReadParts=8")
                .as(LakehouseOptions.class)
                .getMaxReadParts())
        .isEqualTo(8);
  }

  @Test
  void aSparkStreamsMicroBatchesLastAFlushAndAtLeastFiveSecondsUnlessSet() {
    assertThat(batchMillis("--runner=SparkRunner")).isEqualTo(5000); // flushes every 5 s
    assertThat(batchMillis("--runner=SparkRunner", "--flushSeconds=1")).isEqualTo(5000);
    assertThat(batchMillis("--runner=SparkRunner", "--flushSeconds=12")).isEqualTo(12_000);
    assertThat(batchMillis("--runner=SparkRunner", "--flushSeconds=1", "--batchIntervalMillis=700"))
        .isEqualTo(700);
  }

  @Test
  void theUsersJobAndIotReplaysOnSparkRecomputeRatherThanCacheUnlessSet() {
    assertThat(cacheDisabled(UsersOptions.class, "--runner=SparkRunner")).isTrue();
    assertThat(cacheDisabled(UsersOptions.class, "--runner=SparkRunner", "--cacheDisabled=false"))
        .isFalse();
    assertThat(cacheDisabled(IotOptions.class, "--runner=SparkRunner", "--input=events.ndjson"))
        .isTrue();
    assertThat(
            cacheDisabled(
                IotOptions.class,
                "--runner=SparkRunner",
                "--input=events.ndjson",
                "--cacheDisabled=false"))
        .isFalse();
    // an IoT stream (the generator, Kafka) keeps the cache
    assertThat(cacheDisabled(IotOptions.class, "--runner=SparkRunner")).isFalse();
    assertThat(cacheDisabled(UsersOptions.class)).isFalse();
  }

  @Test
  void anIotStreamOnTheDirectRunnerRunsOnFewWorkersUnlessSet() {
    // the generator
    assertThat(workers(IotJob.Stage.ALL)).isEqualTo(2);
    assertThat(workers(IotJob.Stage.BRONZE)).isEqualTo(2);
    // Kafka: all three layers in one process on two, a stage of the four-process chain on one
    assertThat(workers(IotJob.Stage.ALL, "--inputTopic=iot-raw")).isEqualTo(2);
    assertThat(workers(IotJob.Stage.BRONZE, "--inputTopic=iot-raw")).isEqualTo(1);
    assertThat(workers(IotJob.Stage.SILVER, "--inputTopic=iot-bronze")).isEqualTo(1);
    assertThat(workers(IotJob.Stage.GOLD, "--inputTopic=iot-silver")).isEqualTo(1);
    assertThat(workers(IotJob.Stage.ALL, "--targetParallelism=4")).isEqualTo(4);
    int usual = PER_CORE; // a batch job's
    // files, or the layer below's table: not a stream
    assertThat(workers(IotJob.Stage.ALL, "--input=events.ndjson")).isEqualTo(usual);
    assertThat(workers(IotJob.Stage.BRONZE, "--input=events.ndjson")).isEqualTo(usual);
    assertThat(workers(IotJob.Stage.SILVER)).isEqualTo(usual);
    assertThat(workers(IotJob.Stage.GOLD)).isEqualTo(usual);
    // Spark's own parallelism is its master's: the DirectRunner's flag is left as it is
    assertThat(workers(IotJob.Stage.ALL, "--runner=SparkRunner"))
        .isEqualTo(PipelineOptionsFactory.create().as(DirectOptions.class).getTargetParallelism());
  }

  @Test
  void aStreamsWorkersDoNotDependOnTheCores() {
    // two where one process runs the layers, one for a stage of the four-process chain
    assertThat(streamWorkers(IotJob.Stage.ALL)).hasValue(2);
    assertThat(streamWorkers(IotJob.Stage.ALL, "--inputTopic=iot-raw")).hasValue(2);
    assertThat(streamWorkers(IotJob.Stage.ALL, "--runner=DirectRunner", "--inputTopic=iot-raw"))
        .hasValue(2);
    assertThat(streamWorkers(IotJob.Stage.BRONZE)).hasValue(2);
    assertThat(streamWorkers(IotJob.Stage.BRONZE, "--inputTopic=iot-raw")).hasValue(1);
    assertThat(streamWorkers(IotJob.Stage.SILVER, "--inputTopic=iot-bronze")).hasValue(1);
    assertThat(streamWorkers(IotJob.Stage.GOLD, "--inputTopic=iot-silver")).hasValue(1);
    // not a stream: a batch job's number; Spark: its master's
    assertThat(streamWorkers(IotJob.Stage.ALL, "--input=events.ndjson")).isEmpty();
    assertThat(streamWorkers(IotJob.Stage.SILVER)).isEmpty();
    assertThat(streamWorkers(IotJob.Stage.ALL, "--runner=SparkRunner")).isEmpty();
  }

  private static OptionalInt streamWorkers(IotJob.Stage stage, String... args) {
    return RunnerDefaults.streamWorkers(stage, iot(args));
  }

  /** The DirectRunner's workers for {@code stage} with {@code args}. */
  private static int workers(IotJob.Stage stage, String... args) {
    return RunnerDefaults.iotOptions(args, stage).as(DirectOptions.class).getTargetParallelism();
  }

  private static boolean cacheDisabled(
      Class<? extends org.apache.beam.sdk.options.PipelineOptions> type, String... args) {
    return RunnerDefaults.options(args, type)
        .as(org.apache.beam.runners.spark.SparkPipelineOptions.class)
        .isCacheDisabled();
  }

  private static long batchMillis(String... args) {
    return RunnerDefaults.options(args, IotOptions.class)
        .as(org.apache.beam.runners.spark.SparkPipelineOptions.class)
        .getBatchIntervalMillis();
  }

  @Test
  void streamingOnSparkOverInputFilesIsRefusedWithTheReason() {
    assertThatThrownBy(
            () ->
                RunnerDefaults.options(
                    new String[] {
                      "--runner=SparkRunner", "--streaming=true", "--input=events.ndjson"
                    },
                    IotOptions.class))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not --input files");
  }

  @Test
  void streamingOnSparkFromALayersTableIsRefusedWithTheReason() {
    for (IotJob.Stage stage : List.of(IotJob.Stage.SILVER, IotJob.Stage.GOLD)) {
      assertThatThrownBy(
              () ->
                  IotJob.refuseSparkStreamingFromTables(
                      stage, iot("--runner=SparkRunner", "--streaming=true")))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("without --inputTopic reads the")
          .hasMessageContaining("leave --streaming out");
    }
    // What Spark streaming can read, and what is not streaming: accepted.
    IotJob.refuseSparkStreamingFromTables(
        IotJob.Stage.SILVER,
        iot("--runner=SparkRunner", "--streaming=true", "--inputTopic=medallion.bronze"));
    IotJob.refuseSparkStreamingFromTables(IotJob.Stage.GOLD, iot("--runner=SparkRunner"));
    IotJob.refuseSparkStreamingFromTables(IotJob.Stage.GOLD, iot("--streaming=true"));
    IotJob.refuseSparkStreamingFromTables(
        IotJob.Stage.BRONZE, iot("--runner=SparkRunner", "--streaming=true"));
  }

  private static IotOptions iot(String... args) {
    return PipelineOptionsFactory.fromArgs(args).as(IotOptions.class);
  }
}
