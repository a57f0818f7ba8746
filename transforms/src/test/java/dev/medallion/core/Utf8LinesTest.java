package dev.medallion.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.FilterInputStream;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Line ends, byte-order marks and bad bytes, at any read size. */
class Utf8LinesTest {
  private static List<String> lines(byte[] bytes, boolean oneByteAtATime) throws Exception {
    InputStream in = new ByteArrayInputStream(bytes);
    if (oneByteAtATime) {
      in =
          new FilterInputStream(in) {
            @Override
            public int read(byte[] b, int off, int len) throws java.io.IOException {
              return super.read(b, off, Math.min(len, 1));
            }
          };
    }
    List<String> out = new ArrayList<>();
    try (Utf8Lines lines = new Utf8Lines(in)) {
      for (Utf8Lines.Line l = lines.next(); l != null; l = lines.next()) {
        out.add(l.decodeError() == null ? l.text() : l.text() + " <" + l.decodeError() + ">");
      }
    }
    return out;
  }

  private static List<String> lines(String text) throws Exception {
    List<String> fast = lines(text.getBytes(StandardCharsets.UTF_8), false);
    assertThat(lines(text.getBytes(StandardCharsets.UTF_8), true)).isEqualTo(fast);
    return fast;
  }

  private static List<String> readLine(String text) throws Exception {
    BufferedReader r = new BufferedReader(new StringReader(text));
    List<String> out = new ArrayList<>();
    for (String l = r.readLine(); l != null; l = r.readLine()) {
      out.add(l);
    }
    return out;
  }

  @Test
  void linesEndAsBufferedReaderEndsThem() throws Exception {
    assertThat(lines("")).isEmpty();
    assertThat(lines("\n")).containsExactly("");
    assertThat(lines("a")).containsExactly("a");
    assertThat(lines("a\n")).containsExactly("a");
    assertThat(lines("a\r\nb\r\n")).containsExactly("a", "b");
    assertThat(lines("a\rb\r")).containsExactly("a", "b");
    assertThat(lines("a\r\r\nb\n\nc")).containsExactly("a", "", "b", "", "c");
    assertThat(lines("\u00e9t\u00e9 \ud83d\ude00\n")).containsExactly("\u00e9t\u00e9 \ud83d\ude00");

    Random random = new Random(42);
    String alphabet = "ab\u00e9\r\n";
    for (int i = 0; i < 200; i++) {
      StringBuilder s = new StringBuilder();
      for (int j = random.nextInt(40); j > 0; j--) {
        s.append(alphabet.charAt(random.nextInt(alphabet.length())));
      }
      assertThat(lines(s.toString())).as("%s", s).isEqualTo(readLine(s.toString()));
    }
  }

  @Test
  void aLineLongerThanTheReadBufferAndACrlfAcrossItsEdge() throws Exception {
    String longLine = "x".repeat(64 * 1024 - 1);
    assertThat(lines(longLine + "\r\nb")).containsExactly(longLine, "b");
    String huge = "y".repeat(300_000);
    assertThat(lines(huge + "\n" + huge)).containsExactly(huge, huge);
  }

  @Test
  void onlyALeadingByteOrderMarkIsSkipped() throws Exception {
    assertThat(lines("\ufeffa\n\ufeffb")).containsExactly("a", "\ufeffb");
    assertThat(lines("\ufeff")).isEmpty();
    assertThat(lines("\ufeff\n")).containsExactly("");
    assertThat(lines(new byte[] {(byte) 0xEF, (byte) 0xBB}, false))
        .containsExactly("\\xEF\\xBB <byte 0xEF at offset 0>");
  }

  @Test
  void badBytesAreEscapedAndTheFirstIsNamed() throws Exception {
    byte[] bytes = {
      'a',
      (byte) 0xFF,
      'b',
      (byte) 0xC3,
      (byte) 0xA9,
      (byte) 0xC0,
      (byte) 0x80,
      '\n',
      'o',
      'k',
      '\n',
      (byte) 0xE2,
      (byte) 0x82
    };
    assertThat(lines(bytes, false))
        .containsExactly(
            "a\\xFFb\u00e9\\xC0\\x80 <byte 0xFF at offset 1>",
            "ok",
            "\\xE2\\x82 <byte 0xE2 at offset 0>");
    assertThat(lines(bytes, true)).isEqualTo(lines(bytes, false));
  }
}
