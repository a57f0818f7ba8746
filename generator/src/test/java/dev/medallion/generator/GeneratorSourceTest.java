package dev.medallion.generator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.medallion.core.RawEvent;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * A reader re-created from a checkpoint gives the lines after it, as an uninterrupted reader does;
 * after a reader of the same source was closed there, it goes on with that reader's generator
 * instead of generating every line before the checkpoint again.
 */
class GeneratorSourceTest {
  private static final PipelineOptions OPTIONS = PipelineOptionsFactory.create();

  private static GeneratorConfig config() {
    return GeneratorConfig.clean(
            3, 6, Instant.parse("2026-11-29T10:00:00Z"), Duration.standardMinutes(10))
        .withKnobs(0.05, 0.05, 0.1, Duration.standardSeconds(150), 0.02, 0.02, 0.05);
  }

  /** A source whose lines are all due at once. */
  private static GeneratorSource source() {
    return new GeneratorSource(config(), 1e12);
  }

  private static GeneratorSource.Reader reader(
      GeneratorSource source, GeneratorSource.Position checkpoint) {
    return (GeneratorSource.Reader) source.createReader(OPTIONS, checkpoint);
  }

  /** Up to {@code n} lines from a new reader: offset, timestamp and text. */
  private static List<String> read(GeneratorSource.Reader reader, int n) {
    List<String> out = new ArrayList<>();
    boolean has = reader.start();
    while (has && out.size() < n) {
      RawEvent e = reader.getCurrent();
      out.add(e.getSourceOffset() + " " + reader.getCurrentTimestamp() + " " + e.getPayload());
      if (out.size() < n) {
        has = reader.advance();
      }
    }
    return out;
  }

  @Test
  void aReaderReCreatedWhereTheLastOneClosedGoesOnWithItsGenerator() throws Exception {
    List<String> uninterrupted = read(reader(source(), null), 300);
    assertThat(uninterrupted).hasSize(300);

    GeneratorSource source = source();
    GeneratorSource.Reader first = reader(source, null);
    List<String> lines = new ArrayList<>(read(first, 100));
    GeneratorSource.Position at = first.getCheckpointMark();
    Instant watermark = first.getWatermark();
    first.close();
    long regenerated = GeneratorSource.REGENERATED.get();
    GeneratorSource.Reader second = reader(source, at);
    assertThat(GeneratorSource.REGENERATED.get()).isEqualTo(regenerated);
    assertThat(second.getWatermark()).isEqualTo(watermark);
    lines.addAll(read(second, 200));

    assertThat(lines).isEqualTo(uninterrupted);
  }

  @Test
  void aReaderFromAnEarlierCheckpointGeneratesItsLinesAgain() throws Exception {
    GeneratorSource source = source();
    GeneratorSource.Reader first = reader(source, null);
    List<String> lines = read(first, 100);
    GeneratorSource.Position early = new GeneratorSource.Position(40);
    first.close(); // paused at 100, not at 40

    long regenerated = GeneratorSource.REGENERATED.get();
    List<String> again = read(reader(source, early), 60);
    assertThat(GeneratorSource.REGENERATED.get() - regenerated).isEqualTo(40);
    assertThat(again).isEqualTo(lines.subList(40, 100));
  }
}
