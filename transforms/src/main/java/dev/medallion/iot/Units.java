package dev.medallion.iot;

import dev.medallion.core.InvalidRecordException;

/**
 * Sensor types, their units and valid ranges. Temperatures sent in °F are converted to °C; the
 * range is checked on the converted value: temperature −40..125 °C, humidity 0..100 %, pressure
 * 300..1100 hPa (bounds included).
 */
public final class Units {
  private Units() {}

  /** A value in the canonical unit of its sensor type. */
  public record Canonical(double value, String unit) {}

  public static Canonical canonical(String sensorType, double value, String unit) {
    return switch (sensorType) {
      case "temperature" -> {
        double celsius =
            switch (unit) {
              case "C" -> value;
              case "F" -> (value - 32.0) * 5.0 / 9.0;
              default -> throw badUnit(sensorType, unit, "C or F");
            };
        yield inRange(sensorType, celsius, "C", -40, 125);
      }
      case "humidity" -> {
        if (!unit.equals("%")) {
          throw badUnit(sensorType, unit, "%");
        }
        yield inRange(sensorType, value, "%", 0, 100);
      }
      case "pressure" -> {
        if (!unit.equals("hPa")) {
          throw badUnit(sensorType, unit, "hPa");
        }
        yield inRange(sensorType, value, "hPa", 300, 1100);
      }
      default ->
          throw new InvalidRecordException(
              "invalid_sensor_type",
              "sensor_type \"" + sensorType + "\" is not temperature, humidity or pressure");
    };
  }

  private static Canonical inRange(String type, double v, String unit, double lo, double hi) {
    if (v < lo || v > hi) {
      throw new InvalidRecordException(
          "out_of_range:value",
          type + " " + v + " " + unit + " is outside " + lo + ".." + hi + " " + unit);
    }
    return new Canonical(v, unit);
  }

  private static InvalidRecordException badUnit(String type, String unit, String expected) {
    return new InvalidRecordException(
        "invalid_unit", type + " unit \"" + unit + "\" is not " + expected);
  }
}
