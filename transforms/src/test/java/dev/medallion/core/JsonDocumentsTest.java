package dev.medallion.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class JsonDocumentsTest {
  private static List<JsonDocuments.Document> read(byte[] bytes) throws Exception {
    List<JsonDocuments.Document> out = new ArrayList<>();
    try (JsonDocuments d = new JsonDocuments(new ByteArrayInputStream(bytes))) {
      for (JsonDocuments.Document doc = d.next(); doc != null; doc = d.next()) {
        out.add(doc);
      }
    }
    return out;
  }

  private static List<JsonDocuments.Document> read(String text) throws Exception {
    return read(text.getBytes(StandardCharsets.UTF_8));
  }

  private static JsonDocuments.Document doc(String text, long line) {
    return new JsonDocuments.Document(text, line, null);
  }

  @Test
  void prettyPrintedObjectsAreEachADocumentVerbatimWithTheLineTheyStartOn() throws Exception {
    String first = "{\n  \"user_id\": \"u001\",\n  \"n\": 1.50\n}";
    String second = "{\n  \"user_id\": \"u002\"\n}";
    assertThat(read(first + "\n" + second + "\n")).containsExactly(doc(first, 1), doc(second, 5));
  }

  @Test
  void theElementsOfAnArrayAreTheDocuments() throws Exception {
    String a = "{\n    \"id\": 1\n  }";
    String b = "{ \"id\": 2, \"tags\": [1, 2] }";
    assertThat(read("\uFEFF[\n  " + a + ",\n  " + b + "\n]\n"))
        .containsExactly(doc(a, 2), doc(b, 5));
    assertThat(read("[{\"id\":1},{\"id\":2},7]"))
        .containsExactly(doc("{\"id\":1}", 1), doc("{\"id\":2}", 1), doc("7", 1));
    assertThat(read("[]\n")).isEmpty();
    assertThat(read("")).isEmpty();
    assertThat(read("  \n\n")).isEmpty();
  }

  @Test
  void whatFollowsABrokenDocumentIsOneLastDocumentFromItsStart() throws Exception {
    String good = "{\n  \"id\": 1\n}";
    String broken = "{\n  \"id\": 2,\n  \"oops\"\n}\n{\n  \"id\": 3\n}\n";
    List<JsonDocuments.Document> docs = read(good + "\n" + broken);
    assertThat(docs).containsExactly(doc(good, 1), doc(broken, 4));
  }

  @Test
  void garbageBetweenDocumentsIsKeptFromTheEndOfTheLastGoodOne() throws Exception {
    List<JsonDocuments.Document> docs = read("{\"id\": 1}\nnot json\n{\"id\": 2}\n");
    assertThat(docs).hasSize(2);
    assertThat(docs.get(0)).isEqualTo(doc("{\"id\": 1}", 1));
    assertThat(docs.get(1).text()).isEqualTo("\nnot json\n{\"id\": 2}\n");
    assertThat(docs.get(1).line()).isEqualTo(1);
  }

  @Test
  void aByteThatIsNotUtf8SpoilsOnlyTheDocumentHoldingIt() throws Exception {
    byte[] bytes =
        "[{\"id\": 1},\n {\"id\": \"?\"},\n {\"id\": 3}]".getBytes(StandardCharsets.UTF_8);
    int bad = new String(bytes, StandardCharsets.UTF_8).indexOf('?');
    bytes[bad] = (byte) 0xFF;
    List<JsonDocuments.Document> docs = read(bytes);
    assertThat(docs).hasSize(3);
    assertThat(docs.get(0)).isEqualTo(doc("{\"id\": 1}", 1));
    assertThat(docs.get(1).text()).isEqualTo("{\"id\": \"\uFFFD\"}");
    assertThat(docs.get(1).decodeError())
        .isEqualTo("byte 0xFF at character " + bad + " of the file");
    assertThat(docs.get(2)).isEqualTo(doc("{\"id\": 3}", 3));
  }
}
