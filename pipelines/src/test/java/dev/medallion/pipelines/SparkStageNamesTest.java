package dev.medallion.pipelines;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.beam.runners.spark.SparkContextOptions;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.transforms.Count;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.WithKeys;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerStageSubmitted;
import org.junit.jupiter.api.Test;

/** The stages of a batch job on Spark carry the names of the transforms that made them. */
class SparkStageNamesTest {
  @Test
  void aStageBeforeAShuffleIsNamedAfterTheTransformThatFeedsIt() {
    assertThat(SparkStageNames.install()).isTrue();
    assertThat(SparkStageNames.install()).as("a second call finds them wrapped").isTrue();

    List<String> stages = new CopyOnWriteArrayList<>();
    JavaSparkContext spark = LocalSpark.start("local[1]", "stage-names");
    try {
      spark
          .sc()
          .addSparkListener(
              new SparkListener() {
                @Override
                public void onStageSubmitted(SparkListenerStageSubmitted submitted) {
                  stages.add(submitted.stageInfo().name());
                }
              });
      SparkContextOptions options = LocalSpark.options(spark);
      Pipeline p = Pipeline.create(options);
      p.apply("Events", Create.of("ann", "bob", "ann", "cid", "ann"))
          .apply("KeyByUser", WithKeys.of((String u) -> u).withKeyType(TypeDescriptors.strings()))
          .apply("GroupPerUser", GroupByKey.create())
          .apply(
              "Sizes",
              MapElements.into(TypeDescriptors.strings())
                  .via((KV<String, Iterable<String>> kv) -> kv.getKey()))
          .apply("CountUsers", Count.globally())
          .apply(
              "Report", MapElements.into(TypeDescriptors.strings()).via((Long n) -> n + " users"));
      p.run().waitUntilFinish();
    } finally {
      spark.stop();
    }

    // Without the names, Spark calls the two stages that end in a shuffle after lines of the
    // runner's code ("mapToPair at GroupCombineFunctions.java:…"), and the job's last stage after
    // the runner's action that starts it ("foreach at BoundedDataset.java:…"): here it is named
    // after the step whose output nothing reads, the leaf the runner starts the job for.
    assertThat(stages)
        .containsExactly("GroupPerUser", "CountUsers", "Report/Map/ParMultiDo(Anonymous)");
  }
}
