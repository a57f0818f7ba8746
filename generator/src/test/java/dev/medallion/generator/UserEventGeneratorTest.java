package dev.medallion.generator;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class UserEventGeneratorTest {
  private static List<String> all(double malformed, double dups) {
    List<String> out = new ArrayList<>();
    new UserEventGenerator(
            9, 50, 500, Instant.parse("2026-11-26T00:00:00Z"), 3, malformed, dups, 0.02, 0.02)
        .forEachRemaining(out::add);
    return out;
  }

  @Test
  void deterministicWithResendsAndKnobs() {
    List<String> lines = all(0.01, 0.05);
    assertThat(lines).isEqualTo(all(0.01, 0.05));
    assertThat(lines.size()).isGreaterThan(500); // the resends
    assertThat(lines).anyMatch(l -> l.contains("\"price\":\"n/a\""));
    assertThat(lines).anyMatch(l -> l.contains("+02:00\""));
    assertThat(lines).anyMatch(l -> !l.endsWith("}")); // malformed
  }

  @Test
  void cleanLinesHaveTheFixedFormat() {
    String first =
        new UserEventGenerator(1, 10, 1, Instant.parse("2026-11-28T10:15:30Z"), 1, 0, 0, 0, 0)
            .next();
    assertThat(first)
        .matches(
            "\\{\"event_id\":\"e-00000001\",\"user_id\":\"u-\\d{5}\",\"event_type\":\"\\w+\","
                + "\"event_timestamp\":\"2026-11-28T10:15:30\\.\\d{1,3}Z\",\"session_id\":\"s-001\","
                + "\"product_id\":\"p-0001\",\"price\":\\d+\\.\\d{2},\"device\":\"\\w+\",\"country\":\"\\w+\"}");
  }
}
