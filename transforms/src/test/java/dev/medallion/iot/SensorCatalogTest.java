package dev.medallion.iot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.medallion.core.InvalidRecordException;
import dev.medallion.core.RawEvent;
import dev.medallion.testing.Events;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SensorCatalogTest {
  private static final Path BRIDGES = Paths.get("../testdata/catalogs/bridges.yaml");

  @TempDir Path tmp;

  @Test
  void theBuiltInCatalogHoldsTheThreeTypesAndConvertsFahrenheitAsBefore() {
    assertThat(SensorCatalog.DEFAULT.sensors())
        .extracting(SensorCatalog.Sensor::type)
        .containsExactly("temperature", "humidity", "pressure");
    for (double f : new double[] {-40, 0, 32, 71.3, 98.6, 257}) {
      assertThat(SensorCatalog.DEFAULT.canonical("temperature", f, "F"))
          .isEqualTo(new SensorCatalog.Canonical((f - 32.0) * 5.0 / 9.0, "C"));
    }
    assertThat(SensorCatalog.DEFAULT.defaultUnit("temperature")).isNull();
  }

  @Test
  void theBuiltInCatalogGivesGoldTheColumnsItAlwaysHad() {
    // The wide Gold tables as they were before their columns came from the catalog.
    assertThat(GoldColumns.deviceMinute(SensorCatalog.DEFAULT).getFieldNames())
        .containsExactly(
            "device_id",
            "site",
            "zone",
            "window_start",
            "window_end",
            "reading_count",
            "temperature_avg",
            "temperature_min",
            "temperature_max",
            "humidity_avg",
            "pressure_avg",
            "heartbeat_count",
            "battery_pct_min",
            "rssi_dbm_avg",
            "last_status",
            "pane_index",
            "pane_timing",
            "date",
            "written_at");
    assertThat(GoldColumns.siteMinute(SensorCatalog.DEFAULT).getFieldNames())
        .containsExactly(
            "site",
            "window_start",
            "window_end",
            "device_count",
            "reading_count",
            "temperature_avg",
            "temperature_min",
            "temperature_max",
            "humidity_avg",
            "pressure_avg",
            "heartbeat_count",
            "battery_pct_min",
            "rssi_dbm_avg",
            "pane_index",
            "pane_timing",
            "date",
            "written_at");
  }

  @Test
  void goldKeepsTheAggregatesEachTypeAsksForInAFixedOrder() throws Exception {
    Path file = tmp.resolve("catalog.yaml");
    Files.writeString(
        file,
        "sensors:\n"
            + "  vibration: {unit: mm/s, gold: [max, count]}\n"
            + "  tilt: {unit: deg}\n"
            + "  strain: {unit: ue, gold: []}\n");
    SensorCatalog c = SensorCatalog.load(file.toString());
    org.apache.beam.sdk.schemas.Schema device = GoldColumns.deviceMinute(c);
    assertThat(device.getFieldNames())
        .containsSubsequence(
            "reading_count",
            "vibration_count",
            "vibration_max",
            "tilt_avg",
            "tilt_min",
            "tilt_max",
            "heartbeat_count")
        .doesNotContain("temperature_avg", "humidity_avg", "pressure_avg", "vibration_avg")
        .noneMatch(n -> n.startsWith("strain"));
    assertThat(device.getField("vibration_count").getType())
        .isEqualTo(org.apache.beam.sdk.schemas.Schema.FieldType.INT64.withNullable(true));
    assertThat(device.getField("tilt_avg").getType())
        .isEqualTo(org.apache.beam.sdk.schemas.Schema.FieldType.DOUBLE.withNullable(true));
  }

  @Test
  void theBuiltInCatalogNamesWhatItAccepts() {
    assertThatThrownBy(() -> SensorCatalog.DEFAULT.canonical("vibration", 1, "mm/s"))
        .isInstanceOf(InvalidRecordException.class)
        .hasMessage("sensor_type \"vibration\" is not temperature, humidity or pressure")
        .extracting("reason")
        .isEqualTo("invalid_sensor_type");
    assertThatThrownBy(() -> SensorCatalog.DEFAULT.canonical("temperature", 1, "K"))
        .hasMessage("temperature unit \"K\" is not C or F")
        .extracting("reason")
        .isEqualTo("invalid_unit");
    assertThatThrownBy(() -> SensorCatalog.DEFAULT.canonical("humidity", 100.5, "%"))
        .hasMessage("humidity 100.5 % is outside 0.0..100.0 %")
        .extracting("reason")
        .isEqualTo("out_of_range:value");
  }

  @Test
  void aCatalogFileAddsTypesUnitsConversionsAndDefaultUnits() throws Exception {
    SensorCatalog bridges = SensorCatalog.load(BRIDGES.toString());
    assertThat(bridges.sensors())
        .extracting(SensorCatalog.Sensor::type)
        .containsExactly("temperature", "vibration", "tilt");
    assertThat(bridges.canonical("vibration", 0.5, "in/s"))
        .isEqualTo(new SensorCatalog.Canonical(12.7, "mm/s"));
    assertThat(bridges.canonical("tilt", Math.PI / 4, "rad").value())
        .isCloseTo(45.0, org.assertj.core.api.Assertions.within(1e-9));
    assertThat(bridges.defaultUnit("vibration")).isEqualTo("mm/s");
    assertThat(bridges.defaultUnit("temperature")).isNull();
    assertThat(bridges.defaultUnit("wind")).isNull();
    assertThatThrownBy(() -> bridges.canonical("humidity", 40, "%"))
        .hasMessage(
            "sensor_type \"humidity\" is not temperature, vibration or tilt (sensor catalog "
                + BRIDGES
                + ")");
    assertThatThrownBy(() -> bridges.canonical("temperature", 81, "C"))
        .hasMessage("temperature 81.0 C is outside -40.0..80.0 C");
  }

  @Test
  void aReadingWithoutAUnitTakesItsTypesDefaultUnitAndOthersStillNeedOne() throws Exception {
    SensorCatalog bridges = SensorCatalog.load(BRIDGES.toString());
    SensorReading tilt =
        ValidateAndEnrich.toReading(
            bronze("{\"device_id\":\"dev-0001\",\"sensor_type\":\"tilt\",\"value\":1.5}"),
            Events.DEVICES,
            bridges);
    assertThat(tilt.getUnit()).isEqualTo("deg");
    assertThat(tilt.getOriginalUnit()).isEqualTo("deg");
    assertThat(tilt.getValue()).isEqualTo(1.5);
    assertThatThrownBy(
            () ->
                ValidateAndEnrich.toReading(
                    bronze(
                        "{\"device_id\":\"dev-0001\",\"sensor_type\":\"temperature\",\"value\":1}"),
                    Events.DEVICES,
                    bridges))
        .extracting("reason")
        .isEqualTo("missing_unit");
    // a unit of the wrong JSON type is still wrong, default or not
    assertThatThrownBy(
            () ->
                ValidateAndEnrich.toReading(
                    bronze(
                        "{\"device_id\":\"dev-0001\",\"sensor_type\":\"tilt\",\"value\":1,"
                            + "\"unit\":7}"),
                    Events.DEVICES,
                    bridges))
        .extracting("reason")
        .isEqualTo("wrong_type:unit");
  }

  private static BronzeEvent bronze(String json) {
    String line = json.replace("}", ",\"ts\":\"2026-11-29T10:15:30Z\"}");
    return IngestToBronze.classify(
        RawEvent.of(line, "file", "t.ndjson", null, 1, null), new Instant(0));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "sensors: {t: {unit: C, colour: red}}|sensors.t: unknown key 'colour' (the keys:"
            + " default_unit, gold, range, unit, units)",
        "sensors: {t: {units: {C: {}}}}|sensors.t.unit (the unit the type is kept in) is required",
        "sensors: {t: {unit: C, range: [5, 1]}}|sensors.t.range must be [low, high], two numbers"
            + " with low ≤ high",
        "sensors: {t: {unit: C, range: [1]}}|sensors.t.range must be [low, high]",
        "sensors: {t: {unit: C, units: {F: {add: -32}}}}|sensors.t.units must list 'C' (the kept"
            + " unit) with no conversion",
        "sensors: {t: {unit: C, units: {C: {}, F: {plus: 1}}}}|sensors.t.units.F: 'plus' is not"
            + " add, multiply or divide with a number",
        "sensors: {t: {unit: C, units: {C: {}, F: {divide: 0}}}}|sensors.t.units.F: multiply and"
            + " divide must not be 0",
        "sensors: {t: {unit: C, default_unit: F}}|sensors.t.default_unit must be one of its units:"
            + " C",
        "sensors: {Wind Speed: {unit: m/s}}|sensors.Wind Speed: a sensor type is lower case",
        "sensors: {}|'sensors' must map each sensor type to its rules",
        "types: {t: {unit: C}}|must be a map with one key, 'sensors'",
        "sensors: [t|not valid YAML",
        "sensors: {t: {unit: C, gold: avg}}|sensors.t.gold must be a list of count, avg, min, max"
            + " ([] for none)",
        "sensors: {t: {unit: C, gold: [mean]}}|sensors.t.gold must be a list of count, avg, min,"
            + " max ([] for none); got \"mean\"",
        "sensors: {t: {unit: C, gold: [max, max]}}|sensors.t.gold lists max twice",
        "sensors: {reading: {unit: C, gold: [count]}}|sensors.reading.gold: its column"
            + " reading_count would clash with Gold's own column of that name; rename the type",
        "sensors: {battery_pct: {unit: '%', gold: [avg, min]}}|sensors.battery_pct.gold: its"
            + " column battery_pct_min would clash",
      })
  void aWrongCatalogIsNamedWithWhatIsWrong(String yaml, String message) throws Exception {
    Path file = tmp.resolve("catalog.yaml");
    Files.writeString(file, yaml + "\n");
    assertThatThrownBy(() -> SensorCatalog.load(file.toString()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("sensor catalog " + file + ": ")
        .hasMessageContaining(message);
  }
}
