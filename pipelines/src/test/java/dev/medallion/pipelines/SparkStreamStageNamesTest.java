package dev.medallion.pipelines;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.beam.runners.spark.SparkContextOptions;
import org.apache.beam.runners.spark.io.CreateStream;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.WithKeys;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.TimestampedValue;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.scheduler.SparkListenerStageSubmitted;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stages and jobs of a streaming job's micro-batches on Spark carry the names of the transforms
 * that made them, not lines of Beam's runner or of Spark.
 */
class SparkStreamStageNamesTest {
  @TempDir Path checkpoints;

  @Test
  void aStreamsStagesAndJobsAreNamedAfterTheTransforms() {
    assertThat(SparkStageNames.install()).isTrue();
    List<String> stages = new CopyOnWriteArrayList<>();
    List<String> jobs = new CopyOnWriteArrayList<>();
    JavaSparkContext spark = LocalSpark.start("local[2]", "stream-stage-names");
    try {
      spark
          .sc()
          .addSparkListener(
              new SparkListener() {
                @Override
                public void onStageSubmitted(SparkListenerStageSubmitted submitted) {
                  stages.add(submitted.stageInfo().name());
                }

                @Override
                public void onJobStart(SparkListenerJobStart start) {
                  jobs.add(String.valueOf(start.properties().getProperty("callSite.short")));
                }
              });
      SparkContextOptions options = LocalSpark.options(spark);
      options.setStreaming(true);
      options.setBatchIntervalMillis(500L);
      options.setCheckpointDir(checkpoints.toString());
      Instant t = new Instant(0);
      Pipeline p = Pipeline.create(options);
      p.apply(
              "Events",
              CreateStream.of(StringUtf8Coder.of(), Duration.millis(500))
                  .nextBatch(
                      TimestampedValue.of("ann", t),
                      TimestampedValue.of("bob", t.plus(Duration.standardSeconds(1))))
                  .nextBatch(TimestampedValue.of("ann", t.plus(Duration.standardSeconds(2))))
                  .advanceNextBatchWatermarkToInfinity())
          .apply("Minutes", Window.into(FixedWindows.of(Duration.standardMinutes(1))))
          .apply("KeyByUser", WithKeys.of((String u) -> u).withKeyType(TypeDescriptors.strings()))
          .apply("GroupPerUser", GroupByKey.create())
          .apply(
              "Users",
              MapElements.into(TypeDescriptors.strings())
                  .via((KV<String, Iterable<String>> kv) -> kv.getKey()));
      PipelineResult result = p.run();
      result.waitUntilFinish(Duration.standardSeconds(8));
      result.cancel();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } finally {
      spark.stop();
    }

    // Without the names, each is a line of Beam's runner or of Spark ("mapToPair at
    // SparkGroupAlsoByWindowViaWindowSet.java:…", "foreachRDD at UnboundedDataset.java:…").
    Set<String> named = new TreeSet<>(stages);
    named.addAll(jobs);
    assertThat(stages).as("stages").isNotEmpty();
    assertThat(jobs).as("jobs").isNotEmpty();
    assertThat(named)
        .allSatisfy(
            name ->
                assertThat(name.replaceFirst("/.*", ""))
                    .as(name)
                    .isIn("Events", "Minutes", "KeyByUser", "GroupPerUser", "Users"));
    assertThat(named).contains("GroupPerUser");
  }
}
