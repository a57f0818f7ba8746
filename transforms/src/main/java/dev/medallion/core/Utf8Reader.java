package dev.medallion.core;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Strict UTF-8, but a byte that is not UTF-8 does not stop the file: it reads as U+FFFD, and its
 * position is kept, so that only the record holding it (a JSON document, a CSV row) is rejected
 * ({@link #errorIn}).
 */
final class Utf8Reader extends Reader {
  private final InputStream in;
  private final CharsetDecoder decoder =
      StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT);
  private final ByteBuffer bytes = ByteBuffer.allocate(8192).flip();
  private final List<long[]> errors = new ArrayList<>(); // {character offset, the byte}
  private boolean eof;
  private long chars;

  Utf8Reader(InputStream in) {
    this.in = in;
  }

  @Override
  public int read(char[] buf, int off, int len) throws IOException {
    if (len == 0) {
      return 0;
    }
    CharBuffer out = CharBuffer.wrap(buf, off, len);
    while (out.position() == off) {
      if (!eof && bytes.remaining() < 4) {
        bytes.compact();
        int n = in.read(bytes.array(), bytes.position(), bytes.remaining());
        if (n < 0) {
          eof = true;
        } else {
          bytes.position(bytes.position() + n);
        }
        bytes.flip();
      }
      CoderResult r = decoder.decode(bytes, out, eof);
      if (r.isError()) {
        for (int i = 0; i < r.length() && out.hasRemaining(); i++) {
          errors.add(new long[] {chars + out.position() - off, bytes.get() & 0xFF});
          out.put('\uFFFD');
        }
      } else if (eof && !bytes.hasRemaining()) {
        if (out.position() == off) {
          return -1;
        }
        break;
      } else if (r.isOverflow()) {
        break;
      }
    }
    int n = out.position() - off;
    chars += n;
    return n;
  }

  /** The first byte that was not UTF-8 in characters {@code [from, to)}, said in words. */
  @Nullable String errorIn(long from, long to) {
    for (long[] e : errors) {
      if (e[0] >= from && e[0] < to) {
        return String.format("byte 0x%02X at character %d of the file", e[1], e[0]);
      }
    }
    return null;
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
