package dev.medallion.core;

import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.transforms.splittabledofn.RestrictionTracker;
import org.apache.beam.sdk.transforms.splittabledofn.SplitResult;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * A part of a text file for {@link ReadNdjsonLines}: the lines that start at byte offsets {@code
 * [from, to)}, the first of which is line number {@code firstLine} (1-based) of the file. Parts are
 * cut at line starts, so each is read on its own and still numbers its lines as the whole file
 * does. A line starts at offset 0 and after each line end ({@code \n}, {@code \r\n}, or a lone
 * {@code \r}), as in {@link Utf8Lines}.
 */
record LineRange(long from, long to, long firstLine) implements Serializable {

  /**
   * The file cut into parts of at least {@code partBytes} bytes, each starting at a line start: one
   * pass over the bytes, counting line ends (no decoding, no line held in memory).
   */
  static List<LineRange> split(InputStream in, long size, long partBytes) throws IOException {
    List<LineRange> parts = new ArrayList<>();
    byte[] buffer = new byte[64 * 1024];
    long from = 0;
    long firstLine = 1;
    long line = 1; // the number of the line that starts at the current offset, if one does
    long offset = 0;
    int previous = -1; // the byte before the current offset
    for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
      for (int i = 0; i < n; i++, offset++) {
        int b = buffer[i];
        boolean startsLine = offset > 0 && (previous == '\n' || (previous == '\r' && b != '\n'));
        if (startsLine) {
          line++;
          if (offset - from >= partBytes) {
            parts.add(new LineRange(from, offset, firstLine));
            from = offset;
            firstLine = line;
          }
        }
        previous = b;
      }
    }
    parts.add(new LineRange(from, Math.max(size, offset), firstLine));
    return parts;
  }

  /**
   * Claims the lines of one part by their start offsets. It refuses to split once reading began (a
   * part is already a unit of parallel work, and refusing spares the DirectRunner a checkpoint
   * every hundred lines); the offsets claimed are line starts, so a claim past {@code to} ends the
   * part.
   */
  static final class Tracker extends RestrictionTracker<LineRange, Long>
      implements RestrictionTracker.HasProgress {
    private final LineRange range;
    private long lastAttempted = -1;

    Tracker(LineRange range) {
      this.range = range;
    }

    @Override
    public boolean tryClaim(Long offset) {
      if (offset <= lastAttempted) {
        throw new IllegalArgumentException(
            "line offsets must increase: " + offset + " after " + lastAttempted);
      }
      lastAttempted = offset;
      return offset < range.to();
    }

    @Override
    public LineRange currentRestriction() {
      return range;
    }

    @Override
    public @Nullable SplitResult<LineRange> trySplit(double fractionOfRemainder) {
      return null;
    }

    @Override
    public void checkDone() throws IllegalStateException {
      if (range.from() < range.to() && lastAttempted < range.to()) {
        throw new IllegalStateException(
            "the lines of bytes [" + lastAttempted + ", " + range.to() + ") were not read");
      }
    }

    @Override
    public IsBounded isBounded() {
      return IsBounded.BOUNDED;
    }

    @Override
    public Progress getProgress() {
      long done = Math.max(0, Math.min(lastAttempted, range.to()) - range.from());
      return Progress.from(done, Math.max(0, range.to() - range.from() - done));
    }
  }
}
