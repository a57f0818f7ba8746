package dev.medallion.core;

import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
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
 * {@code \r}), as in {@link Utf8Lines}. The rest of a part after a checkpoint starts at the last
 * line read ({@code skipFirst}: that line is skipped, and {@code firstLine} is the next one's
 * number), because the start of the next line is not known until it is read.
 */
record LineRange(long from, long to, long firstLine, boolean skipFirst) implements Serializable {

  LineRange(long from, long to, long firstLine) {
    this(from, to, firstLine, false);
  }

  /**
   * The file cut into parts of at least {@code partBytes} bytes, each starting at a line start: one
   * pass over the bytes, counting line ends (no decoding, no line held in memory). Eight bytes at a
   * time where none of them ends a line, which is most of them: this pass runs before any part is
   * read, on one core, and byte by byte it took 1.7 s of the users job's time for 415 MB.
   */
  static List<LineRange> split(InputStream in, long size, long partBytes) throws IOException {
    List<LineRange> parts = new ArrayList<>();
    byte[] buffer = new byte[1 << 20];
    long from = 0;
    long firstLine = 1;
    long line = 1; // the number of the line that starts at the current offset, if one does
    long offset = 0;
    int previous = -1; // the byte before the current offset
    for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
      int i = 0;
      while (i < n) {
        if (i + Long.BYTES <= n
            && previous != '\n'
            && previous != '\r'
            && !endsLine((long) LONGS.get(buffer, i))) {
          // No line starts in these eight bytes, nor right after them.
          i += Long.BYTES;
          offset += Long.BYTES;
          previous = buffer[i - 1];
          continue;
        }
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
        i++;
        offset++;
      }
    }
    parts.add(new LineRange(from, Math.max(size, offset), firstLine));
    return parts;
  }

  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long ONES = 0x0101010101010101L;
  private static final long HIGH_BITS = 0x8080808080808080L;

  /** Whether one of the eight bytes of {@code word} is {@code \n} or {@code \r}. */
  private static boolean endsLine(long word) {
    return hasZeroByte(word ^ (ONES * '\n')) || hasZeroByte(word ^ (ONES * '\r'));
  }

  /** Whether one of the eight bytes of {@code word} is zero (a borrow reaches its high bit). */
  private static boolean hasZeroByte(long word) {
    return ((word - ONES) & ~word & HIGH_BITS) != 0;
  }

  /**
   * Claims the lines of one part by their start offsets; a claim past {@code to} ends the part. A
   * runner may checkpoint it ({@code trySplit(0)}) once it claimed {@link #LINES_PER_CHECKPOINT}
   * lines: the rest of the part starts at the last line claimed, which it skips. The DirectRunner
   * asks every hundred lines, and each piece is a bundle that every later step handles as a task of
   * its own; with no checkpoint at all, it reads a whole part into one bundle before any later step
   * runs, so every line of the input is in memory at once. Other splits are refused: a part is
   * already a unit of parallel work. A part of a file that cannot seek (compressed) is never split.
   *
   * <p>A reader that wants to give way before that ({@link ReadNdjsonLines}, to let the steps after
   * it catch up) claims {@link #YIELD}: the claim succeeds if a line was claimed and no checkpoint
   * taken yet, and then the next checkpoint is granted at once, after the last line claimed.
   */
  static final class Tracker extends RestrictionTracker<LineRange, Long>
      implements RestrictionTracker.HasProgress {
    static final long LINES_PER_CHECKPOINT = 100_000;

    /**
     * Not a line's offset: a claim of it asks for a checkpoint after the last line claimed (the
     * reader then returns {@code resume()}), and claims no line.
     */
    static final long YIELD = Long.MIN_VALUE;

    private final long linesPerCheckpoint;
    private LineRange range;
    private long lastAttempted = -1;
    private long lastClaimed = -1;
    private long claimed;
    private boolean yielding;

    Tracker(LineRange range) {
      this(range, LINES_PER_CHECKPOINT);
    }

    Tracker(LineRange range, long linesPerCheckpoint) {
      this.range = range;
      this.linesPerCheckpoint = linesPerCheckpoint;
    }

    @Override
    public boolean tryClaim(Long offset) {
      if (offset == YIELD) {
        yielding = claimed > 0 && lastAttempted == lastClaimed && range.to() != Long.MAX_VALUE;
        return yielding;
      }
      if (offset <= lastAttempted) {
        throw new IllegalArgumentException(
            "line offsets must increase: " + offset + " after " + lastAttempted);
      }
      lastAttempted = offset;
      if (offset >= range.to()) {
        return false;
      }
      lastClaimed = offset;
      claimed++;
      return true;
    }

    @Override
    public LineRange currentRestriction() {
      return range;
    }

    @Override
    public @Nullable SplitResult<LineRange> trySplit(double fractionOfRemainder) {
      if (fractionOfRemainder != 0
          || claimed < (yielding ? 1 : Math.max(1, linesPerCheckpoint))
          || lastAttempted > lastClaimed
          || lastClaimed + 1 == range.to() // already cut after the last line claimed
          || range.to() == Long.MAX_VALUE) {
        return null;
      }
      LineRange primary =
          new LineRange(range.from(), lastClaimed + 1, range.firstLine(), range.skipFirst());
      LineRange rest = new LineRange(lastClaimed, range.to(), range.firstLine() + claimed, true);
      range = primary;
      return SplitResult.of(primary, rest);
    }

    @Override
    public void checkDone() throws IllegalStateException {
      boolean cutAfterLastClaim = lastClaimed >= 0 && lastClaimed + 1 == range.to();
      if (range.from() < range.to() && lastAttempted < range.to() && !cutAfterLastClaim) {
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
