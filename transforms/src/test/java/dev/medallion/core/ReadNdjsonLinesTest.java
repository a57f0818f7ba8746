package dev.medallion.core;

import dev.medallion.iot.BronzeEvent;
import dev.medallion.iot.IngestToBronze;
import dev.medallion.testing.BeamPipelineExtension;
import dev.medallion.users.IngestUserEvents;
import dev.medallion.users.UserEventBronze;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files as they come: a byte-order mark, a byte that is not UTF-8, CRLF and lone CR line ends, no
 * final newline. Every line reaches Bronze with its file and line number, and none fails the job.
 */
@ExtendWith(BeamPipelineExtension.class)
class ReadNdjsonLinesTest {
  static final String READING = dev.medallion.iot.IngestToBronzeTest.READING;
  static final String HEARTBEAT = dev.medallion.iot.IngestToBronzeTest.HEARTBEAT;
  static final byte[] BOM = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};

  @TempDir Path dir;

  private String write(String name, Object... parts) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    for (Object part : parts) {
      bytes.write(part instanceof byte[] b ? b : ((String) part).getBytes(StandardCharsets.UTF_8));
    }
    Path file = dir.resolve(name);
    Files.write(file, bytes.toByteArray());
    return file.toString();
  }

  private static byte[] bytes(int... values) {
    byte[] b = new byte[values.length];
    for (int i = 0; i < values.length; i++) {
      b[i] = (byte) values[i];
    }
    return b;
  }

  private static PCollection<String> sourcesAndKinds(PCollectionTuple bronze) {
    return bronze
        .get(IngestToBronze.EVENTS)
        .apply(
            "SourceAndKind",
            MapElements.into(TypeDescriptors.strings())
                .via((BronzeEvent e) -> e.getSource() + "|" + e.getEventKind()));
  }

  private static PCollection<String> deadLetters(PCollection<DeadLetter> dead) {
    return dead.apply(
        "DeadLetter",
        MapElements.into(TypeDescriptors.strings())
            .via(
                (DeadLetter d) ->
                    String.join(
                        "|",
                        d.getStage(),
                        d.getSource(),
                        d.getReason(),
                        d.getDetail(),
                        d.getOriginalPayload())));
  }

  /** The JSON of a reading, pretty-printed over {@code 1 + fields} lines. */
  private static final String PRETTY_READING =
      "{\n  \"device_id\": \"dev-0001\",\n  \"sensor_type\": \"temperature\",\n"
          + "  \"value\": 21.5,\n  \"unit\": \"C\",\n  \"ts\": \"2026-11-29T10:00:00Z\"\n}";

  @Test
  void eachFileIsReadAsItsFirstLinesSayWithEachDocumentAtItsStartLine(TestPipeline p)
      throws Exception {
    String pretty = write("pretty.json", PRETTY_READING + "\n" + PRETTY_READING + "\n");
    String array = write("array.json", BOM, "[\n  " + READING + ",\n  " + HEARTBEAT + "\n]\n");
    String minified = write("minified.json", "[" + READING + "," + READING + "]");
    String lines = write("lines.ndjson", READING + "\n" + HEARTBEAT + "\n");
    PCollectionTuple out =
        p.apply(ReadNdjsonLines.from(dir.resolve("*").toString())).apply(IngestToBronze.create());
    PAssert.that(sourcesAndKinds(out))
        .containsInAnyOrder(
            "file:" + pretty + "#1|reading",
            "file:" + pretty + "#8|reading",
            "file:" + array + "#2|reading",
            "file:" + array + "#3|heartbeat",
            "file:" + minified + "#1|reading",
            "file:" + minified + "/2#1|reading",
            "file:" + lines + "#1|reading",
            "file:" + lines + "#2|heartbeat");
    PAssert.that(out.get(IngestToBronze.DEAD_LETTERS)).empty();
    PAssert.that(
            out.get(IngestToBronze.EVENTS)
                .apply(
                    "PrettyPayloads",
                    MapElements.into(TypeDescriptors.strings())
                        .via((BronzeEvent e) -> e.getSource() + "=" + e.getRawPayload())))
        .satisfies(
            all -> {
              org.assertj.core.api.Assertions.assertThat(all)
                  .contains("file:" + pretty + "#8=" + PRETTY_READING)
                  .contains("file:" + array + "#2=" + READING);
              return null;
            });
    p.run();
  }

  @Test
  void compressedFilesAreReadByTheirExtensionAndTheirFormatDetectedInside(TestPipeline p)
      throws Exception {
    Path gz = dir.resolve("lines.ndjson.gz");
    try (java.io.OutputStream out = new java.util.zip.GZIPOutputStream(Files.newOutputStream(gz))) {
      out.write((READING + "\n" + HEARTBEAT + "\n").getBytes(StandardCharsets.UTF_8));
    }
    Path bz2 = dir.resolve("pretty.json.bz2");
    try (java.io.OutputStream out =
        new org.apache.commons.compress.compressors.bzip2.BZip2CompressorOutputStream(
            Files.newOutputStream(bz2))) {
      out.write(("[\n" + PRETTY_READING + "\n]\n").getBytes(StandardCharsets.UTF_8));
    }
    PCollectionTuple out =
        p.apply(ReadNdjsonLines.from(dir.resolve("*").toString())).apply(IngestToBronze.create());
    PAssert.that(sourcesAndKinds(out))
        .containsInAnyOrder(
            "file:" + gz + "#1|reading",
            "file:" + gz + "#2|heartbeat",
            "file:" + bz2 + "#2|reading");
    PAssert.that(out.get(IngestToBronze.DEAD_LETTERS)).empty();
    p.run();
  }

  @Test
  void csvFilesAreReadRowByRowIntoBronzeAndABadRowIsADeadLetter(TestPipeline p) throws Exception {
    String csv =
        write(
            "readings.csv",
            "device_id,sensor_type,value,unit,ts\n"
                + "dev-0001,temperature,21.5,C,2026-11-29T10:00:00Z\n"
                + "dev-0001,humidity,40,%,2026-11-29T10:00:01Z,extra\n"
                + "dev-0002,pressure,1001.5,hPa,2026-11-29T10:00:02Z\n");
    PCollectionTuple out = p.apply(ReadNdjsonLines.from(csv)).apply(IngestToBronze.create());
    PAssert.that(sourcesAndKinds(out))
        .containsInAnyOrder("file:" + csv + "#2|reading", "file:" + csv + "#4|reading");
    PAssert.that(deadLetters(out.get(IngestToBronze.DEAD_LETTERS)))
        .containsInAnyOrder(
            "bronze|file:"
                + csv
                + "#3|bad_csv_row|expected 5 cells (the header's), got 6|{\"device_id\":\"dev-0001\","
                + "\"sensor_type\":\"humidity\",\"value\":40,\"unit\":\"%\","
                + "\"ts\":\"2026-11-29T10:00:01Z\",\"_6\":\"extra\"}");
    PAssert.that(
            out.get(IngestToBronze.EVENTS)
                .apply(
                    "Values",
                    MapElements.into(TypeDescriptors.strings())
                        .via((BronzeEvent e) -> e.getDeviceId() + "=" + e.getValue())))
        .containsInAnyOrder("dev-0001=21.5", "dev-0002=1001.5");
    p.run();
  }

  @Test
  void aPrettyPrintedFileReadAsNdjsonIsRejectedLineByLine(TestPipeline p) throws Exception {
    String pretty = write("pretty.json", PRETTY_READING + "\n");
    PCollectionTuple out =
        p.apply(ReadNdjsonLines.from(pretty).withFormat(InputFormat.NDJSON))
            .apply(IngestToBronze.create());
    PAssert.that(out.get(IngestToBronze.EVENTS)).empty();
    PAssert.that(
            out.get(IngestToBronze.DEAD_LETTERS)
                .apply(
                    "Reasons",
                    MapElements.into(TypeDescriptors.strings())
                        .via((DeadLetter d) -> d.getSource() + "|" + d.getReason())))
        .containsInAnyOrder(
            "file:" + pretty + "#1|not_json",
            "file:" + pretty + "#2|trailing_data",
            "file:" + pretty + "#3|trailing_data",
            "file:" + pretty + "#4|trailing_data",
            "file:" + pretty + "#5|trailing_data",
            "file:" + pretty + "#6|trailing_data",
            "file:" + pretty + "#7|not_json");
    p.run();
  }

  @Test
  void aByteOrderMarkAtTheStartOfAFileIsNotPartOfTheFirstLine(TestPipeline p) throws Exception {
    String file = write("bom.ndjson", BOM, READING + "\n" + HEARTBEAT + "\n");
    PCollectionTuple out = p.apply(ReadNdjsonLines.from(file)).apply(IngestToBronze.create());

    PAssert.that(sourcesAndKinds(out))
        .containsInAnyOrder("file:" + file + "#1|reading", "file:" + file + "#2|heartbeat");
    PAssert.that(out.get(IngestToBronze.DEAD_LETTERS)).empty();
    p.run();
  }

  @Test
  void aLineThatIsNotUtf8IsADeadLetterAndTheOtherLinesAreRead(TestPipeline p) throws Exception {
    String file =
        write(
            "bad.ndjson",
            READING + "\n",
            "{\"device_id\":\"dev-",
            bytes(0xFF),
            "\",\"status\":\"ok\",\"ts\":1795947330123}\n",
            HEARTBEAT + "\n");
    PCollectionTuple out = p.apply(ReadNdjsonLines.from(file)).apply(IngestToBronze.create());

    PAssert.that(sourcesAndKinds(out))
        .containsInAnyOrder("file:" + file + "#1|reading", "file:" + file + "#3|heartbeat");
    PAssert.that(deadLetters(out.get(IngestToBronze.DEAD_LETTERS)))
        .containsInAnyOrder(
            "bronze|file:"
                + file
                + "#2|invalid_utf8|line is not valid UTF-8 (byte 0xFF at offset 18)"
                + "|{\"device_id\":\"dev-\\xFF\",\"status\":\"ok\",\"ts\":1795947330123}");
    p.run();
  }

  @Test
  void aUserEventLineThatIsNotUtf8IsADeadLetter(TestPipeline p) throws Exception {
    String ok =
        "{\"user_id\":\"u-1\",\"event_type\":\"click\","
            + "\"event_timestamp\":\"2026-11-28T10:15:30.123Z\"}";
    String file =
        write(
            "users.ndjson",
            ok + "\n",
            "{\"user_id\":\"u-",
            bytes(0xFF),
            "\"}\n",
            "{\"user_id\":\"u-\u00e9",
            bytes(0xC3),
            "\"}");
    PCollectionTuple out =
        p.apply(ReadNdjsonLines.from(file)).apply(IngestUserEvents.at(new Instant(0)));

    PAssert.that(
            out.get(IngestUserEvents.EVENTS)
                .apply(
                    "SourceAndLine",
                    MapElements.into(TypeDescriptors.strings())
                        .via((UserEventBronze e) -> e.getSource() + "|" + e.getRawLine())))
        .containsInAnyOrder("file:" + file + "#1|" + ok);
    PAssert.that(deadLetters(out.get(IngestUserEvents.DEAD_LETTERS)))
        .containsInAnyOrder(
            "bronze|file:"
                + file
                + "#2|invalid_utf8|line is not valid UTF-8 (byte 0xFF at offset 14)"
                + "|{\"user_id\":\"u-\\xFF\"}",
            "bronze|file:"
                + file
                + "#3|invalid_utf8|line is not valid UTF-8 (byte 0xC3 at offset 16)"
                + "|{\"user_id\":\"u-\u00e9\\xC3\"}");
    p.run();
  }

  @Test
  void crlfAndLoneCrEndLinesAndAFinalLineNeedsNoNewline(TestPipeline p) throws Exception {
    String crlf = write("crlf.ndjson", READING + "\r\n" + HEARTBEAT + "\r\n");
    String mixed = write("mixed.ndjson", READING + "\r\n\r\n" + HEARTBEAT + "\r" + READING);
    String noFinalNewline = write("last.ndjson", HEARTBEAT + "\n" + READING);
    PCollection<RawEvent> lines =
        p.apply(ReadNdjsonLines.fromFiles(java.util.List.of(crlf, mixed, noFinalNewline)));
    PCollectionTuple out = lines.apply(IngestToBronze.create());

    PAssert.that(
            lines.apply(
                "LineIdAndPayload",
                MapElements.into(TypeDescriptors.strings())
                    .via((RawEvent r) -> r.lineId() + "|" + r.getPayload())))
        .containsInAnyOrder(
            "file:" + crlf + "#1|" + READING,
            "file:" + crlf + "#2|" + HEARTBEAT,
            "file:" + mixed + "#1|" + READING,
            "file:" + mixed + "#2|",
            "file:" + mixed + "#3|" + HEARTBEAT,
            "file:" + mixed + "#4|" + READING,
            "file:" + noFinalNewline + "#1|" + HEARTBEAT,
            "file:" + noFinalNewline + "#2|" + READING);
    PAssert.that(
            out.get(IngestToBronze.DEAD_LETTERS)
                .apply(
                    "SourceAndReason",
                    MapElements.into(TypeDescriptors.strings())
                        .via((DeadLetter d) -> d.getSource() + "|" + d.getReason())))
        .containsInAnyOrder("file:" + mixed + "#2|empty_line");
    p.run();
  }
}
