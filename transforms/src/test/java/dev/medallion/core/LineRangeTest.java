package dev.medallion.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.medallion.testing.BeamPipelineExtension;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** A file read in parts numbers its lines as the whole file does, and reads each line once. */
@ExtendWith(BeamPipelineExtension.class)
class LineRangeTest {
  // Offsets: a=0 \n=1 | b=2 b=3 \r=4 \n=5 | c=6..8 \r=9 | d=10 d=11 \n=12 | \n=13 | e=14
  private static final String TEXT = "a\nbb\r\nccc\rdd\n\ne";

  @TempDir Path dir;

  @Test
  void partsStartAtLineStartsWithTheirLineNumbers() throws Exception {
    byte[] bytes = TEXT.getBytes(StandardCharsets.US_ASCII);
    assertThat(LineRange.split(new ByteArrayInputStream(bytes), bytes.length, 3))
        .containsExactly(
            new LineRange(0, 6, 1),
            new LineRange(6, 10, 3),
            new LineRange(10, 13, 4),
            new LineRange(13, 15, 5));
    assertThat(LineRange.split(new ByteArrayInputStream(bytes), bytes.length, 100))
        .containsExactly(new LineRange(0, 15, 1));
  }

  @Test
  void aTrackerClaimsTheLinesThatStartInItsPart() {
    LineRange.Tracker t = new LineRange.Tracker(new LineRange(6, 10, 3));
    assertThat(t.tryClaim(6L)).isTrue();
    assertThat(t.tryClaim(10L)).isFalse();
    t.checkDone();
    assertThat(t.trySplit(0)).isNull();
  }

  @Test
  void aFileReadInSmallPartsGivesEveryLineOnceWithItsNumber(TestPipeline p) throws Exception {
    // A byte-order mark, CRLF and lone CR ends, an empty line, a line that is not UTF-8, no final
    // newline; parts of 8 bytes cut the file in many places.
    Path file = dir.resolve("parts.ndjson");
    List<byte[]> chunks =
        List.of(
            new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF},
            "first\r\nsecond line\rthird\n\nfifth ".getBytes(StandardCharsets.UTF_8),
            new byte[] {(byte) 0xFF},
            "\nsixth: café\nseventh".getBytes(StandardCharsets.UTF_8));
    List<Byte> all = new ArrayList<>();
    chunks.forEach(
        c -> {
          for (byte b : c) {
            all.add(b);
          }
        });
    byte[] content = new byte[all.size()];
    for (int i = 0; i < content.length; i++) {
      content[i] = all.get(i);
    }
    Files.write(file, content);

    PAssert.that(
            p.apply(ReadNdjsonLines.from(file.toString()).withPartBytes(8))
                .apply(
                    MapElements.into(TypeDescriptors.strings())
                        .via(
                            (RawEvent r) ->
                                r.getSourceOffset()
                                    + ":"
                                    + r.getPayload()
                                    + (r.getDecodeError() == null ? "" : " !"))))
        .containsInAnyOrder(
            "1:first",
            "2:second line",
            "3:third",
            "4:",
            "5:fifth \\xFF !",
            "6:sixth: café",
            "7:seventh");
    p.run().waitUntilFinish();
  }
}
