package dev.medallion.core;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * How an input file holds its records: {@link #NDJSON}, one JSON object per line; {@link #JSON},
 * JSON documents that may span lines (pretty-printed objects one after another, or a JSON array of
 * them, as Spark's {@code multiline} exports and most APIs write); {@link #CSV}, rows under a
 * header line ({@link CsvRecords}); or {@link #AUTO}, told apart per file: CSV by its name ({@code
 * .csv}, also compressed: {@code .csv.gz}), JSON or NDJSON from its first lines ({@link #detect}).
 */
public enum InputFormat {
  AUTO,
  NDJSON,
  JSON,
  CSV;

  /** A file name that says CSV: {@code .csv}, before any compression suffix. */
  private static final Pattern CSV_NAME =
      Pattern.compile("(?i).*\\.csv(\\.(gz|gzip|bz2|zst|zstd|deflate|lzo|snappy))?$");

  /** How many bytes of a file {@link #detect} looks at. */
  public static final int HEAD_BYTES = 8192;

  /** A line that holds one member of an object, not an object: {@code "user_id": "u001",}. */
  private static final Pattern MEMBER_LINE = Pattern.compile("\"[^\"]*\"\\s*:.*");

  /** The format of a flag value, or a clear error. */
  public static InputFormat of(String flag) {
    try {
      return valueOf(flag.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "--inputFormat must be auto, ndjson, json or csv, not '" + flag + "'", e);
    }
  }

  /** Whether a file's name says it is CSV ({@code data.csv}, {@code data.csv.gz}). */
  public static boolean isCsvName(String name) {
    return CSV_NAME.matcher(name).matches();
  }

  /** This format for a file whose first bytes are {@code head}: AUTO resolves, others stay. */
  public InputFormat resolve(byte[] head, int length) {
    return this == AUTO ? detect(head, length) : this;
  }

  /** {@link #detect(byte[], int)} on the first {@link #HEAD_BYTES} bytes of a stream. */
  public static InputFormat detect(InputStream in) throws IOException {
    byte[] head = in.readNBytes(HEAD_BYTES);
    return detect(head, head.length);
  }

  /**
   * {@link #JSON} when the first lines of a file ({@code head}, its first {@code length} bytes)
   * look like a document over several lines: the first line opens an array, is a lone {@code {},
   * or opens an object it does not close and the next line holds a member; or a line among the
   * first five holds a member alone. Otherwise {@link #NDJSON}, so a file of JSON lines whose
   * first line is broken still is read line by line, each bad line a dead letter of its own.
   */
  public static InputFormat detect(byte[] head, int length) {
    String text = new String(head, 0, length, StandardCharsets.UTF_8).replace("\uFEFF", "");
    List<String> lines = new ArrayList<>(List.of(text.split("\n", -1)));
    if (length >= HEAD_BYTES && lines.size() > 1) {
      lines.remove(lines.size() - 1); // cut short: not a whole line
    }
    int seen = 0;
    for (String raw : lines) {
      String line = raw.strip();
      if (line.isEmpty()) {
        continue;
      }
      if (seen == 0 && (line.startsWith("[") || line.equals("{"))) {
        return JSON;
      }
      if (MEMBER_LINE.matcher(line).matches()) {
        return JSON;
      }
      if (++seen == 5) {
        break;
      }
    }
    return NDJSON;
  }
}
