package dev.medallion.core;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * The lines of a stream of bytes, each decoded on its own as strict UTF-8, so that a bad byte
 * spoils one line and not the file. Lines end as {@link java.io.BufferedReader#readLine} ends them:
 * at {@code \n}, {@code \r\n} or a lone {@code \r}, with no empty line after a final line end. A
 * UTF-8 byte-order mark at the very start of the stream is skipped. Only one line is held in memory
 * at a time. {@link #decode(byte[])} decodes one line's bytes the same way, for a source that hands
 * over a line at a time (a Kafka record).
 */
public final class Utf8Lines implements Closeable {
  /**
   * One line: its text, and when its bytes are not valid UTF-8, the first bad byte and its offset
   * (then {@code text} shows each undecodable byte as {@code \xFF} and the rest decoded).
   */
  public record Line(String text, @Nullable String decodeError) {}

  private static final byte[] BOM = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};

  private final InputStream in;
  private final byte[] chunk = new byte[64 * 1024];
  private int pos;
  private int limit;
  private boolean started;
  private boolean skipLf;

  /** Offset in the file of {@code chunk[0]}; of the first byte of the line last returned. */
  private long chunkOffset;

  private long lineStart = -1;

  private byte[] line = new byte[1024];
  private int length;
  private CharBuffer chars = CharBuffer.allocate(1024);
  private final CharsetDecoder decoder =
      StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT);

  /** The lines of a whole file (a byte-order mark at its start is skipped). */
  Utf8Lines(InputStream in) {
    this(in, 0);
  }

  /**
   * The lines of a stream that starts at a line start {@code offset} bytes into its file; only at
   * offset 0 is a byte-order mark skipped.
   */
  Utf8Lines(InputStream in, long offset) {
    this.in = in;
    this.chunkOffset = offset;
    this.started = offset > 0;
  }

  /** Where the line {@link #next} returned last starts in the file, counting from byte 0. */
  long lineStart() {
    return lineStart;
  }

  /** The next line, or null at the end of the stream. */
  @Nullable Line next() throws IOException {
    if (!started) {
      started = true;
      skipBom();
    }
    length = 0;
    boolean begun = false;
    while (true) {
      if (pos == limit && !fill()) {
        return length > 0 ? decode() : null;
      }
      if (skipLf) {
        skipLf = false;
        if (chunk[pos] == '\n') {
          pos++;
          continue;
        }
      }
      if (!begun) {
        begun = true;
        lineStart = chunkOffset + pos;
      }
      int start = pos;
      while (pos < limit && chunk[pos] != '\n' && chunk[pos] != '\r') {
        pos++;
      }
      append(start, pos - start);
      if (pos < limit) {
        skipLf = chunk[pos] == '\r';
        pos++;
        return decode();
      }
    }
  }

  @Override
  public void close() throws IOException {
    in.close();
  }

  private void skipBom() throws IOException {
    while (limit < BOM.length && fill()) {}
    if (limit >= BOM.length && Arrays.equals(chunk, 0, BOM.length, BOM, 0, BOM.length)) {
      pos = BOM.length;
    }
  }

  /** Reads more bytes after {@code limit}; false at the end of the stream. */
  private boolean fill() throws IOException {
    if (pos == limit) {
      chunkOffset += limit;
      pos = 0;
      limit = 0;
    }
    int n = in.read(chunk, limit, chunk.length - limit);
    if (n < 0) {
      return false;
    }
    limit += n;
    return true;
  }

  private void append(int from, int count) {
    if (length + count > line.length) {
      line = Arrays.copyOf(line, Math.max(length + count, 2 * line.length));
    }
    System.arraycopy(chunk, from, line, length, count);
    length += count;
  }

  private Line decode() {
    if (chars.capacity() < length) {
      chars = CharBuffer.allocate(Math.max(length, 2 * chars.capacity()));
    }
    return decode(line, length, decoder, chars);
  }

  /** One line's bytes (without its line end), decoded as strict UTF-8 as a file's lines are. */
  public static Line decode(byte[] bytes) {
    return decode(
        bytes,
        bytes.length,
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT),
        CharBuffer.allocate(bytes.length));
  }

  /**
   * The first {@code length} bytes of {@code line}, decoded with {@code decoder} (strict) into
   * {@code chars} (at least {@code length} long).
   */
  private static Line decode(byte[] line, int length, CharsetDecoder decoder, CharBuffer chars) {
    ByteBuffer bytes = ByteBuffer.wrap(line, 0, length);
    decoder.reset();
    chars.clear();
    CoderResult result = decoder.decode(bytes, chars, true);
    if (result.isUnderflow()) {
      decoder.flush(chars);
      return new Line(chars.flip().toString(), null);
    }
    // Not UTF-8: escape each undecodable byte, decode the rest, name the first bad byte.
    StringBuilder text = new StringBuilder(length + 16);
    String error = null;
    while (true) {
      text.append(chars.flip());
      chars.clear();
      if (result.isUnderflow()) {
        break;
      }
      if (result.isError()) {
        if (error == null) {
          error =
              String.format(
                  "byte 0x%02X at offset %d", line[bytes.position()] & 0xFF, bytes.position());
        }
        for (int i = 0; i < result.length(); i++) {
          text.append(String.format("\\x%02X", bytes.get() & 0xFF));
        }
      }
      result = decoder.decode(bytes, chars, true);
    }
    return new Line(text.toString(), error);
  }
}
