package dev.medallion.core;

import java.io.IOException;
import java.nio.channels.Channels;
import java.util.List;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.io.FileIO;
import org.apache.beam.sdk.io.fs.EmptyMatchTreatment;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.PBegin;
import org.apache.beam.sdk.values.PCollection;

/**
 * Reads NDJSON files line by line as {@link RawEvent}s, each with its file and 1-based line number
 * as source, so every line of every file can be traced to the row or dead letter it became. A file
 * pattern that matches nothing is an error: a replay of nothing is a mistake. Each line is decoded
 * as UTF-8 on its own (see {@link Utf8Lines}): a line that is not valid UTF-8 does not stop the job
 * but carries its {@link RawEvent#getDecodeError() decode error} to Bronze, which rejects it as
 * {@code invalid_utf8}; a byte-order mark at the start of a file is skipped.
 */
public class ReadNdjsonLines extends PTransform<PBegin, PCollection<RawEvent>> {
  private final List<String> filepatterns;

  private ReadNdjsonLines(List<String> filepatterns) {
    this.filepatterns = filepatterns;
  }

  public static ReadNdjsonLines from(String filepattern) {
    return new ReadNdjsonLines(List.of(filepattern));
  }

  /** Exactly these files (or patterns), each of which must match. */
  public static ReadNdjsonLines fromFiles(List<String> files) {
    return new ReadNdjsonLines(List.copyOf(files));
  }

  @Override
  public PCollection<RawEvent> expand(PBegin begin) {
    return begin
        .apply("Patterns", Create.of(filepatterns).withCoder(StringUtf8Coder.of()))
        .apply(
            "MatchFiles", FileIO.matchAll().withEmptyMatchTreatment(EmptyMatchTreatment.DISALLOW))
        .apply("ReadMatches", FileIO.readMatches())
        .apply("ReadLines", ParDo.of(new ReadLinesFn()));
  }

  static class ReadLinesFn extends DoFn<FileIO.ReadableFile, RawEvent> {
    @ProcessElement
    public void process(@Element FileIO.ReadableFile file, OutputReceiver<RawEvent> out) {
      String name = file.getMetadata().resourceId().toString();
      long n = 0;
      try (Utf8Lines lines = new Utf8Lines(Channels.newInputStream(file.open()))) {
        for (Utf8Lines.Line line = lines.next(); line != null; line = lines.next()) {
          n++;
          out.output(RawEvent.of(line.text(), "file", name, null, n, null, line.decodeError()));
        }
      } catch (IOException e) {
        throw new MedallionException(
            "cannot read input file "
                + name
                + (n == 0 ? "" : " after line " + n)
                + ": "
                + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()),
            e);
      }
    }
  }
}
