package dev.medallion.common;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** JSON helpers shared by every layer: one configured mapper, object parsing with reasons. */
public final class Json {
  private static final ObjectMapper MAPPER =
      JsonMapper.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

  private Json() {}

  public static ObjectMapper mapper() {
    return MAPPER;
  }

  /**
   * Parses one line that must hold exactly one JSON object.
   *
   * @throws InvalidRecordException {@code not_json} or {@code not_object}
   */
  public static ObjectNode parseObject(String line) {
    JsonNode node;
    try {
      node = MAPPER.readTree(line);
    } catch (JsonProcessingException e) {
      throw new InvalidRecordException("not_json", "not valid JSON: " + e.getOriginalMessage());
    }
    if (node == null || node.isMissingNode()) {
      throw new InvalidRecordException("not_json", "empty line");
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
}
