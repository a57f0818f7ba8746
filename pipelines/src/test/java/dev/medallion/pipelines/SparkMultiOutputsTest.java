package dev.medallion.pipelines;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.beam.runners.spark.SparkContextOptions;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.TupleTagList;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.Test;

/**
 * A multi-output step on Spark keeps its outputs packed ({@link SparkMultiOutputs}), and each
 * reader gets exactly its own output's elements: elements larger than a chunk, outputs spread over
 * many chunks, and an output no step reads among them.
 */
class SparkMultiOutputsTest {
  private static final TupleTag<String> KEPT = new TupleTag<>() {};
  private static final TupleTag<String> REJECTED = new TupleTag<>() {};
  private static final TupleTag<String> UNREAD = new TupleTag<>() {};

  /** Element i: its number, and every 400th one longer than a chunk. */
  private static String element(int i) {
    return i % 400 == 7 ? i + "-" + "x".repeat(SparkMultiOutputs.CHUNK_BYTES + 1000) : i + "-";
  }

  /** By its number: 0 mod 3 kept, 1 rejected, 2 to an output nobody reads. */
  static class SplitFn extends DoFn<String, String> {
    @ProcessElement
    public void process(@Element String e, MultiOutputReceiver out) {
      int i = Integer.parseInt(e.substring(0, e.indexOf('-')));
      switch (i % 3) {
        case 0 -> out.get(KEPT).output(e);
        case 1 -> out.get(REJECTED).output("rejected " + e);
        default -> out.get(UNREAD).output(e);
      }
    }
  }

  @Test
  void eachReaderOfAMultiOutputStepGetsItsOwnElementsFromThePackedChunks() {
    assertThat(SparkStageNames.install()).isTrue();
    int n = 3000;
    List<String> input = IntStream.range(0, n).mapToObj(i -> element(i)).toList();
    List<String> kept = new ArrayList<>();
    List<String> rejected = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      if (i % 3 == 0) {
        kept.add(element(i));
      } else if (i % 3 == 1) {
        rejected.add("rejected " + element(i));
      }
    }
    JavaSparkContext spark = LocalSpark.start("local[2]", "multi-outputs");
    try {
      SparkContextOptions options = LocalSpark.options(spark);
      options.setStorageLevel("DISK_ONLY");
      Pipeline p = Pipeline.create(options);
      PCollectionTuple split =
          p.apply("Elements", Create.of(input).withCoder(StringUtf8Coder.of()))
              .apply(
                  "Split",
                  ParDo.of(new SplitFn())
                      .withOutputTags(KEPT, TupleTagList.of(REJECTED).and(UNREAD)));
      PAssert.that(split.get(KEPT)).containsInAnyOrder(kept);
      PAssert.that(split.get(REJECTED)).containsInAnyOrder(rejected);
      p.run().waitUntilFinish();

      // What the runner kept of the step is the packed chunks (byte arrays), not its objects
      // (Spark also keeps the shuffles of PAssert's groupings, made elsewhere).
      List<String> keptOfSplit =
          spark.getPersistentRDDs().values().stream()
              .filter(
                  rdd -> rdd.toDebugString().lines().findFirst().orElse("").contains(" at Split "))
              .map(rdd -> rdd.first().getClass().getSimpleName())
              .collect(Collectors.toList());
      assertThat(keptOfSplit).containsExactly("byte[]");
    } finally {
      spark.stop();
    }
  }
}
