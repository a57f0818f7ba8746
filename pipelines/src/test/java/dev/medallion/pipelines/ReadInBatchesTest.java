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

  /**
   * A reader that has caught up finalizes the position of the last records it handed on once the
   * runner has taken the checkpoint after them (their bundle is over), and only then: records
   * handed on in the bundle still running are not finalized, nor is a position twice.
   */
  @Test
  void aReaderThatCaughtUpFinalizesWhatTheRunnerCheckpointed() throws Exception {
    Tail tail = new Tail();
    UnboundedSource.UnboundedReader<List<TimestampedValue<Long>>> reader =
        new ReadInBatches.Batches<>(tail, 4).createReader(PipelineOptionsFactory.create(), null);

    tail.available = 6;
    assertThat(reader.start()).isTrue(); // a bundle: records 0-3, 4-5, then nothing yet
    assertThat(reader.advance()).isTrue();
    assertThat(reader.advance()).isFalse();
    assertThat(tail.finalized).as("the bundle is still running").isEmpty();
    reader.getCheckpointMark(); // the runner ends the bundle

    assertThat(reader.advance()).isFalse(); // the next bundle finds nothing: caught up
    assertThat(tail.finalized).containsExactly(6L);
    assertThat(reader.advance()).isFalse();
    assertThat(tail.finalized).as("once per position").containsExactly(6L);

    tail.available = 9;
    assertThat(reader.advance()).isTrue(); // records 6-8, then nothing in the same bundle
    assertThat(reader.advance()).isFalse();
    assertThat(tail.finalized).containsExactly(6L);
    reader.getCheckpointMark();
    assertThat(reader.advance()).isFalse();
    assertThat(tail.finalized).containsExactly(6L, 9L);
  }

  /** The records 0, 1, 2, … up to {@code available}; the positions finalized, in order. */
  static final class Tail extends UnboundedSource<Long, Tail.Position> {
    long available;
    final List<Long> finalized = new ArrayList<>();

    /** The next record's number. */
    final class Position implements UnboundedSource.CheckpointMark, java.io.Serializable {
      final long next;

      Position(long next) {
        this.next = next;
      }

      @Override
      public void finalizeCheckpoint() {
        finalized.add(next);
      }
    }

    @Override
    public List<Tail> split(int desiredNumSplits, PipelineOptions options) {
      return List.of(this);
    }

    @Override
    public UnboundedReader<Long> createReader(PipelineOptions options, Position checkpoint) {
      return new UnboundedReader<>() {
        private long next = checkpoint == null ? 0 : checkpoint.next;
        private long current = -1;

        @Override
        public boolean start() {
          return advance();
        }

        @Override
        public boolean advance() {
          if (next >= available) {
            return false;
          }
          current = next++;
          return true;
        }

        @Override
        public Long getCurrent() {
          return current;
        }

        @Override
        public Instant getCurrentTimestamp() {
          return new Instant(current);
        }

        @Override
        public Instant getWatermark() {
          return new Instant(next);
        }

        @Override
        public CheckpointMark getCheckpointMark() {
          return new Position(next);
        }

        @Override
        public UnboundedSource<Long, ?> getCurrentSource() {
          return Tail.this;
        }

        @Override
        public void close() {}
      };
    }

    @Override
    public org.apache.beam.sdk.coders.Coder<Position> getCheckpointMarkCoder() {
      return org.apache.beam.sdk.coders.SerializableCoder.of(Position.class);
    }

    @Override
    public org.apache.beam.sdk.coders.Coder<Long> getOutputCoder() {
      return org.apache.beam.sdk.coders.VarLongCoder.of();
    }
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
