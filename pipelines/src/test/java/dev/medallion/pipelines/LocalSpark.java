package dev.medallion.pipelines;

import org.apache.beam.runners.spark.SparkContextOptions;
import org.apache.beam.runners.spark.SparkRunner;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;

/** A test's own Spark context (local, no web UI), and Beam's options that hand it to the runner. */
final class LocalSpark {
  private LocalSpark() {}

  static JavaSparkContext start(String master, String app) {
    return new JavaSparkContext(
        new SparkConf().setMaster(master).setAppName(app).set("spark.ui.enabled", "false"));
  }

  static SparkContextOptions options(JavaSparkContext spark) {
    SparkContextOptions options = PipelineOptionsFactory.as(SparkContextOptions.class);
    options.setRunner(SparkRunner.class);
    options.setUsesProvidedSparkContext(true);
    options.setProvidedSparkContext(spark);
    return options;
  }
}
