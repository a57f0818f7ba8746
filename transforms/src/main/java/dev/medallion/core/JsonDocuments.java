package dev.medallion.core;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * The JSON documents of a file in the {@link InputFormat#JSON} format, one at a time, each with its
 * text verbatim (line breaks and spaces as written) and the line it starts on: the top-level values
 * one after another (pretty-printed objects), or the elements of a top-level array. Only one
 * document is held in memory at a time.
 *
 * <p>A file that stops being JSON cannot be cut into documents after that point: what is left of it
 * from the start of the document that broke becomes one last document (at most {@link
 * #MAX_REST_CHARS} characters of it; the rest is counted in its text's tail), which Bronze rejects
 * as {@code not_json} with the parser's reason. A byte that is not UTF-8 reads as U+FFFD and spoils
 * only the document that holds it: that document carries the decoding error, and Bronze rejects it
 * as {@code invalid_utf8}.
 */
public final class JsonDocuments implements Closeable {
  /** One document: its text, its first line (1-based), and an undecodable byte's error, if any. */
  record Document(String text, long line, @Nullable String decodeError) {}

  /** The most of a broken file's rest kept in its last document. */
  static final int MAX_REST_CHARS = 16 << 20;

  private static final JsonFactory FACTORY =
      JsonFactory.builder().enable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION).build();

  private final CapturingReader reader;
  private final JsonParser parser;
  private boolean inArray;
  private boolean started;
  private boolean done;

  /** Where the last document ended (file offset in characters), and on which line. */
  private long lastEnd;

  private long lastEndLine = 1;

  JsonDocuments(InputStream in) throws IOException {
    this.reader = new CapturingReader(new Utf8Reader(in));
    this.parser = FACTORY.createParser(reader);
  }

  /** How many documents a stream of the JSON format holds, as the read counts them. */
  public static long count(InputStream in) throws IOException {
    long n = 0;
    try (JsonDocuments documents = new JsonDocuments(in)) {
      while (documents.next() != null) {
        n++;
      }
    }
    return n;
  }

  /** The next document, or null at the end of the file. */
  @Nullable Document next() throws IOException {
    if (done) {
      return null;
    }
    long start = -1;
    long line = 1;
    try {
      JsonToken t = parser.nextToken();
      if (!started) {
        started = true;
        if (t == JsonToken.START_ARRAY) {
          inArray = true;
          t = parser.nextToken();
        }
      }
      if (t == null || (inArray && t == JsonToken.END_ARRAY)) {
        if (inArray && t == JsonToken.END_ARRAY) {
          inArray = false; // what follows the array, if anything, is read as more documents
          return next();
        }
        done = true;
        return null;
      }
      start = parser.currentTokenLocation().getCharOffset();
      line = parser.currentTokenLocation().getLineNr();
      reader.keepFrom(start);
      parser.skipChildren();
      long end = parser.currentLocation().getCharOffset();
      lastEnd = end;
      lastEndLine = parser.currentLocation().getLineNr();
      return new Document(reader.text(start, end), line, reader.utf8.errorIn(start, end));
    } catch (JsonProcessingException e) {
      done = true;
      return restOrNull(start, line);
    }
  }

  /** The broken rest from the document that broke, or from the end of the last one. */
  private @Nullable Document restOrNull(long start, long line) throws IOException {
    Document rest = start < 0 ? rest(lastEnd, lastEndLine) : rest(start, line);
    return rest.text().isBlank() && rest.decodeError() == null ? null : rest;
  }

  /** What is left of the file from {@code start}: one last document. */
  private Document rest(long start, long line) throws IOException {
    StringBuilder text = new StringBuilder(reader.textFrom(start));
    char[] buf = new char[8192];
    long dropped = 0;
    for (int n; (n = reader.in.read(buf)) > 0; ) {
      int keep = (int) Math.max(0, Math.min(n, MAX_REST_CHARS - text.length()));
      text.append(buf, 0, keep);
      dropped += n - keep;
    }
    String decodeError = reader.utf8.errorIn(start, Long.MAX_VALUE);
    if (dropped > 0) {
      text.append("… (").append(dropped).append(" more characters)");
    }
    return new Document(text.toString(), Math.max(1, line), decodeError);
  }

  @Override
  public void close() throws IOException {
    parser.close();
  }

  /**
   * Keeps the characters read from the kept offset on, so a document's text can be cut out verbatim
   * by its offsets; the ones before a document that started are let go.
   */
  private static final class CapturingReader extends Reader {
    private final Utf8Reader utf8;
    private final Reader in;
    private final StringBuilder kept = new StringBuilder();

    /** The file offset of {@code kept}'s first character; characters read so far. */
    private long keptFrom;

    private long read;

    CapturingReader(Utf8Reader in) {
      this.utf8 = in;
      this.in = in;
    }

    @Override
    public int read(char[] buf, int off, int len) throws IOException {
      int n = in.read(buf, off, len);
      if (n > 0 && read == 0 && buf[off] == '\uFEFF') {
        // A byte-order mark at the start: not part of the text.
        System.arraycopy(buf, off + 1, buf, off, n - 1);
        n--;
        if (n == 0) {
          return read(buf, off, len);
        }
      }
      if (n > 0) {
        kept.append(buf, off, n);
        read += n;
      }
      return n;
    }

    void keepFrom(long offset) {
      if (offset > keptFrom) {
        kept.delete(0, (int) Math.min(kept.length(), offset - keptFrom));
        keptFrom = offset;
      }
    }

    String text(long from, long to) {
      return kept.substring((int) (from - keptFrom), (int) (to - keptFrom));
    }

    String textFrom(long from) {
      return kept.substring((int) Math.max(0, Math.min(kept.length(), from - keptFrom)));
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }
}
