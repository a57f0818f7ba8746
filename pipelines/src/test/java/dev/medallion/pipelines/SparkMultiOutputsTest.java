package dev.medallion.pipelines;

import static org.assertj.core.api.Assertions.assertThat;

import dev.medallion.core.CoderInRuns;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.beam.runners.spark.SparkContextOptions;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.GlobalWindow;
import org.apache.beam.sdk.util.VarInt;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.TupleTagList;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.beam.sdk.values.WindowedValues;
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
    List<String> input = IntStream.range(0, 3000).mapToObj(i -> element(i)).toList();
    JavaSparkContext spark = LocalSpark.start("local[2]", "multi-outputs");
    try {
      splitAndCheck(spark, input, StringUtf8Coder.of());

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

  /**
   * A value coder that writes a string once per run ({@link CoderInRuns}), each later time as its
   * number: a reader that decoded with another run's table, or without one, gets other strings.
   */
  static final class TextInRuns extends AtomicCoder<String> implements CoderInRuns<String> {
    @Override
    public void encode(String value, OutputStream out) throws IOException {
      StringUtf8Coder.of().encode(value, out);
    }

    @Override
    public String decode(InputStream in) throws IOException {
      return StringUtf8Coder.of().decode(in);
    }

    @Override
    public Coder<String> forOneRun() {
      return new AtomicCoder<>() {
        private final Map<String, Integer> numbers = new HashMap<>();
        private final List<String> strings = new ArrayList<>();

        @Override
        public void encode(String value, OutputStream out) throws IOException {
          Integer known = numbers.get(value);
          VarInt.encode(known == null ? 0 : known, out);
          if (known == null) {
            numbers.put(value, numbers.size() + 1);
            StringUtf8Coder.of().encode(value, out);
          }
        }

        @Override
        public String decode(InputStream in) throws IOException {
          int number = VarInt.decodeInt(in);
          if (number > 0) {
            return strings.get(number - 1);
          }
          String value = StringUtf8Coder.of().decode(in);
          strings.add(value);
          return value;
        }
      };
    }
  }

  /**
   * Outputs whose coder writes in runs: each output's repeated text once per chunk, and each reader
   * gets its own elements back over many chunks, the other outputs' skipped.
   */
  @Test
  void outputsWrittenInRunsComeBackWholeOverManyChunks() {
    assertThat(SparkStageNames.install()).isTrue();
    // few distinct texts in no order, so most elements are a back-reference to another place in
    // each chunk, and some are longer than a chunk
    List<String> input =
        new Random(42).ints(30_000, 0, 900).mapToObj(SparkMultiOutputsTest::element).toList();
    JavaSparkContext spark = LocalSpark.start("local[2]", "multi-outputs-in-runs");
    try {
      splitAndCheck(spark, input, new TextInRuns());
    } finally {
      spark.stop();
    }
  }

  /**
   * {@link SplitFn} of {@code input} on {@code spark} (every output of {@code coder}), the step
   * kept on disk: each reader gets exactly its own elements.
   */
  private static void splitAndCheck(
      JavaSparkContext spark, List<String> input, Coder<String> coder) {
    List<String> kept = new ArrayList<>();
    List<String> rejected = new ArrayList<>();
    for (String e : input) {
      int i = Integer.parseInt(e.substring(0, e.indexOf('-')));
      if (i % 3 == 0) {
        kept.add(e);
      } else if (i % 3 == 1) {
        rejected.add("rejected " + e);
      }
    }
    SparkContextOptions options = LocalSpark.options(spark);
    options.setStorageLevel("DISK_ONLY");
    Pipeline p = Pipeline.create(options);
    PCollectionTuple split =
        p.apply("Elements", Create.of(input).withCoder(coder))
            .apply(
                "Split",
                ParDo.of(new SplitFn())
                    .withOutputTags(KEPT, TupleTagList.of(REJECTED).and(UNREAD)));
    for (TupleTag<String> output : List.of(KEPT, REJECTED, UNREAD)) {
      split.get(output).setCoder(coder);
    }
    PAssert.that(split.get(KEPT)).containsInAnyOrder(kept);
    PAssert.that(split.get(REJECTED)).containsInAnyOrder(rejected);
    p.run().waitUntilFinish();
  }

  @Test
  void onlyAValueCoderThatWritesInRunsGetsACoderPerChunk() {
    Coder<WindowedValue<String>> inRuns =
        WindowedValues.getFullCoder(new TextInRuns(), GlobalWindow.Coder.INSTANCE);
    Coder<WindowedValue<String>> plain =
        WindowedValues.getFullCoder(StringUtf8Coder.of(), GlobalWindow.Coder.INSTANCE);
    assertThat(SparkMultiOutputs.forOneChunk(inRuns)).isNotSameAs(inRuns);
    assertThat(SparkMultiOutputs.forOneChunk(plain)).isSameAs(plain);
  }
}
