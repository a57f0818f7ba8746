package dev.medallion.generator;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

class EventGeneratorTest {
  private static final Instant START = Instant.parse("2026-11-29T10:00:00Z");

  private static List<GeneratedLine> all(GeneratorConfig c) {
    List<GeneratedLine> out = new ArrayList<>();
    new EventGenerator(c).forEachRemaining(out::add);
    return out;
  }

  private static GeneratorConfig noisy() {
    return GeneratorConfig.clean(7, 5, START, Duration.standardMinutes(5))
        .withKnobs(0.05, 0.05, 0.05, Duration.standardMinutes(3), 0.05, 0.05, 0.2);
  }

  @Test
  void theSameSeedGivesTheSameLines() {
    assertThat(all(noisy())).isEqualTo(all(noisy()));
  }

  @Test
  void linesComeInArrivalOrderAndLateOnesArriveAfterTheirEvent() {
    List<GeneratedLine> lines = all(noisy());
    for (int i = 1; i < lines.size(); i++) {
      assertThat(lines.get(i).arrivalMillis())
          .isGreaterThanOrEqualTo(lines.get(i - 1).arrivalMillis());
    }
    assertThat(lines)
        .anyMatch(
            l -> l.arrivalMillis() - l.eventMillis() == Duration.standardMinutes(3).getMillis());
  }

  @Test
  void cleanDataHasOneReadingPerDevicePerRound() {
    // 5 devices, a round every 5 s for 5 minutes = 60 rounds -> 300 readings, and a heartbeat
    // from each device every third round -> 100 heartbeats.
    List<GeneratedLine> lines =
        all(GeneratorConfig.clean(1, 5, START, Duration.standardMinutes(5)));
    assertThat(lines.stream().filter(l -> l.line().contains("sensor_type"))).hasSize(300);
    assertThat(lines.stream().filter(l -> l.line().contains("battery_pct"))).hasSize(100);
    assertThat(lines)
        .allMatch(
            l ->
                l.eventMillis() >= START.getMillis()
                    && l.eventMillis() < START.plus(Duration.standardMinutes(5)).getMillis());
  }

  @Test
  void valuesAreWrittenAsStringFormatWritesThem() {
    SplittableRandom random = new SplittableRandom(11);
    List<Double> values =
        new ArrayList<>(
            List.of(
                0.0,
                -0.0,
                99.85,
                99.95,
                1.005,
                0.125,
                2.675,
                999.995,
                1e-7,
                5e-4,
                1e-3,
                1e7,
                1.5e7,
                100.0,
                -1.005,
                -0.001,
                Double.NaN,
                Double.POSITIVE_INFINITY));
    for (int i = 0; i < 20_000; i++) {
      values.add(15 + 10 * random.nextDouble());
      values.add((15 + 10 * random.nextDouble()) * 9 / 5 + 32);
      values.add(30 + 40 * random.nextDouble());
      values.add(990 + 40 * random.nextDouble());
      values.add(Math.max(0, 100 - random.nextInt(4000) * 0.05 - random.nextInt(0, 9)));
    }
    for (double value : values) {
      for (int decimals = 0; decimals <= 3; decimals++) {
        assertThat(EventGenerator.appendFixed(new StringBuilder("v="), value, decimals).toString())
            .as("%s with %d decimals", value, decimals)
            .isEqualTo("v=" + String.format(Locale.ROOT, "%." + decimals + "f", value));
      }
    }
  }

  @Test
  void maxLinesStopsTheStream() {
    assertThat(all(noisy().withMaxLines(17))).hasSize(17);
  }

  @Test
  void theRegistryListsEveryGeneratedDevice() {
    String csv = DeviceRegistryWriter.csv(3);
    assertThat(csv.lines()).hasSize(4).element(3).asString().startsWith("dev-0003,");
  }
}
