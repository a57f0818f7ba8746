package dev.medallion.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.util.Iterator;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * The rows of a CSV file with a header ({@link InputFormat#CSV}), each as the JSON object the rules
 * read: the header's names as fields, a cell that is a JSON number as a number, {@code true} and
 * {@code false} as booleans, any other cell as a string, and an empty cell left out (absent, so a
 * mapping's default applies). Read with Commons CSV: quoted cells may hold commas, quotes and line
 * breaks; a UTF-8 byte-order mark is ignored. Each row keeps the line it starts on.
 *
 * <p>A row with more or fewer cells than the header carries that as its {@code error} (Bronze
 * rejects it as {@code bad_csv_row}, with its cells); a byte that is not UTF-8 spoils only its row
 * ({@code invalid_utf8}). A header with an empty or repeated name, or a file that stops being CSV
 * (an unclosed quote), stops the read with an error that names the file.
 */
public final class CsvRecords implements Closeable {
  /** One row: its JSON object, its first line (1-based), and what is wrong with it, if anything. */
  record Row(String json, long line, @Nullable String decodeError, @Nullable String error) {}

  /** A JSON number as written in JSON: no leading zeros, no {@code +}, no bare dot. */
  private static final Pattern NUMBER =
      Pattern.compile("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?");

  private static final CSVFormat FORMAT =
      CSVFormat.DEFAULT
          .builder()
          .setHeader()
          .setSkipHeaderRecord(true)
          .setIgnoreEmptyLines(false)
          .setDuplicateHeaderMode(org.apache.commons.csv.DuplicateHeaderMode.DISALLOW)
          .build();

  private final Utf8Reader reader;
  private final CSVParser parser;
  private final Iterator<CSVRecord> rows;
  private final List<String> header;
  private final int bomChars;
  private final String name;
  private long nextLine;
  private @Nullable CSVRecord next;

  CsvRecords(InputStream in, String name) throws IOException {
    this.name = name;
    this.reader = new Utf8Reader(in);
    java.io.PushbackReader bom = new java.io.PushbackReader(reader, 1);
    int first = bom.read();
    if (first != -1 && first != '\uFEFF') {
      bom.unread(first);
    }
    this.bomChars = first == '\uFEFF' ? 1 : 0;
    try {
      this.parser = FORMAT.parse(bom);
    } catch (IllegalArgumentException e) {
      // Commons CSV refuses a header with an empty or a repeated name
      throw new MedallionException(name + ": the CSV header is not usable: " + e.getMessage(), e);
    }
    this.header = parser.getHeaderNames();
    this.rows = parser.iterator();
    this.next = advance();
  }

  /** The next record, noting the line it starts on. */
  private @Nullable CSVRecord advance() {
    nextLine = parser.getCurrentLineNumber() + 1;
    try {
      return rows.hasNext() ? rows.next() : null;
    } catch (UncheckedIOException | IllegalStateException e) {
      // Commons CSV's way of saying the file is not CSV past this point (an unclosed quote), or
      // that the bytes stopped coming
      String why = e.getCause() == null ? e.getMessage() : e.getCause().getMessage();
      throw new MedallionException(
          name + ": not CSV, or not readable, after line " + (nextLine - 1) + ": " + why, e);
    }
  }

  /** The next row, or null at the end of the file. Blank lines are skipped. */
  @Nullable Row next() {
    while (next != null) {
      CSVRecord r = next;
      long line = nextLine;
      long from = r.getCharacterPosition();
      next = advance();
      if (r.size() == 1 && r.get(0).isBlank() && header.size() > 1) {
        continue; // an empty line
      }
      long to = next == null ? Long.MAX_VALUE : next.getCharacterPosition();
      String decodeError =
          reader.errorIn(from + bomChars, to == Long.MAX_VALUE ? to : to + bomChars);
      String error =
          r.size() == header.size()
              ? null
              : "expected " + header.size() + " cells (the header's), got " + r.size();
      return new Row(json(r), line, decodeError, error);
    }
    return null;
  }

  /** The row's cells by the header's names; cells past the header as {@code _<n>} (1-based). */
  private String json(CSVRecord r) {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    for (int i = 0; i < r.size(); i++) {
      String cell = r.get(i);
      if (cell.isEmpty()) {
        continue;
      }
      o.set(i < header.size() ? header.get(i).strip() : "_" + (i + 1), value(cell));
    }
    return o.toString();
  }

  static JsonNode value(String cell) {
    if (NUMBER.matcher(cell).matches()) {
      return cell.contains(".") || cell.contains("e") || cell.contains("E")
          ? JsonNodeFactory.instance.numberNode(new BigDecimal(cell))
          : JsonNodeFactory.instance.numberNode(new java.math.BigInteger(cell));
    }
    if (cell.equals("true") || cell.equals("false")) {
      return JsonNodeFactory.instance.booleanNode(Boolean.parseBoolean(cell));
    }
    return JsonNodeFactory.instance.textNode(cell);
  }

  /** The rows of a CSV file, as {@link #next} counts them. */
  public static long count(InputStream in, String name) throws IOException {
    long n = 0;
    try (CsvRecords rows = new CsvRecords(in, name)) {
      while (rows.next() != null) {
        n++;
      }
    }
    return n;
  }

  @Override
  public void close() throws IOException {
    parser.close();
  }
}
