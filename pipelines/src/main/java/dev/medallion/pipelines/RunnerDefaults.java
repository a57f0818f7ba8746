package dev.medallion.pipelines;

import dev.medallion.lakehouse.S3Support;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import org.apache.beam.sdk.io.FileSystems;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;

/**
 * Defaults the command line gives the DirectRunner unless the user set them: its immutability and
 * encodability checks are off, as they are meant for developing a DoFn (the tests run with them on)
 * and keep an encoded copy of every element, which doubles a batch job's memory; and {@code run()}
 * does not block, so the live progress line can run beside it. The SparkRunner's storage level is
 * {@code MEMORY_AND_DISK}, and its splittable reads stream ({@link #SPARK}).
 */
public final class RunnerDefaults {
  private RunnerDefaults() {}

  /**
   * A job's options from its command-line flags: these defaults applied, validated, and Beam's file
   * systems ({@code s3://} included) set up from them.
   */
  public static <T extends PipelineOptions> T options(String[] args, Class<T> type) {
    PipelineOptionsFactory.register(type);
    S3Support.register();
    T options = PipelineOptionsFactory.fromArgs(apply(args)).withValidation().as(type);
    if (options.getRunner().getSimpleName().equals("SparkRunner")) {
      // Beam's own default master is local[4]
      sparkConf(
          Arrays.stream(args)
              .filter(a -> a.startsWith("--sparkMaster="))
              .map(a -> a.substring(a.indexOf('=') + 1))
              .reduce((first, last) -> last)
              .orElse("local[4]"),
          System.getProperties());
    }
    FileSystems.setDefaultPipelineOptions(options);
    return options;
  }

  private static final List<String> DIRECT =
      List.of("--enforceImmutability=false", "--enforceEncodability=false", "--blockOnRun=false");

  /**
   * Spark keeps a PCollection that two steps read in memory and spills it to disk when memory runs
   * short: with the runner's default ({@code MEMORY_ONLY}) what it evicts is recomputed, and
   * counted again. (Serialized, {@code MEMORY_AND_DISK_SER}, measured slower: 56 s against 42 s for
   * 204,035 user events on Spark local[2].) And a splittable read hands its lines on through a
   * bounded queue as it reads them: by default the runner collects every line of a file's part
   * before the next step sees one.
   */
  private static final List<String> SPARK =
      List.of(
          "--storageLevel=MEMORY_AND_DISK", "--experiments=use_bounded_concurrent_output_for_sdf");

  /**
   * Spark settings given as system properties (which Spark's configuration reads) unless already
   * set, by {@code -Dspark.…} or {@code spark-submit --conf}. Spark may keep half the heap for the
   * data it caches and shuffles ({@code spark.memory.fraction} 0.6), but the Parquet writers' row
   * groups live outside what it counts: with {@code -Xmx2g} it ran out of memory at 2M user events
   * until its share was 0.3. And a local master splits the work into 16 tasks rather than one per
   * core ({@code spark.default.parallelism}): a read's parts are spread over that many tasks, and
   * Spark holds a task's output at once when two steps read it.
   */
  static void sparkConf(String master, Properties properties) {
    properties.putIfAbsent("spark.memory.fraction", "0.3");
    if (master.startsWith("local")) {
      properties.putIfAbsent("spark.default.parallelism", "16");
    }
  }

  public static String[] apply(String[] args) {
    boolean direct =
        Arrays.stream(args)
            .filter(a -> a.startsWith("--runner="))
            .allMatch(a -> a.endsWith("=DirectRunner") || a.endsWith(".DirectRunner"));
    List<String> all = new ArrayList<>(Arrays.asList(args));
    boolean spark =
        Arrays.stream(args)
            .anyMatch(a -> a.equals("--runner=SparkRunner") || a.endsWith(".SparkRunner"));
    for (String flag : direct ? DIRECT : spark ? SPARK : List.<String>of()) {
      String name = flag.substring(0, flag.indexOf('='));
      if (Arrays.stream(args).noneMatch(a -> a.equals(name) || a.startsWith(name + "="))) {
        all.add(flag);
      }
    }
    return all.toArray(String[]::new);
  }
}
