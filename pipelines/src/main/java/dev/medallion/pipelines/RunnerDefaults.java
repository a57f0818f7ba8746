package dev.medallion.pipelines;

import dev.medallion.lakehouse.LakehouseOptions;
import dev.medallion.lakehouse.S3Support;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;
import java.util.Properties;
import org.apache.beam.runners.spark.SparkPipelineOptions;
import org.apache.beam.sdk.io.FileSystems;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.options.StreamingOptions;

/**
 * Defaults the command line gives the DirectRunner unless the user set them: its immutability and
 * encodability checks are off, as they are meant for developing a DoFn (the tests run with them on)
 * and keep an encoded copy of every element, which doubles a batch job's memory; {@code run()} does
 * not block, so the live progress line can run beside it; and it runs on one worker thread per
 * core, at least two ({@link #workers}; a stream its own number, {@link #streamWorkers}). The
 * SparkRunner's storage level is {@code DISK_ONLY}, its share of a small heap leaves room for the
 * Parquet writers ({@link #sparkConf}), a multi-output step's outputs are kept packed ({@link
 * SparkMultiOutputs}), and its stages are named after the transforms ({@link SparkStageNames}).
 */
public final class RunnerDefaults {
  private RunnerDefaults() {}

  /** Whether the options run the pipeline on Beam's Spark runner. */
  static boolean isSpark(PipelineOptions options) {
    return options.getRunner().getSimpleName().equals("SparkRunner");
  }

  /**
   * A job's options from its command-line flags: these defaults applied, validated, and Beam's file
   * systems ({@code s3://} included) set up from them.
   */
  public static <T extends PipelineOptions> T options(String[] args, Class<T> type) {
    PipelineOptionsFactory.register(type);
    S3Support.register();
    T options = PipelineOptionsFactory.fromArgs(apply(args)).withValidation().as(type);
    if (isSpark(options)) {
      refuseStreamingFileReads(options, type);
      microBatches(args, options);
      recomputeRatherThanCache(args, options);
      sparkConf(
          Runtime.getRuntime().maxMemory(),
          options.as(SparkPipelineOptions.class).getSparkMaster(),
          System.getProperties());
      SparkStageNames.install();
    }
    S3Support.regionWithoutInstanceMetadata(args, options);
    FileSystems.setDefaultPipelineOptions(options);
    return options;
  }

  /**
   * Spark's streaming mode runs only the legacy unbounded sources (the generator, Kafka): it cannot
   * translate the splittable reads of input files, and failed deep in the runner ("Not expected to
   * directly translate splittable DoFn"). A replay of files needs no streaming mode.
   */
  private static void refuseStreamingFileReads(PipelineOptions options, Class<?> type) {
    if (options.as(StreamingOptions.class).isStreaming()
        && LakehouseOptions.class.isAssignableFrom(type)
        && !options.as(LakehouseOptions.class).getInput().isEmpty()) {
      throw new IllegalArgumentException(
          "--streaming=true on the SparkRunner reads only the generator or a Kafka topic"
              + " (--inputTopic), not --input files: a replay of files runs in batch, so leave"
              + " --streaming out");
    }
  }

  /** The shortest micro-batch a Spark stream gets unless {@code --batchIntervalMillis} is set. */
  static final int LEAST_BATCH_SECONDS = 5;

  /**
   * A Spark stream's micro-batches last as long as the table writers' flushes ({@code
   * --flushSeconds}), and at least {@link #LEAST_BATCH_SECONDS}, unless {@code
   * --batchIntervalMillis} is set. With Beam's 500 ms, Gold over Kafka on {@code local[2]} took 4.5
   * to 5 s to run a micro-batch with no records in it (about 15 Spark jobs each: the reads, the
   * windowed groupings' state, the writers, the commits), so batches queued without end: the
   * scheduling delay grew by the second, and a stop after Ctrl-C, which works off every queued
   * batch, took 90 s. With 2 s batches a batch took 2.5 s, still behind; with 5 s ones the job
   * keeps up. A flush more often than a batch is not possible on Spark anyway: a batch's rows are
   * written when it runs.
   */
  private static void microBatches(String[] args, PipelineOptions options) {
    boolean set = Arrays.stream(args).anyMatch(a -> a.startsWith("--batchIntervalMillis"));
    if (!set && options instanceof IotOptions iot) {
      int seconds = Math.max(LEAST_BATCH_SECONDS, iot.getFlushSeconds());
      options.as(SparkPipelineOptions.class).setBatchIntervalMillis(seconds * 1000L);
    }
  }

  /**
   * The users job and replays of IoT files ({@code --input}) on Spark do not cache a PCollection
   * that two steps read ({@code --cacheDisabled=true} unless set): every such PCollection of theirs
   * is a step or two after a point the runner keeps anyway (the outputs of a multi-output step,
   * which it persists whatever the flag, or a shuffle, whose files Spark reuses), and those steps
   * are deterministic (the users job's ingest time is one instant; an IoT replay takes each
   * record's ingest time in Bronze's multi-output step, which is kept), so recomputing them gives
   * the same rows and costs less than writing every row to disk and reading it back. Every step
   * that counts records is a multi-output step, so nothing is counted twice. Measured on {@code
   * local[2]} with {@code -Xmx2g}: 2,040,020 user events 85 s and 90 s against 97 s and 104 s
   * cached (2026-12-02); the IoT replay of 995,451 events 34.6 s against 41 to 67 s cached
   * (2026-12-04), Gold equal to the DirectRunner's. Not for IoT streams (Kafka, the generator),
   * which are not replayed alike.
   */
  private static void recomputeRatherThanCache(String[] args, PipelineOptions options) {
    boolean set = Arrays.stream(args).anyMatch(a -> a.startsWith("--cacheDisabled"));
    boolean replay = options instanceof IotOptions iot && !iot.getInput().isEmpty();
    if (!set && (options instanceof UsersOptions || replay)) {
      options.as(SparkPipelineOptions.class).setCacheDisabled(true);
    }
  }

  /**
   * The options of an IoT stage ({@link #options}), a stream on the DirectRunner on its own number
   * of workers ({@link #streamWorkers}) unless {@code --targetParallelism} is set.
   */
  public static IotOptions iotOptions(String[] args, IotJob.Stage stage) {
    IotOptions options = options(args, IotOptions.class);
    boolean set = Arrays.stream(args).anyMatch(a -> a.startsWith("--targetParallelism"));
    OptionalInt workers = streamWorkers(stage, options);
    if (set || workers.isEmpty()) {
      return options;
    }
    String[] withWorkers = Arrays.copyOf(args, args.length + 1);
    withWorkers[args.length] = "--targetParallelism=" + workers.getAsInt();
    return options(withWorkers, IotOptions.class);
  }

  /**
   * The DirectRunner's workers for {@code stage} if it reads a stream ({@link IotJob#isStream}),
   * whatever the cores: {@link #ONE_PROCESS_WORKERS} when one process runs all three layers ({@code
   * run}, from the generator or a Kafka topic) or Bronze from the generator; one for a stage of the
   * four-process chain that reads a topic, three processes on the same cores. Empty for a batch job
   * (files, or the layer below's table: {@link #workers}) and on Spark.
   *
   * <p>The DirectRunner's loop that hands out bundles and looks through every step's timers runs as
   * a task on the same workers and puts itself back on their queue at once, work or not: with
   * Beam's default of 3 workers on 2 cores it took 42 % of a stream's CPU samples (JFR, the
   * generator at full speed, 2026-12-04). Large bundles leave a second worker to the work: the
   * generator's of 200,000 lines ({@link IotJob#GENERATOR_BATCH}), and a topic's batches of up to
   * {@link KafkaReads#BATCH} records (full over a backlog). A backlog of 1M through {@code run
   * --inputTopic} took 17.5 to 17.8 s with 2 workers against 22.2 to 22.8 s with 1 (2026-12-06).
   * While its input is idle, the loop keeps about one core busy with 2 workers, about a third of
   * one with 1: {@code --targetParallelism=1} for a light process at a low rate. The measurements:
   * {@code bench/HISTORY.md}, <i>One worker thread for a stream</i>, <i>Two workers for a stream
   * from the generator</i> and <i>Two workers</i> (over Kafka).
   */
  static OptionalInt streamWorkers(IotJob.Stage stage, IotOptions options) {
    if (isSpark(options) || !IotJob.isStream(stage, options)) {
      return OptionalInt.empty();
    }
    boolean oneProcess = stage == IotJob.Stage.ALL || IotJob.readsTheGenerator(stage, options);
    return OptionalInt.of(oneProcess ? ONE_PROCESS_WORKERS : 1);
  }

  /**
   * The DirectRunner's workers for a stream through all three layers in one process, or from the
   * generator ({@link #streamWorkers}).
   */
  static final int ONE_PROCESS_WORKERS = 2;

  private static final List<String> DIRECT =
      List.of(
          "--enforceImmutability=false",
          "--enforceEncodability=false",
          "--blockOnRun=false",
          "--targetParallelism=" + workers(Runtime.getRuntime().availableProcessors()));

  /**
   * The DirectRunner's workers for a job on {@code cores} cores unless {@code --targetParallelism}
   * is set (a stream's own number, {@link #streamWorkers}, replaces it): one per core, and at least
   * two. Beam's default is one per core and at least three; on 2 cores a third worker probably only
   * gives the runner's loop, which never pauses ({@link #streamWorkers}), more turns: on the 2-core
   * benchmark machine, alternating (2026-12-06), the 1M-event IoT replay took 16.85, 15.76, 15.46
   * and 15.48 s with 2 workers against 16.98, 16.60, 16.65 and 16.73 s with 3, with less CPU (27.3
   * to 29.7 s of user CPU against 29.6 to 30.4 s), and {@code users} at 2M 44.28 and 45.39 s
   * against 47.75 and 47.07 s. A replay took 23.1 s with 1 worker against 20.1 s with 3
   * (2026-12-04).
   */
  static int workers(int cores) {
    return Math.max(2, cores);
  }

  /**
   * Spark keeps a PCollection that two steps read on disk, encoded with its Beam coder: with the
   * runner's default ({@code MEMORY_ONLY}) what it evicts is recomputed, and counted again; in
   * memory ({@code MEMORY_AND_DISK}) it held every Bronze row of a large input and ran out of
   * memory with {@code -Xmx2g} at 2M user events. On disk, measured on Spark local[2]: 2M user
   * events with {@code -Xmx2g} 189 s and 2.3 GB (in memory, with the file split finer: 302 s); 204k
   * 57 s against 70 s; the 1M-event IoT replay with 8g 119 s and 158 s in two runs against 141 s. A
   * splittable read's lines reach the next step once its part (at most 8 MiB on Spark, {@code
   * --maxReadParts}) has been read: the runner's other way, handing each line from the reading
   * thread to the next step's through a queue ({@code
   * --experiments=use_bounded_concurrent_output_for_sdf}), woke and parked a thread per line: a
   * quarter of a {@code perf} profile of the first pass was the kernel doing so (2M user events on
   * {@code local[2]}: 77 s against 80 s, 69.7 s against 71.4 s, 2026-12-02).
   */
  private static final List<String> SPARK = List.of("--storageLevel=DISK_ONLY");

  /**
   * Spark's configuration, as system properties (which Spark's configuration reads) unless already
   * set, by {@code -Dspark.…} or {@code spark-submit --conf}:
   *
   * <ul>
   *   <li>Spark's share of the heap (less 300 MB) for what it caches and shuffles, {@code
   *       spark.memory.fraction}. Spark's default is 0.6; the Parquet writers' row groups and the
   *       runner's own objects live outside what it counts, and need about {@link #OUTSIDE_SPARK}:
   *       with {@code -Xmx2g} and the cache in memory, Spark ran out of memory at 2M user events
   *       until its share was 0.3 (not measured again with the cache on disk). So the share leaves
   *       that much, and stays 0.6 on a heap of 3.3 GB or more (a smaller share there made the
   *       1M-event IoT replay 30 % slower with 8g).
   *   <li>No web UI on a local master ({@code spark.ui.enabled}; {@code master} is {@code
   *       --sparkMaster}, or {@code spark.master} when {@code spark-submit} set it): starting its
   *       web server cost each job on {@code local[2]} about 0.3 s (a 3,000-line IoT replay, four
   *       runs each: 6.72 to 6.93 s without, 7.04 to 7.45 s with, 2026-12-05). A cluster's driver
   *       keeps it; {@code -Dspark.ui.enabled=true} turns it on for a local one.
   * </ul>
   */
  static void sparkConf(long maxHeap, String master, Properties properties) {
    properties.putIfAbsent("spark.memory.fraction", String.valueOf(memoryFraction(maxHeap)));
    if (properties.getProperty("spark.master", master).startsWith("local")) {
      properties.putIfAbsent("spark.ui.enabled", "false");
    }
  }

  /** What Spark's share of the heap must leave to everything else. */
  static final long OUTSIDE_SPARK = 1200L << 20;

  /** Spark's own default share, and the least this gives it. */
  private static final double SPARK_DEFAULT = 0.6;

  private static final double LEAST = 0.1;

  static double memoryFraction(long maxHeap) {
    long usable = maxHeap - (300L << 20); // Spark reserves 300 MB
    double leaving = usable <= 0 ? LEAST : 1 - (double) OUTSIDE_SPARK / usable;
    return Math.max(LEAST, Math.min(SPARK_DEFAULT, Math.floor(leaving * 100) / 100));
  }

  /**
   * {@code args} with the defaults of the runner they name (none: the DirectRunner) added where the
   * user did not set them. A runner is named as Beam accepts it: {@code DirectRunner}, {@code
   * direct}, {@code org.apache.beam.runners.spark.SparkRunner}, {@code spark}, in any case.
   */
  public static String[] apply(String[] args) {
    List<String> runners =
        Arrays.stream(args)
            .filter(a -> a.startsWith("--runner="))
            .map(a -> runnerName(a.substring("--runner=".length())))
            .toList();
    boolean direct = runners.stream().allMatch("direct"::equals);
    boolean spark = runners.contains("spark");
    List<String> all = new ArrayList<>(Arrays.asList(args));
    for (String flag : direct ? DIRECT : spark ? SPARK : List.<String>of()) {
      String name = flag.substring(0, flag.indexOf('='));
      if (Arrays.stream(args).noneMatch(a -> a.equals(name) || a.startsWith(name + "="))) {
        all.add(flag);
      }
    }
    return all.toArray(String[]::new);
  }

  /**
   * A runner's short name as Beam resolves {@code --runner}: its class's simple name, lower case,
   * without "runner" at the end ({@code org.apache.beam.runners.spark.SparkRunner}, {@code
   * SparkRunner} and {@code spark} are all {@code spark}).
   */
  static String runnerName(String runner) {
    String simple = runner.substring(runner.lastIndexOf('.') + 1).toLowerCase(Locale.ROOT);
    return simple.endsWith("runner") ? simple.substring(0, simple.length() - 6) : simple;
  }
}
