package dev.medallion.core;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.util.List;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.SerializableCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.io.Compression;
import org.apache.beam.sdk.io.FileIO;
import org.apache.beam.sdk.io.fs.EmptyMatchTreatment;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.splittabledofn.RestrictionTracker;
import org.apache.beam.sdk.values.PBegin;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionView;
import org.joda.time.Duration;

/**
 * Reads NDJSON files line by line as {@link RawEvent}s, each with its file and 1-based line number
 * as source, so every line of every file can be traced to the row or dead letter it became. A file
 * pattern that matches nothing is an error: a replay of nothing is a mistake. Each line is decoded
 * as UTF-8 on its own (see {@link Utf8Lines}): a line that is not valid UTF-8 does not stop the job
 * but carries its {@link RawEvent#getDecodeError() decode error} to Bronze, which rejects it as
 * {@code invalid_utf8}; a byte-order mark at the start of a file is skipped.
 *
 * <p>The read is splittable: Beam's {@link FileIO} matches the files, and a splittable {@code DoFn}
 * cuts each uncompressed file of 1 MiB or more into parts that start at line starts ({@link
 * LineRange}): at least {@link #MIN_PARTS}, of at most {@link #PART_BYTES} each unless that makes
 * more than {@link #withMaxParts the most parts} (by default {@link #MAX_PARTS}, 4, so that a file
 * of 4 MiB or more is read in exactly 4 parts); read in parallel, each numbering its lines as the
 * whole file does. A runner may checkpoint a part every {@link
 * LineRange.Tracker#LINES_PER_CHECKPOINT} lines, so the DirectRunner's bundles stay that small.
 * (Beam's {@code ContextualTextIO} numbers lines too, but decodes bad bytes into U+FFFD instead of
 * reporting them, and numbers lines in an extra pass over every line.) A compressed file is one
 * part. {@link #replay()} reads the same files again after some side inputs are ready.
 *
 * <p>A file of JSON documents over several lines ({@link InputFormat#JSON}: pretty-printed objects,
 * or an array; {@link #withFormat}, by default told per file from its first lines) is read whole as
 * one part, each document one {@link RawEvent} numbered by the line it starts on ({@link
 * JsonDocuments}).
 */
public class ReadNdjsonLines extends PTransform<PBegin, PCollection<RawEvent>> {
  /**
   * The most a part holds, unless that makes more than the most parts (then a part is that fraction
   * of the file). On Spark a part's lines wait in memory until it has been read (see {@code
   * RunnerDefaults}): with parts of 32 MiB, what the 1M IoT replay's first collections left alive
   * grew to about 200 MB, and the heap filled to a full collection. With 8 MiB, by hand on Spark
   * {@code local[2]}, {@code users} at 2M took 20.4 s against 22.0 s, and the replay 14.4 to 15.0 s
   * against 14.8 to 15.1 s (within the variation between runs). The DirectRunner reads a large file
   * in its {@link #MAX_PARTS} parts whatever this is.
   */
  public static final long PART_BYTES = 8L << 20;

  /** A file this large or larger is read in {@link #MIN_PARTS} parts at least. */
  static final long MIN_PART_BYTES = 1L << 20;

  static final int MIN_PARTS = 4;

  /**
   * By default a file is read in at most this many parts, larger than the part size if need be: the
   * DirectRunner reads every part at once, a checkpoint's worth of lines at a time, so the lines in
   * flight grow with the number of parts, not with the file. (A runner that does not read every
   * part at once, such as Spark, can take more, smaller parts: {@link #withMaxParts}.)
   */
  public static final int MAX_PARTS = 4;

  /** How often a part that may pause looks at the heap, in lines. */
  static final long LINES_PER_LOOK = 10_000;

  /** How long a part pauses when the heap is full. */
  static final Duration PAUSE = Duration.millis(250);

  private final List<String> filepatterns;
  private final long partBytes;
  private final int maxParts;
  private final long linesPerCheckpoint;
  private final InputFormat format;
  private final double pauseAboveHeapShare;
  private final transient List<PCollectionView<?>> after;

  private ReadNdjsonLines(
      List<String> filepatterns,
      long partBytes,
      int maxParts,
      long linesPerCheckpoint,
      InputFormat format,
      double pauseAboveHeapShare,
      List<PCollectionView<?>> after) {
    this.filepatterns = filepatterns;
    this.partBytes = partBytes;
    this.maxParts = maxParts;
    this.linesPerCheckpoint = linesPerCheckpoint;
    this.format = format;
    this.pauseAboveHeapShare = pauseAboveHeapShare;
    this.after = after;
  }

  public static ReadNdjsonLines from(String filepattern) {
    return new ReadNdjsonLines(
        List.of(filepattern),
        PART_BYTES,
        MAX_PARTS,
        LineRange.Tracker.LINES_PER_CHECKPOINT,
        InputFormat.AUTO,
        0,
        List.of());
  }

  /** Exactly these files (or patterns), each of which must match. */
  public static ReadNdjsonLines fromFiles(List<String> files) {
    return new ReadNdjsonLines(
        List.copyOf(files),
        PART_BYTES,
        MAX_PARTS,
        LineRange.Tracker.LINES_PER_CHECKPOINT,
        InputFormat.AUTO,
        0,
        List.of());
  }

  /** Reads files larger than {@code bytes} in parts of about that size. */
  public ReadNdjsonLines withPartBytes(long bytes) {
    return new ReadNdjsonLines(
        filepatterns, bytes, maxParts, linesPerCheckpoint, format, pauseAboveHeapShare, after);
  }

  /**
   * Reads a file in at most {@code parts} parts ({@link #MAX_PARTS} by default): more parts, of at
   * most the part size, for a runner that spreads parts over its tasks rather than reading them all
   * at once.
   */
  public ReadNdjsonLines withMaxParts(int parts) {
    if (parts < MIN_PARTS) {
      throw new IllegalArgumentException(
          "a file is read in at least " + MIN_PARTS + " parts, not at most " + parts);
    }
    return new ReadNdjsonLines(
        filepatterns, partBytes, parts, linesPerCheckpoint, format, pauseAboveHeapShare, after);
  }

  /**
   * Reads every file as {@code format} ({@link InputFormat#AUTO} by default: each file as its first
   * lines say).
   */
  public ReadNdjsonLines withFormat(InputFormat format) {
    return new ReadNdjsonLines(
        filepatterns, partBytes, maxParts, linesPerCheckpoint, format, pauseAboveHeapShare, after);
  }

  /**
   * Pauses a part for {@link #PAUSE} whenever the heap, after the latest garbage collection, is
   * fuller than {@code share} of its maximum (looked at every {@link #LINES_PER_LOOK} lines; 0:
   * never): the part gives way with a checkpoint ({@link LineRange.Tracker#YIELD}) and resumes
   * after the pause, so the steps after the read catch up. For a runner that pushes what it reads
   * to the next steps without bound (the DirectRunner: every bundle waits whole in memory until all
   * its consumers have run). A part that cannot be checkpointed (a compressed file, JSON documents,
   * CSV) never pauses.
   */
  public ReadNdjsonLines pausingAboveHeapShare(double share) {
    if (share < 0 || share > 1) {
      throw new IllegalArgumentException("a share of the heap is in [0, 1], not " + share);
    }
    return new ReadNdjsonLines(
        filepatterns, partBytes, maxParts, linesPerCheckpoint, format, share, after);
  }

  /** Lets a runner checkpoint a part after {@code lines} lines (tests). */
  ReadNdjsonLines withLinesPerCheckpoint(long lines) {
    return new ReadNdjsonLines(
        filepatterns, partBytes, maxParts, lines, format, pauseAboveHeapShare, after);
  }

  /** The same read as a {@link Replay}: a second read starts only once its views are ready. */
  public Replay<RawEvent> replay() {
    return (begin, name, views) ->
        begin.apply(
            name,
            new ReadNdjsonLines(
                filepatterns,
                partBytes,
                maxParts,
                linesPerCheckpoint,
                format,
                pauseAboveHeapShare,
                List.copyOf(views)));
  }

  @Override
  public PCollection<RawEvent> expand(PBegin begin) {
    PCollection<String> patterns =
        begin.apply("Patterns", Create.of(filepatterns).withCoder(StringUtf8Coder.of()));
    if (after != null && !after.isEmpty()) {
      patterns = patterns.apply("AfterViews", Replay.afterViews(after));
    }
    return patterns
        .apply(
            "MatchFiles", FileIO.matchAll().withEmptyMatchTreatment(EmptyMatchTreatment.DISALLOW))
        .apply("ReadMatches", FileIO.readMatches())
        .apply(
            "ReadLines",
            ParDo.of(
                new ReadLinesFn(
                    partBytes, maxParts, linesPerCheckpoint, format, pauseAboveHeapShare)));
  }

  /** Reads the lines of one part of a file, numbered as in the whole file. */
  @DoFn.BoundedPerElement
  static class ReadLinesFn extends DoFn<FileIO.ReadableFile, RawEvent> {
    private final long partBytes;
    private final int maxParts;
    private final long linesPerCheckpoint;
    private final InputFormat format;
    private final double pauseAboveHeapShare;
    private final Counter pauses = Metrics.counter(ReadNdjsonLines.class, "read_pauses");

    ReadLinesFn(
        long partBytes,
        int maxParts,
        long linesPerCheckpoint,
        InputFormat format,
        double pauseAboveHeapShare) {
      this.partBytes = partBytes;
      this.maxParts = maxParts;
      this.linesPerCheckpoint = linesPerCheckpoint;
      this.format = format;
      this.pauseAboveHeapShare = pauseAboveHeapShare;
    }

    /** A file of JSON documents or CSV rows, like a compressed file, is one part, never split. */
    @GetInitialRestriction
    public LineRange whole(@Element FileIO.ReadableFile file) {
      boolean onepart = !seekable(file) || formatOf(file) != InputFormat.NDJSON;
      return new LineRange(0, onepart ? Long.MAX_VALUE : file.getMetadata().sizeBytes(), 1);
    }

    /** The file's format: {@link #format}, or for AUTO what its name or first lines say. */
    private InputFormat formatOf(FileIO.ReadableFile file) {
      if (format != InputFormat.AUTO) {
        return format;
      }
      if (InputFormat.isCsvName(file.getMetadata().resourceId().getFilename())) {
        return InputFormat.CSV;
      }
      try (InputStream in = Channels.newInputStream(file.open())) {
        return InputFormat.detect(in);
      } catch (IOException e) {
        throw cannotRead(file, 0, e);
      }
    }

    @SplitRestriction
    public void split(
        @Element FileIO.ReadableFile file,
        @Restriction LineRange whole,
        OutputReceiver<LineRange> parts) {
      long size = whole.to() - whole.from();
      long part = partBytes(size);
      if (whole.to() == Long.MAX_VALUE || size <= part || whole.from() != 0) {
        parts.output(whole);
        return;
      }
      try (InputStream in = Channels.newInputStream(file.open())) {
        LineRange.split(in, whole.to(), part).forEach(parts::output);
      } catch (IOException e) {
        throw cannotRead(file, 0, e);
      }
    }

    /**
     * About a {@link #MIN_PARTS}th of the file, but at least {@link #MIN_PART_BYTES} and at most
     * the part size, so that a middling file still keeps every core busy; and at least a {@code
     * maxParts}th of the file, which wins for every file larger than {@code maxParts} part sizes.
     */
    long partBytes(long size) {
      long quarter = (size + MIN_PARTS - 1) / MIN_PARTS;
      long part = Math.min(partBytes, Math.max(quarter, Math.min(partBytes, MIN_PART_BYTES)));
      return Math.max(part, (size + maxParts - 1) / maxParts);
    }

    @NewTracker
    public LineRange.Tracker tracker(@Restriction LineRange part) {
      return new LineRange.Tracker(part, linesPerCheckpoint);
    }

    @GetRestrictionCoder
    public Coder<LineRange> restrictionCoder() {
      return SerializableCoder.of(LineRange.class);
    }

    @GetSize
    public double size(@Element FileIO.ReadableFile file, @Restriction LineRange part) {
      long to = part.to() == Long.MAX_VALUE ? file.getMetadata().sizeBytes() : part.to();
      return Math.max(0, to - part.from());
    }

    @ProcessElement
    public ProcessContinuation process(
        @Element FileIO.ReadableFile file,
        RestrictionTracker<LineRange, Long> tracker,
        OutputReceiver<RawEvent> out) {
      LineRange part = tracker.currentRestriction();
      String name = file.getMetadata().resourceId().toString();
      InputFormat fileFormat =
          part.from() == 0 && part.to() == Long.MAX_VALUE ? formatOf(file) : InputFormat.NDJSON;
      if (fileFormat == InputFormat.JSON) {
        readDocuments(file, name, tracker, out);
        return ProcessContinuation.stop();
      }
      if (fileFormat == InputFormat.CSV) {
        readCsv(file, name, tracker, out);
        return ProcessContinuation.stop();
      }
      boolean mayPause = pauseAboveHeapShare > 0 && part.to() != Long.MAX_VALUE;
      long n = part.firstLine();
      try (Utf8Lines lines = open(file, part.from())) {
        if (part.skipFirst()) {
          lines.next(); // read before the checkpoint this part resumes from
        }
        for (Utf8Lines.Line line = lines.next(); ; line = lines.next()) {
          if (line == null) {
            tracker.tryClaim(Long.MAX_VALUE); // the end of the file: the part is done
            return ProcessContinuation.stop();
          }
          if (!tracker.tryClaim(lines.lineStart())) {
            return ProcessContinuation.stop();
          }
          out.output(RawEvent.of(line.text(), "file", name, null, n, null, line.decodeError()));
          n++;
          if (mayPause && (n - part.firstLine()) % LINES_PER_LOOK == 0 && heapFull()) {
            if (!tracker.tryClaim(LineRange.Tracker.YIELD)) {
              throw new IllegalStateException("a part of " + name + " could not pause");
            }
            pauses.inc();
            return ProcessContinuation.resume().withResumeDelay(PAUSE);
          }
        }
      } catch (IOException e) {
        throw cannotRead(file, n - 1, e);
      }
    }

    private boolean heapFull() {
      return HeapAfterGc.share() > pauseAboveHeapShare;
    }

    /** Each JSON document of the file, numbered by the line it starts on. */
    private static void readDocuments(
        FileIO.ReadableFile file,
        String name,
        RestrictionTracker<LineRange, Long> tracker,
        OutputReceiver<RawEvent> out) {
      if (!tracker.tryClaim(0L)) {
        return;
      }
      long line = 0;
      int onLine = 0;
      try (JsonDocuments documents = new JsonDocuments(Channels.newInputStream(file.open()))) {
        for (JsonDocuments.Document d = documents.next(); d != null; d = documents.next()) {
          onLine = d.line() == line ? onLine + 1 : 1;
          line = d.line();
          // The second and later documents that start on one line (a minified array) are told
          // apart by their number on it: file:<path>/<n>#<line>.
          Integer nth = onLine == 1 ? null : onLine;
          out.output(RawEvent.of(d.text(), "file", name, nth, line, null, d.decodeError()));
        }
      } catch (IOException e) {
        throw cannotRead(file, line, e);
      }
      tracker.tryClaim(Long.MAX_VALUE); // the end of the file: the part is done
    }

    /** Each row of a CSV file, numbered by the line it starts on. */
    private static void readCsv(
        FileIO.ReadableFile file,
        String name,
        RestrictionTracker<LineRange, Long> tracker,
        OutputReceiver<RawEvent> out) {
      if (!tracker.tryClaim(0L)) {
        return;
      }
      long line = 0;
      try (CsvRecords rows = new CsvRecords(Channels.newInputStream(file.open()), name)) {
        for (CsvRecords.Row r = rows.next(); r != null; r = rows.next()) {
          line = r.line();
          out.output(
              RawEvent.of(r.json(), "file", name, null, line, null, r.decodeError(), r.error()));
        }
      } catch (IOException e) {
        throw cannotRead(file, line, e);
      }
      tracker.tryClaim(Long.MAX_VALUE); // the end of the file: the part is done
    }

    /** The file's lines from {@code offset}, a line start (a part's first byte). */
    private static Utf8Lines open(FileIO.ReadableFile file, long offset) throws IOException {
      if (offset == 0) {
        return new Utf8Lines(Channels.newInputStream(file.open()));
      }
      SeekableByteChannel channel = file.openSeekable();
      channel.position(offset);
      return new Utf8Lines(Channels.newInputStream(channel), offset);
    }

    private static boolean seekable(FileIO.ReadableFile file) {
      return file.getCompression() == Compression.UNCOMPRESSED
          && file.getMetadata().isReadSeekEfficient();
    }

    private static MedallionException cannotRead(
        FileIO.ReadableFile file, long lastLine, IOException e) {
      return new MedallionException(
          "cannot read input file "
              + file.getMetadata().resourceId()
              + (lastLine <= 0 ? "" : " after line " + lastLine)
              + ": "
              + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()),
          e);
    }
  }
}
