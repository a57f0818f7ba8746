package dev.medallion.iot;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.medallion.core.InvalidRecordException;
import dev.medallion.core.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.beam.sdk.io.FileSystems;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * The sensor types Silver keeps and Gold aggregates, declared in a file (YAML or JSON) instead of
 * coded: per type the unit it is kept in, the units it accepts with their conversion, the valid
 * range, an optional unit for readings sent without one, and the aggregates Gold keeps of it per
 * minute ({@code gold: [avg, min, max]} when not given; any of count, avg, min, max), each a column
 * {@code <type>_<aggregate>} of {@code gold_device_minute} and {@code gold_site_minute} (see {@link
 * GoldColumns}). {@link #DEFAULT} ({@code sensor-catalog.yaml} beside this class) holds Medallion's
 * own rules: temperature in °C (°F converted) within −40..125 with its average, minimum and
 * maximum, humidity in % within 0..100 and pressure in hPa within 300..1100 with their averages.
 */
public final class SensorCatalog implements Serializable {
  private static final long serialVersionUID = 1L;

  private static final Set<String> SENSOR_KEYS =
      Set.of("unit", "units", "range", "default_unit", "gold");

  /** The aggregates Gold may keep of a sensor type, in the order of their columns. */
  public static final List<String> AGGREGATES = List.of("count", "avg", "min", "max");

  private static final List<String> DEFAULT_GOLD = List.of("avg", "min", "max");
  private static final Set<String> STEPS = Set.of("add", "multiply", "divide");
  private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_]*");

  private static final String BUILT_IN = "the built-in sensor catalog";

  public static final SensorCatalog DEFAULT = builtIn();

  /** A value in the unit its type is kept in. */
  public record Canonical(double value, String unit) {}

  /** {@code ((value + add) × multiply) ÷ divide}. */
  public record Conversion(double add, double multiply, double divide) implements Serializable {
    static final Conversion NONE = new Conversion(0, 1, 1);

    double apply(double v) {
      return (v + add) * multiply / divide;
    }
  }

  /** One sensor type. */
  public record Sensor(
      String type,
      String unit,
      Map<String, Conversion> units,
      @Nullable Double lo,
      @Nullable Double hi,
      @Nullable String defaultUnit,
      List<String> gold)
      implements Serializable {}

  private final String name;
  private final LinkedHashMap<String, Sensor> sensors;

  private SensorCatalog(String name, LinkedHashMap<String, Sensor> sensors) {
    this.name = name;
    this.sensors = sensors;
  }

  /** The catalog in {@code path} (any Beam file system), YAML for {@code .yaml}/{@code .yml}. */
  public static SensorCatalog load(String path) throws IOException {
    String lower = path.toLowerCase(Locale.ROOT);
    boolean yaml = lower.endsWith(".yaml") || lower.endsWith(".yml");
    try (InputStream in =
        Channels.newInputStream(
            FileSystems.open(FileSystems.matchSingleFileSpec(path).resourceId()))) {
      return parse(in, yaml, path);
    }
  }

  private static SensorCatalog parse(InputStream in, boolean yaml, String name) throws IOException {
    ObjectMapper mapper = yaml ? new ObjectMapper(new YAMLFactory()) : Json.mapper();
    JsonNode root;
    try {
      root = mapper.readTree(in);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw bad(name, "not valid " + (yaml ? "YAML" : "JSON") + ": " + e.getOriginalMessage());
    }
    return of(root, name);
  }

  private static SensorCatalog builtIn() {
    try (InputStream in = SensorCatalog.class.getResourceAsStream("sensor-catalog.yaml")) {
      if (in == null) {
        throw new IllegalStateException("sensor-catalog.yaml is missing from the classpath");
      }
      return parse(in, true, BUILT_IN);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The catalog a parsed file holds; {@code name} names it in errors. */
  public static SensorCatalog of(@Nullable JsonNode root, String name) {
    if (root == null || !root.isObject() || root.size() != 1 || !root.has("sensors")) {
      throw bad(name, "must be a map with one key, 'sensors'");
    }
    JsonNode types = root.get("sensors");
    if (!types.isObject() || types.isEmpty()) {
      throw bad(name, "'sensors' must map each sensor type to its rules");
    }
    LinkedHashMap<String, Sensor> sensors = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = types.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      Sensor s = sensor(e.getKey(), e.getValue(), name);
      for (String column : GoldColumns.names(s)) {
        if (GoldColumns.FIXED.contains(column)) {
          throw bad(
              name,
              "sensors."
                  + s.type()
                  + ".gold: its column "
                  + column
                  + " would clash with Gold's own column of that name; rename the type");
        }
      }
      sensors.put(e.getKey(), s);
    }
    return new SensorCatalog(name, sensors);
  }

  private static Sensor sensor(String type, JsonNode rules, String name) {
    String at = "sensors." + type;
    if (!NAME.matcher(type).matches()) {
      throw bad(name, at + ": a sensor type is lower case letters, digits and _ (a column name)");
    }
    if (!rules.isObject()) {
      throw bad(name, at + " must be a map of " + String.join(", ", sorted(SENSOR_KEYS)));
    }
    for (Iterator<String> it = rules.fieldNames(); it.hasNext(); ) {
      String key = it.next();
      if (!SENSOR_KEYS.contains(key)) {
        throw bad(
            name,
            at
                + ": unknown key '"
                + key
                + "' (the keys: "
                + String.join(", ", sorted(SENSOR_KEYS))
                + ")");
      }
    }
    JsonNode unitNode = rules.get("unit");
    if (unitNode == null || !unitNode.isTextual() || unitNode.asText().isBlank()) {
      throw bad(name, at + ".unit (the unit the type is kept in) is required");
    }
    String unit = unitNode.asText();
    LinkedHashMap<String, Conversion> units = new LinkedHashMap<>();
    JsonNode unitsNode = rules.get("units");
    if (unitsNode == null) {
      units.put(unit, Conversion.NONE);
    } else {
      if (!unitsNode.isObject() || unitsNode.isEmpty()) {
        throw bad(name, at + ".units must map each accepted unit to its conversion ({} for none)");
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = unitsNode.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> u = it.next();
        units.put(u.getKey(), conversion(u.getValue(), at + ".units." + u.getKey(), name));
      }
      Conversion own = units.get(unit);
      if (own == null || !own.equals(Conversion.NONE)) {
        throw bad(name, at + ".units must list '" + unit + "' (the kept unit) with no conversion");
      }
    }
    Double lo = null;
    Double hi = null;
    JsonNode range = rules.get("range");
    if (range != null && !range.isNull()) {
      if (!range.isArray()
          || range.size() != 2
          || !range.get(0).isNumber()
          || !range.get(1).isNumber()
          || range.get(0).asDouble() > range.get(1).asDouble()) {
        throw bad(name, at + ".range must be [low, high], two numbers with low ≤ high");
      }
      lo = range.get(0).asDouble();
      hi = range.get(1).asDouble();
    }
    String defaultUnit = null;
    JsonNode d = rules.get("default_unit");
    if (d != null && !d.isNull()) {
      if (!d.isTextual() || !units.containsKey(d.asText())) {
        throw bad(name, at + ".default_unit must be one of its units: " + join(units.keySet()));
      }
      defaultUnit = d.asText();
    }
    return new Sensor(
        type, unit, Collections.unmodifiableMap(units), lo, hi, defaultUnit, gold(rules, at, name));
  }

  /** The {@code gold} list: aggregates of {@link #AGGREGATES}, each once, kept in that order. */
  private static List<String> gold(JsonNode rules, String at, String name) {
    JsonNode g = rules.get("gold");
    if (g == null || g.isNull()) {
      return DEFAULT_GOLD;
    }
    String must =
        at + ".gold must be a list of " + String.join(", ", AGGREGATES) + " ([] for none)";
    if (!g.isArray()) {
      throw bad(name, must);
    }
    Set<String> wanted = new java.util.HashSet<>();
    for (JsonNode a : g) {
      if (!a.isTextual() || !AGGREGATES.contains(a.asText())) {
        throw bad(name, must + "; got " + a);
      }
      if (!wanted.add(a.asText())) {
        throw bad(name, at + ".gold lists " + a.asText() + " twice");
      }
    }
    return AGGREGATES.stream().filter(wanted::contains).toList();
  }

  private static Conversion conversion(JsonNode steps, String at, String name) {
    if (steps == null || steps.isNull()) {
      return Conversion.NONE;
    }
    if (!steps.isObject()) {
      throw bad(name, at + " must be a map of add, multiply, divide ({} for none)");
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = steps.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> s = it.next();
      if (!STEPS.contains(s.getKey()) || !s.getValue().isNumber()) {
        throw bad(name, at + ": '" + s.getKey() + "' is not add, multiply or divide with a number");
      }
    }
    double divide = steps.path("divide").asDouble(1);
    double multiply = steps.path("multiply").asDouble(1);
    if (divide == 0 || multiply == 0) {
      throw bad(name, at + ": multiply and divide must not be 0");
    }
    return new Conversion(steps.path("add").asDouble(0), multiply, divide);
  }

  /** The sensor types, in the catalog's order. */
  public List<Sensor> sensors() {
    return List.copyOf(sensors.values());
  }

  /** The unit a reading of {@code type} sent without one is taken in; null when it needs one. */
  public @Nullable String defaultUnit(String type) {
    Sensor s = sensors.get(type);
    return s == null ? null : s.defaultUnit();
  }

  /**
   * {@code value} in {@code unit} converted to its type's kept unit and checked against its range.
   *
   * @throws InvalidRecordException {@code invalid_sensor_type}, {@code invalid_unit} or {@code
   *     out_of_range:value}
   */
  public Canonical canonical(String type, double value, String unit) {
    Sensor s = sensors.get(type);
    if (s == null) {
      throw new InvalidRecordException(
          "invalid_sensor_type",
          "sensor_type \"" + type + "\" is not " + orList(sensors.keySet()) + catalogNote());
    }
    Conversion c = s.units().get(unit);
    if (c == null) {
      throw new InvalidRecordException(
          "invalid_unit", type + " unit \"" + unit + "\" is not " + orList(s.units().keySet()));
    }
    double v = c.apply(value);
    if ((s.lo() != null && v < s.lo()) || (s.hi() != null && v > s.hi())) {
      throw new InvalidRecordException(
          "out_of_range:value",
          type + " " + v + " " + s.unit() + " is outside " + range(s) + " " + s.unit());
    }
    if (Double.isNaN(v) || Double.isInfinite(v)) {
      throw new InvalidRecordException(
          "out_of_range:value", type + " " + value + " " + unit + " is not a finite number");
    }
    return new Canonical(v, s.unit());
  }

  private String catalogNote() {
    return name.equals(BUILT_IN) ? "" : " (sensor catalog " + name + ")";
  }

  private static String range(Sensor s) {
    return (s.lo() == null ? "" : s.lo().toString()) + ".." + (s.hi() == null ? "" : s.hi());
  }

  /** "a", "a or b", "a, b or c". */
  private static String orList(Set<String> items) {
    List<String> l = new ArrayList<>(items);
    if (l.size() == 1) {
      return l.get(0);
    }
    return String.join(", ", l.subList(0, l.size() - 1)) + " or " + l.get(l.size() - 1);
  }

  private static String join(Set<String> items) {
    return String.join(", ", items);
  }

  private static List<String> sorted(Set<String> s) {
    return s.stream().sorted().toList();
  }

  private static IllegalArgumentException bad(String name, String why) {
    return new IllegalArgumentException("sensor catalog " + name + ": " + why);
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof SensorCatalog c && c.sensors.equals(sensors);
  }

  @Override
  public int hashCode() {
    return sensors.hashCode();
  }

  @Override
  public String toString() {
    return "SensorCatalog(" + name + ": " + join(sensors.keySet()) + ")";
  }
}
