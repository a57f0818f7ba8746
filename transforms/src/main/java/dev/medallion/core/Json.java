package dev.medallion.core;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import org.checkerframework.checker.nullness.qual.Nullable;

/** JSON helpers shared by every layer: one configured mapper, object parsing with reasons. */
public final class Json {
  private static final ObjectMapper MAPPER =
      JsonMapper.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

  private Json() {}

  public static ObjectMapper mapper() {
    return MAPPER;
  }

  /**
   * Parses one line that must hold exactly one JSON object, and nothing after it but white space:
   * two objects on one line, or an object followed by anything else, are rejected whole rather than
   * keeping the first and losing the rest.
   *
   * @throws InvalidRecordException {@code not_json}, {@code not_object} or {@code trailing_data}
   */
  public static ObjectNode parseObject(String line) {
    JsonNode node;
    try (JsonParser parser = MAPPER.createParser(line)) {
      try {
        node = MAPPER.readTree(parser);
      } catch (JsonProcessingException e) {
        throw new InvalidRecordException("not_json", "not valid JSON: " + e.getOriginalMessage());
      }
      if (node == null || node.isMissingNode()) {
        throw new InvalidRecordException("not_json", "empty line");
      }
      JsonToken next;
      long end = parser.currentLocation().getCharOffset();
      try {
        next = parser.nextToken();
      } catch (JsonProcessingException e) {
        next = JsonToken.NOT_AVAILABLE;
      }
      if (next != null) {
        throw new InvalidRecordException(
            "trailing_data",
            "more after the JSON value that ends at character " + end + " (one value per line)");
      }
    } catch (IOException e) {
      throw new InvalidRecordException("not_json", "not valid JSON: " + e.getMessage());
    }
    if (!node.isObject()) {
      throw new InvalidRecordException(
          "not_object", "expected a JSON object, got " + node.getNodeType().name().toLowerCase());
    }
    return (ObjectNode) node;
  }

  /** A required non-empty string field of a parsed object; see {@link JsonFields#requireText}. */
  public static String requireText(JsonNode object, String field) {
    JsonFields fields = new JsonFields((ObjectNode) object);
    String value = fields.text(field);
    return JsonFields.requireText(value, field, fields.typeErrors());
  }

  /**
   * A top-level scalar field of a line holding a JSON object, as it is written there ({@code 1e400}
   * stays {@code 1e400}, where the parsed tree would hold infinity); null when the field is absent
   * or not a scalar, or the line is not such an object. For messages about rejected values.
   */
  public static @Nullable String fieldText(String line, String field) {
    try (JsonParser p = MAPPER.createParser(line)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken value = p.nextToken();
        if (name.equals(field)) {
          return value != null && value.isScalarValue() ? p.getText() : null;
        }
        p.skipChildren();
      }
      return null;
    } catch (IOException e) {
      return null;
    }
  }
}
