package dev.medallion.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** CSV rows as the JSON objects the rules read, each at the line it starts on. */
class CsvRecordsTest {
  private static List<CsvRecords.Row> rows(byte[] csv) throws Exception {
    List<CsvRecords.Row> out = new ArrayList<>();
    try (CsvRecords r = new CsvRecords(new ByteArrayInputStream(csv), "t.csv")) {
      for (CsvRecords.Row row = r.next(); row != null; row = r.next()) {
        out.add(row);
      }
    }
    return out;
  }

  private static List<CsvRecords.Row> rows(String csv) throws Exception {
    return rows(csv.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void cellsBecomeTypedFieldsByTheHeadersNamesAndEmptyCellsAreLeftOut() throws Exception {
    assertThat(
            rows(
                "device_id,value,ok,unit,seq,code\n"
                    + "101,21.50,true,,7,007\n"
                    + "dev-2,-1e3,false,C,-0,+5\n"))
        .containsExactly(
            new CsvRecords.Row(
                "{\"device_id\":101,\"value\":21.50,\"ok\":true,\"seq\":7,\"code\":\"007\"}",
                2,
                null,
                null),
            new CsvRecords.Row(
                "{\"device_id\":\"dev-2\",\"value\":-1E+3,\"ok\":false,\"unit\":\"C\",\"seq\":0,"
                    + "\"code\":\"+5\"}",
                3,
                null,
                null));
  }

  @Test
  void aQuotedCellMayHoldCommasQuotesAndLineBreaksAndTheRowKeepsItsFirstLine() throws Exception {
    List<CsvRecords.Row> rows =
        rows(
            "\uFEFFsite,note\r\n"
                + "\"Berlin, Mitte\",\"said \"\"hi\"\"\nover two lines\"\r\n"
                + "\n"
                + "porto,plain\r\n");
    assertThat(rows)
        .extracting(CsvRecords.Row::line)
        .containsExactly(2L, 5L); // the blank line 4 is skipped, not a row
    assertThat(Json.parseObject(rows.get(0).json()).get("note").asText())
        .isEqualTo("said \"hi\"\nover two lines");
    assertThat(Json.parseObject(rows.get(0).json()).get("site").asText())
        .isEqualTo("Berlin, Mitte");
  }

  @Test
  void aRowWithMoreOrFewerCellsThanTheHeaderSaysSo() throws Exception {
    assertThat(rows("a,b\n1,2,3\n4\n5,6\n"))
        .extracting(CsvRecords.Row::error)
        .containsExactly(
            "expected 2 cells (the header's), got 3",
            "expected 2 cells (the header's), got 1",
            null);
    assertThat(rows("a,b\n1,2,3\n").get(0).json()).isEqualTo("{\"a\":1,\"b\":2,\"_3\":3}");
  }

  @Test
  void aByteThatIsNotUtf8SpoilsOnlyItsRow() throws Exception {
    ByteArrayOutputStream csv = new ByteArrayOutputStream();
    csv.write("a,b\n1,x\n2,".getBytes(StandardCharsets.UTF_8));
    csv.write(0xFF);
    csv.write("\n3,z\n".getBytes(StandardCharsets.UTF_8));
    List<CsvRecords.Row> rows = rows(csv.toByteArray());
    assertThat(rows).extracting(CsvRecords.Row::line).containsExactly(2L, 3L, 4L);
    assertThat(rows.get(0).decodeError()).isNull();
    assertThat(rows.get(1).decodeError()).startsWith("byte 0xFF at character");
    assertThat(rows.get(2).decodeError()).isNull();
  }

  @Test
  void aHeaderWithAnEmptyOrRepeatedNameStopsTheRead() {
    assertThatThrownBy(() -> rows("a,,c\n1,2,3\n"))
        .isInstanceOf(MedallionException.class)
        .hasMessage("t.csv: the CSV header is not usable: A header name is missing in [a, , c]");
    assertThatThrownBy(() -> rows("a,b,a\n1,2,3\n"))
        .isInstanceOf(MedallionException.class)
        .hasMessageStartingWith(
            "t.csv: the CSV header is not usable: The header contains a duplicate name: \"a\"");
  }

  @Test
  void aFileThatStopsBeingCsvIsNamed() {
    assertThatThrownBy(() -> rows("a,b\n1,2\n3,\"open\n"))
        .isInstanceOf(MedallionException.class)
        .hasMessage(
            "t.csv: not CSV, or not readable, after line 2: (startline 3) EOF reached before"
                + " encapsulated token finished");
  }

  @Test
  void theFormatOfAFileIsCsvByItsName() {
    assertThat(InputFormat.isCsvName("data.csv")).isTrue();
    assertThat(InputFormat.isCsvName("DATA.CSV.gz")).isTrue();
    assertThat(InputFormat.isCsvName("data.csv.json")).isFalse();
    assertThat(InputFormat.isCsvName("data.ndjson")).isFalse();
    assertThat(InputFormat.of("csv")).isEqualTo(InputFormat.CSV);
  }
}
