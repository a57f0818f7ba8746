package dev.medallion.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class InputFormatTest {
  private static InputFormat detect(String text) throws Exception {
    return InputFormat.detect(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void aFileOfJsonLinesIsNdjsonEvenWhenItsFirstLineIsBroken() throws Exception {
    assertThat(detect("{\"a\":1}\n{\"a\":2}\n")).isEqualTo(InputFormat.NDJSON);
    assertThat(detect("{\"a\":1\n{\"a\":2}\n")).isEqualTo(InputFormat.NDJSON);
    assertThat(detect("")).isEqualTo(InputFormat.NDJSON);
    String longLine = "{\"payload\":\"" + "x".repeat(20_000) + "\"}\n";
    assertThat(detect(longLine + longLine)).isEqualTo(InputFormat.NDJSON);
  }

  @Test
  void documentsOverSeveralLinesAreJson() throws Exception {
    assertThat(detect("{\n  \"a\": 1\n}\n")).isEqualTo(InputFormat.JSON);
    assertThat(detect("\uFEFF[\n{\"a\":1}\n]")).isEqualTo(InputFormat.JSON);
    assertThat(detect("[{\"a\":1},{\"a\":2}]")).isEqualTo(InputFormat.JSON);
    assertThat(detect("{\"a\": 1,\n \"b\": 2}\n")).isEqualTo(InputFormat.JSON);
  }

  @Test
  void theFlagIsCheckedAndAutoResolvesPerFile() {
    assertThat(InputFormat.of(" JSON ")).isEqualTo(InputFormat.JSON);
    assertThatThrownBy(() -> InputFormat.of("tsv"))
        .hasMessage("--inputFormat must be auto, ndjson, json or csv, not 'tsv'");
    byte[] pretty = "{\n".getBytes(StandardCharsets.UTF_8);
    assertThat(InputFormat.AUTO.resolve(pretty, pretty.length)).isEqualTo(InputFormat.JSON);
    assertThat(InputFormat.NDJSON.resolve(pretty, pretty.length)).isEqualTo(InputFormat.NDJSON);
  }
}
