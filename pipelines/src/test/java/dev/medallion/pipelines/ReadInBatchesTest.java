package dev.medallion.pipelines;

import static org.assertj.core.api.Assertions.assertThat;

import dev.medallion.core.RawEvent;
import dev.medallion.generator.EventGenerator;
import dev.medallion.generator.GeneratedLine;
import dev.medallion.generator.GeneratorConfig;
import dev.medallion.generator.GeneratorSource;
import dev.medallion.testing.BeamPipelineExtension;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.io.UnboundedSource;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Reading a source in batches hands on every record once, in order, at its own timestamp, and a
 * reader restarted from a checkpoint goes on at the record after the last batch.
 */
@ExtendWith(BeamPipelineExtension.class)
class ReadInBatchesTest {
  private static final GeneratorConfig CONFIG =
      GeneratorConfig.clean(
          7, 5, Instant.parse("2026-11-29T10:00:00Z"), Duration.standardMinutes(3));

  /** What the generator emits, as "arrival line", in its order. */
  private static List<String> expected() {
    List<String> lines = new ArrayList<>();
    EventGenerator generator = new EventGenerator(CONFIG);
    while (generator.hasNext()) {
      GeneratedLine line = generator.next();
      lines.add(new Instant(line.arrivalMillis()) + " " + line.line());
    }
    return lines;
  }

  @Test
  void batchesHoldEveryRecordOnceInOrderAndACheckpointResumesAfterThem() throws Exception {
    List<String> expected = expected();
    assertThat(expected).hasSizeGreaterThan(50);
    PipelineOptions options = PipelineOptionsFactory.create();
    ReadInBatches.Batches<RawEvent, GeneratorSource.Position> source =
        new ReadInBatches.Batches<>(new GeneratorSource(CONFIG, 1e12), 7);

    List<String> read = new ArrayList<>();
    List<Integer> sizes = new ArrayList<>();
    UnboundedSource.UnboundedReader<List<TimestampedValue<RawEvent>>> reader =
        source.createReader(options, null);
    boolean has = reader.start();
    for (int batch = 0; batch < 3; batch++) {
      assertThat(has).isTrue();
      List<TimestampedValue<RawEvent>> records = reader.getCurrent();
      sizes.add(records.size());
      assertThat(reader.getCurrentTimestamp()).isEqualTo(records.get(0).getTimestamp());
      records.forEach(r -> read.add(r.getTimestamp() + " " + r.getValue().getPayload()));
      has = reader.advance();
    }
    // The checkpoint taken now covers the three batches handed on, and the fourth in hand.
    List<TimestampedValue<RawEvent>> fourth = reader.getCurrent();
    fourth.forEach(r -> read.add(r.getTimestamp() + " " + r.getValue().getPayload()));
    GeneratorSource.Position checkpoint = (GeneratorSource.Position) reader.getCheckpointMark();
    reader.close();

    reader = source.createReader(options, checkpoint);
    for (has = reader.start(); has; has = reader.advance()) {
      List<TimestampedValue<RawEvent>> records = reader.getCurrent();
      sizes.add(records.size());
      records.forEach(r -> read.add(r.getTimestamp() + " " + r.getValue().getPayload()));
    }
    assertThat(read).containsExactlyElementsOf(expected);
    assertThat(sizes).allMatch(n -> n >= 1 && n <= 7).contains(7);
  }

  @Test
  void aPipelineGetsEachRecordAtItsOwnTimestamp(TestPipeline p) {
    PCollection<String> read =
        p.apply(ReadInBatches.of(new GeneratorSource(CONFIG, 1e12), 4))
            .apply(ParDo.of(new WithTimestampFn()));
    PAssert.that(read).containsInAnyOrder(expected());
    p.run().waitUntilFinish();
  }

  static class WithTimestampFn extends DoFn<RawEvent, String> {
    @ProcessElement
    public void process(@Element RawEvent e, @Timestamp Instant at, OutputReceiver<String> out) {
      out.output(at + " " + e.getPayload());
    }
  }
}
