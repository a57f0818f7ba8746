package dev.medallion.lakehouse;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InputFilesTest {
  @TempDir Path tmp;

  private boolean multiline(String content) throws Exception {
    Path f = Files.createTempFile(tmp, "input", ".json");
    Files.writeString(f, content);
    return InputFiles.looksLikeMultilineJson(f.toString());
  }

  @Test
  void documentsOverSeveralLinesAreToldFromNdjson() throws Exception {
    assertThat(multiline("{\n  \"user_id\": \"u001\",\n  \"event_type\": \"click\"\n}\n"))
        .as("pretty-printed object")
        .isTrue();
    assertThat(multiline("\uFEFF[\n  {\"user_id\": \"u001\"}\n]\n")).as("array, with BOM").isTrue();
    assertThat(multiline("[{\"a\":1},{\"a\":2}]\n")).as("array on one line").isTrue();
    assertThat(multiline("{\"user_id\": \"u001\",\n \"event_type\": \"click\"}\n"))
        .as("object opened on the first line, closed on the next")
        .isTrue();
    assertThat(multiline("{\"a\":1}\n{\"a\":2}\n\n{\"a\":3}\n")).as("NDJSON").isFalse();
    assertThat(multiline("{\"a\":1}\nnot json at all\n")).as("NDJSON with a bad line").isFalse();
    assertThat(multiline("")).as("empty").isFalse();
  }

  @Test
  void anNdjsonLineLongerThanWhatIsPeekedIsNotMistaken() throws Exception {
    String longLine = "{\"payload\":\"" + "x".repeat(20_000) + "\"}\n";
    assertThat(multiline(longLine + longLine)).isFalse();
  }

  @Test
  void aFileThatCannotBeReadIsNotFlagged() {
    assertThat(InputFiles.looksLikeMultilineJson(tmp.resolve("missing.json").toString())).isFalse();
  }
}
