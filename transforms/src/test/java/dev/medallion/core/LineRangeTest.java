package dev.medallion.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.medallion.testing.BeamPipelineExtension;
import dev.medallion.testing.Counters;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.PipelineResult;
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

  /**
   * Long lines with every kind of line end, read in uneven pieces: the split (which skips eight
   * bytes at a time where no line ends) cuts where a byte-by-byte walk of the line starts does.
   */
  @Test
  void longLinesAreCutAtTheSameLineStartsAsAByteByByteWalk() throws Exception {
    java.util.Random random = new java.util.Random(7);
    String[] ends = {"\n", "\r\n", "\r", "\n\n", "\r\r\n"};
    StringBuilder text = new StringBuilder();
    for (int l = 0; l < 3000; l++) {
      text.append("x".repeat(random.nextInt(90)));
      text.append(ends[random.nextInt(ends.length)]);
    }
    text.append("tail without an end");
    byte[] bytes = text.toString().getBytes(StandardCharsets.US_ASCII);
    for (long partBytes : new long[] {1, 7, 100, 4096, 50_000, bytes.length}) {
      // Reads of 1 to 37 bytes, so that eight-byte words straddle the reads' ends.
      java.io.InputStream uneven =
          new java.io.FilterInputStream(new ByteArrayInputStream(bytes)) {
            @Override
            public int read(byte[] b, int off, int len) throws java.io.IOException {
              return super.read(b, off, Math.min(len, 1 + random.nextInt(37)));
            }
          };
      assertThat(LineRange.split(uneven, bytes.length, partBytes))
          .as("parts of %d bytes", partBytes)
          .isEqualTo(cutByteByByte(bytes, partBytes))
          .isEqualTo(LineRange.split(new ByteArrayInputStream(bytes), bytes.length, partBytes));
    }
  }

  /** The parts the class comment describes, from every line start found one byte at a time. */
  private static List<LineRange> cutByteByByte(byte[] bytes, long partBytes) {
    List<Integer> starts = new ArrayList<>(List.of(0));
    for (int i = 1; i < bytes.length; i++) {
      if (bytes[i - 1] == '\n' || (bytes[i - 1] == '\r' && bytes[i] != '\n')) {
        starts.add(i);
      }
    }
    List<LineRange> parts = new ArrayList<>();
    int from = 0;
    for (int k = 1; k < starts.size(); k++) {
      if (starts.get(k) - starts.get(from) >= partBytes) {
        parts.add(new LineRange(starts.get(from), starts.get(k), from + 1));
        from = k;
      }
    }
    parts.add(new LineRange(starts.get(from), bytes.length, from + 1));
    return parts;
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
  void aCheckpointLeavesTheRestOfThePartFromTheLastLineClaimedWhichItSkips() {
    LineRange.Tracker t = new LineRange.Tracker(new LineRange(6, 40, 3), 2);
    assertThat(t.trySplit(0)).as("nothing claimed yet").isNull();
    assertThat(t.tryClaim(6L)).isTrue();
    assertThat(t.trySplit(0)).as("fewer lines than a checkpoint's").isNull();
    assertThat(t.tryClaim(11L)).isTrue();
    assertThat(t.trySplit(0.5)).as("only checkpoints").isNull();
    var split = t.trySplit(0);
    assertThat(split.getPrimary()).isEqualTo(new LineRange(6, 12, 3, false));
    assertThat(split.getResidual()).isEqualTo(new LineRange(11, 40, 5, true));
    assertThat(t.tryClaim(20L)).as("the next line is the rest's").isFalse();
    t.checkDone();
    LineRange.Tracker compressed = new LineRange.Tracker(new LineRange(0, Long.MAX_VALUE, 1));
    assertThat(compressed.tryClaim(0L)).isTrue();
    assertThat(compressed.trySplit(0)).as("a compressed file cannot seek").isNull();
  }

  @Test
  void aReaderMayGiveWayAfterAnyLineItClaimed() {
    LineRange.Tracker t = new LineRange.Tracker(new LineRange(6, 40, 3));
    assertThat(t.tryClaim(LineRange.Tracker.YIELD)).as("nothing claimed yet").isFalse();
    assertThat(t.tryClaim(6L)).isTrue();
    assertThat(t.trySplit(0)).as("fewer lines than a checkpoint's").isNull();
    assertThat(t.tryClaim(LineRange.Tracker.YIELD)).isTrue();
    var split = t.trySplit(0);
    assertThat(split.getPrimary()).isEqualTo(new LineRange(6, 7, 3, false));
    assertThat(split.getResidual()).isEqualTo(new LineRange(6, 40, 4, true));
    assertThat(t.trySplit(0)).as("cut once").isNull();
    t.checkDone(); // the reader stops after the line it claimed last

    // The runner checkpointed first: giving way leaves that checkpoint as it is.
    LineRange.Tracker checkpointed = new LineRange.Tracker(new LineRange(0, 40, 1), 2);
    assertThat(checkpointed.tryClaim(0L)).isTrue();
    assertThat(checkpointed.tryClaim(5L)).isTrue();
    assertThat(checkpointed.trySplit(0).getResidual()).isEqualTo(new LineRange(5, 40, 3, true));
    assertThat(checkpointed.tryClaim(LineRange.Tracker.YIELD)).isTrue();
    assertThat(checkpointed.trySplit(0)).isNull();
    checkpointed.checkDone();

    LineRange.Tracker unfinished = new LineRange.Tracker(new LineRange(0, 40, 1));
    assertThat(unfinished.tryClaim(0L)).isTrue();
    assertThatThrownBy(unfinished::checkDone).hasMessageContaining("were not read");

    LineRange.Tracker compressed = new LineRange.Tracker(new LineRange(0, Long.MAX_VALUE, 1));
    assertThat(compressed.tryClaim(0L)).isTrue();
    assertThat(compressed.tryClaim(LineRange.Tracker.YIELD)).isFalse();
  }

  @Test
  void aPartThatPausesWhenTheHeapIsFullStillGivesEveryLineOnce(TestPipeline p) throws Exception {
    // Any heap in use is "full" here: the part pauses after every 10,000 lines, twice in 25,003.
    HeapAfterGc.share();
    for (int i = 0; i < 100 && HeapAfterGc.share() == 0; i++) {
      System.gc();
      Thread.sleep(100);
    }
    assertThat(HeapAfterGc.share()).as("the heap after a collection").isGreaterThan(0);
    Path file = dir.resolve("pausing.ndjson");
    List<String> expected = new ArrayList<>();
    StringBuilder text = new StringBuilder();
    for (int i = 1; i <= 25_003; i++) {
      text.append("line ").append(i).append('\n');
      expected.add(i + ":line " + i);
    }
    Files.writeString(file, text.toString());
    PAssert.that(
            p.apply(ReadNdjsonLines.from(file.toString()).pausingAboveHeapShare(1e-12))
                .apply(
                    MapElements.into(TypeDescriptors.strings())
                        .via((RawEvent r) -> r.getSourceOffset() + ":" + r.getPayload())))
        .containsInAnyOrder(expected);
    PipelineResult result = p.run();
    assertThat(Counters.of(result, ReadNdjsonLines.class.getName()))
        .containsEntry("read_pauses", 2L);
  }

  @Test
  void aPartCheckpointedByTheRunnerGivesEveryLineOnceWithItsNumber(TestPipeline p)
      throws Exception {
    // The DirectRunner checkpoints a part as soon as it may (here every 10,000 lines): 25,003 lines
    // of varied ends and lengths are read as three pieces, each resuming after the last line of
    // the one before.
    Path file = dir.resolve("long.ndjson");
    StringBuilder text = new StringBuilder();
    List<String> expected = new ArrayList<>();
    String[] ends = {"\n", "\r\n", "\r"};
    for (int i = 1; i <= 25_003; i++) {
      String line = i % 997 == 0 ? "" : "line " + i + "x".repeat(i % 7);
      // An empty line ends with CRLF: after a lone CR, "\n" would read as that CR's LF.
      text.append(line).append(line.isEmpty() ? "\r\n" : ends[i % 3]);
      expected.add(i + ":" + line);
    }
    Files.writeString(file, text.toString());
    PAssert.that(
            p.apply(ReadNdjsonLines.from(file.toString()).withLinesPerCheckpoint(10_000))
                .apply(
                    MapElements.into(TypeDescriptors.strings())
                        .via((RawEvent r) -> r.getSourceOffset() + ":" + r.getPayload())))
        .containsInAnyOrder(expected);
    p.run().waitUntilFinish();
  }

  @Test
  void aFileReadInSmallPartsGivesEveryLineOnceWithItsNumber(TestPipeline p) throws Exception {
    // A byte-order mark, CRLF and lone CR ends, an empty line, a line that is not UTF-8, no final
    // newline; parts of 8 bytes asked cut the file in several places.
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

    List<String> expected =
        List.of(
            "1:first",
            "2:second line",
            "3:third",
            "4:",
            "5:fifth \\xFF !",
            "6:sixth: café",
            "7:seventh");
    // at most 4 parts, then as many 8-byte parts as there are (a cut in nearly every line)
    for (int maxParts : new int[] {ReadNdjsonLines.MAX_PARTS, 64}) {
      PAssert.that(
              p.apply(
                      "Read" + maxParts,
                      ReadNdjsonLines.from(file.toString()).withPartBytes(8).withMaxParts(maxParts))
                  .apply(
                      "Show" + maxParts,
                      MapElements.into(TypeDescriptors.strings())
                          .via(
                              (RawEvent r) ->
                                  r.getSourceOffset()
                                      + ":"
                                      + r.getPayload()
                                      + (r.getDecodeError() == null ? "" : " !"))))
          .containsInAnyOrder(expected);
    }
    p.run().waitUntilFinish();
  }

  @Test
  void aLargeFileIsReadInFourPartsUnlessMoreAreAllowed() {
    long size = 415_234_982L; // the 2M-event benchmark file
    long defaultPart =
        new ReadNdjsonLines.ReadLinesFn(
                32L << 20, ReadNdjsonLines.MAX_PARTS, 1, InputFormat.AUTO, 0)
            .partBytes(size);
    long manyParts =
        new ReadNdjsonLines.ReadLinesFn(32L << 20, 1024, 1, InputFormat.AUTO, 0).partBytes(size);
    assertThat(defaultPart).isEqualTo(103_808_746L); // a quarter, rounded up
    assertThat(manyParts).isEqualTo(33_554_432L); // 32 MiB: 13 parts
    assertThatThrownBy(() -> ReadNdjsonLines.from("x").withMaxParts(2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least 4 parts");
  }
}
