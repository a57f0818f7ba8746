package dev.medallion.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import java.math.BigDecimal;
import java.nio.channels.Channels;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.beam.sdk.io.FileSystems;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * A source's field mapping, declared in a file (YAML or JSON) instead of coded: how the fields of
 * its records become the fields the pipeline reads. Applied to each record's JSON object as Bronze
 * parses it, in this order:
 *
 * <ol>
 *   <li>{@code rename}: {@code {timestamp: event_timestamp, bridge_id: device_id}};
 *   <li>{@code coerce}: a field to {@code string} (an integer id becomes its text), {@code number},
 *       {@code integer} or {@code boolean} (from text such as {@code "12.5"} or {@code "true"}); a
 *       value that cannot be coerced is left as it is, for the rules to reject with its reason;
 *   <li>{@code defaults}: a value for a field that is absent or null, either one value ({@code
 *       unit: C}) or one per value of another field ({@code unit: {by: sensor_type, values:
 *       {temperature: C, humidity: "%"}}});
 *   <li>{@code constants}: a value set on every record.
 * </ol>
 *
 * The raw record is kept as it came (Bronze's raw payload); only what the rules read is mapped. A
 * mapping file with an unknown key, a field renamed twice or an unknown type is refused with a
 * message that names it.
 */
public final class FieldMapping implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The mapping that changes nothing. */
  public static final FieldMapping NONE =
      new FieldMapping(Map.of(), Map.of(), Map.of(), Map.of(), Map.of());

  private static final Set<String> KEYS = Set.of("rename", "coerce", "defaults", "constants");
  private static final Set<String> TYPES = Set.of("string", "number", "integer", "boolean");

  private final Map<String, String> rename;
  private final Map<String, String> coerce;

  /** Field → default (JSON text); field → the field its per-value defaults are looked up by. */
  private final Map<String, String> defaults;

  private final Map<String, String> defaultBy;
  private final Map<String, String> constants;
  private transient @Nullable Map<String, JsonNode> parsed;

  private FieldMapping(
      Map<String, String> rename,
      Map<String, String> coerce,
      Map<String, String> defaults,
      Map<String, String> defaultBy,
      Map<String, String> constants) {
    this.rename = new LinkedHashMap<>(rename);
    this.coerce = new LinkedHashMap<>(coerce);
    this.defaults = new LinkedHashMap<>(defaults);
    this.defaultBy = new LinkedHashMap<>(defaultBy);
    this.constants = new LinkedHashMap<>(constants);
  }

  /** The mapping in {@code path} (any Beam file system), YAML for {@code .yaml}/{@code .yml}. */
  public static FieldMapping load(String path) throws IOException {
    String lower = path.toLowerCase(Locale.ROOT);
    ObjectMapper mapper =
        lower.endsWith(".yaml") || lower.endsWith(".yml")
            ? new ObjectMapper(new YAMLFactory())
            : Json.mapper();
    JsonNode root;
    try (InputStream in =
        Channels.newInputStream(
            FileSystems.open(FileSystems.matchSingleFileSpec(path).resourceId()))) {
      root = mapper.readTree(in);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException(
          "mapping "
              + path
              + ": not valid "
              + (mapper == Json.mapper() ? "JSON" : "YAML")
              + ": "
              + e.getOriginalMessage(),
          e);
    }
    return of(root, path);
  }

  /** The mapping a parsed file holds; {@code name} names it in errors. */
  public static FieldMapping of(@Nullable JsonNode root, String name) {
    if (root == null || root.isNull() || root.isMissingNode()) {
      return NONE;
    }
    if (!root.isObject()) {
      throw bad(name, "must be a map of " + String.join(", ", sorted(KEYS)));
    }
    for (Iterator<String> it = root.fieldNames(); it.hasNext(); ) {
      String key = it.next();
      if (!KEYS.contains(key)) {
        throw bad(
            name, "unknown key '" + key + "' (the keys: " + String.join(", ", sorted(KEYS)) + ")");
      }
    }
    Map<String, String> rename = texts(root.get("rename"), name, "rename");
    Map<String, String> targets = new LinkedHashMap<>();
    rename.forEach(
        (from, to) -> {
          String other = targets.put(to, from);
          if (other != null) {
            throw bad(name, "rename: both '" + other + "' and '" + from + "' become '" + to + "'");
          }
        });
    Map<String, String> coerce = texts(root.get("coerce"), name, "coerce");
    coerce.forEach(
        (field, type) -> {
          if (!TYPES.contains(type)) {
            throw bad(
                name,
                "coerce: '"
                    + field
                    + "' to '"
                    + type
                    + "': the types are "
                    + String.join(", ", sorted(TYPES)));
          }
        });
    Map<String, String> defaults = new LinkedHashMap<>();
    Map<String, String> defaultBy = new LinkedHashMap<>();
    JsonNode d = root.get("defaults");
    if (d != null && !d.isNull()) {
      if (!d.isObject()) {
        throw bad(name, "defaults must be a map of field: value");
      }
      d.fields()
          .forEachRemaining(
              e -> {
                JsonNode v = e.getValue();
                if (v.isObject() && v.has("by")) {
                  if (!v.get("by").isTextual() || !v.path("values").isObject()) {
                    throw bad(
                        name,
                        "defaults: '"
                            + e.getKey()
                            + "' needs by: <field> and values: {value: default}");
                  }
                  defaultBy.put(e.getKey(), v.get("by").asText());
                  defaults.put(e.getKey(), v.get("values").toString());
                } else {
                  defaults.put(e.getKey(), v.toString());
                }
              });
    }
    Map<String, String> constants = new LinkedHashMap<>();
    JsonNode c = root.get("constants");
    if (c != null && !c.isNull()) {
      if (!c.isObject()) {
        throw bad(name, "constants must be a map of field: value");
      }
      c.fields().forEachRemaining(e -> constants.put(e.getKey(), e.getValue().toString()));
    }
    return new FieldMapping(rename, coerce, defaults, defaultBy, constants);
  }

  /** Whether this mapping changes nothing. */
  public boolean isEmpty() {
    return rename.isEmpty() && coerce.isEmpty() && defaults.isEmpty() && constants.isEmpty();
  }

  /** {@code json} mapped (in place), for the rules to read. */
  public ObjectNode apply(ObjectNode json) {
    if (isEmpty()) {
      return json;
    }
    Map<String, JsonNode> values = parsed();
    if (!rename.isEmpty()) {
      Map<String, JsonNode> moved = new LinkedHashMap<>();
      rename.forEach(
          (from, to) -> {
            JsonNode v = json.remove(from);
            if (v != null) {
              moved.put(to, v);
            }
          });
      moved.forEach(json::set);
    }
    coerce.forEach(
        (field, type) -> {
          JsonNode v = json.get(field);
          if (v != null && !v.isNull()) {
            json.set(field, coerced(v, type));
          }
        });
    defaults.forEach(
        (field, text) -> {
          JsonNode v = json.get(field);
          if (v != null && !v.isNull()) {
            return;
          }
          JsonNode value = values.get("d:" + field);
          String by = defaultBy.get(field);
          if (by != null) {
            JsonNode key = json.get(by);
            value = key == null || !key.isValueNode() ? null : value.get(key.asText());
          }
          if (value != null) {
            json.set(field, value.deepCopy());
          }
        });
    constants.forEach((field, text) -> json.set(field, values.get("c:" + field).deepCopy()));
    return json;
  }

  private static JsonNode coerced(JsonNode v, String type) {
    switch (type) {
      case "string":
        return v.isValueNode() && !v.isTextual() ? TextNode.valueOf(v.asText()) : v;
      case "number":
      case "integer":
        if (v.isTextual()) {
          try {
            BigDecimal n = new BigDecimal(v.asText().trim());
            if (type.equals("integer")) {
              return LongNode.valueOf(n.longValueExact());
            }
            return DecimalNode.valueOf(n);
          } catch (NumberFormatException | ArithmeticException e) {
            return v;
          }
        }
        return v;
      default: // boolean
        if (v.isTextual()
            && (v.asText().equalsIgnoreCase("true") || v.asText().equalsIgnoreCase("false"))) {
          return BooleanNode.valueOf(Boolean.parseBoolean(v.asText()));
        }
        return v;
    }
  }

  private Map<String, JsonNode> parsed() {
    if (parsed == null) {
      Map<String, JsonNode> out = new LinkedHashMap<>();
      defaults.forEach((f, text) -> out.put("d:" + f, value(text)));
      constants.forEach((f, text) -> out.put("c:" + f, value(text)));
      parsed = out;
    }
    return parsed;
  }

  private static JsonNode value(String json) {
    try {
      return Json.mapper().readTree(json);
    } catch (IOException e) {
      throw new IllegalStateException("a mapping value that was JSON is not: " + json, e);
    }
  }

  private static Map<String, String> texts(@Nullable JsonNode node, String name, String key) {
    Map<String, String> out = new LinkedHashMap<>();
    if (node == null || node.isNull()) {
      return out;
    }
    if (!node.isObject()) {
      throw bad(
          name, key + " must be a map of field: " + (key.equals("rename") ? "new name" : "type"));
    }
    node.fields()
        .forEachRemaining(
            e -> {
              if (!e.getValue().isTextual() || e.getValue().asText().isBlank()) {
                throw bad(
                    name, key + ": '" + e.getKey() + "' must map to a name, got " + e.getValue());
              }
              out.put(e.getKey(), e.getValue().asText());
            });
    return out;
  }

  private static List<String> sorted(Set<String> s) {
    List<String> out = new ArrayList<>(s);
    out.sort(null);
    return out;
  }

  private static IllegalArgumentException bad(String name, String what) {
    return new IllegalArgumentException("mapping " + name + ": " + what);
  }
}
