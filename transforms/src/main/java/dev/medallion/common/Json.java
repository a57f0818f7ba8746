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

  /** A required non-empty string field. */
  public static String requireText(JsonNode object, String field) {
    JsonNode v = object.get(field);
    if (v == null || v.isNull()) {
      throw new InvalidRecordException("missing_" + field, field + " is missing or null");
    }
    if (!v.isTextual()) {
      throw new InvalidRecordException(
          "wrong_type:" + field,
          field + " must be a string, got " + v.getNodeType().name().toLowerCase());
    }
    if (v.asText().isBlank()) {
      throw new InvalidRecordException("missing_" + field, field + " is empty");
    }
    return v.asText();
  }

  /** A required JSON number (not a numeric string). */
  public static double requireNumber(JsonNode object, String field) {
    JsonNode v = object.get(field);
    if (v == null || v.isNull()) {
      throw new InvalidRecordException("missing_" + field, field + " is missing or null");
    }
    if (!v.isNumber()) {
      throw new InvalidRecordException(
          "wrong_type:" + field,
          field + " must be a JSON number, got " + v.getNodeType().name().toLowerCase() + " " + v);
    }
    double d = v.asDouble();
    if (Double.isNaN(d) || Double.isInfinite(d)) {
      throw new InvalidRecordException("wrong_type:" + field, field + " is not finite: " + v);
    }
    return d;
  }

  /** A required JSON integer. */
  public static long requireInteger(JsonNode object, String field) {
    JsonNode v = object.get(field);
    if (v == null || v.isNull()) {
      throw new InvalidRecordException("missing_" + field, field + " is missing or null");
    }
    if (!v.isIntegralNumber() || !v.canConvertToLong()) {
      throw new InvalidRecordException(
          "wrong_type:" + field,
          field + " must be a JSON integer, got " + v.getNodeType().name().toLowerCase() + " " + v);
    }
    return v.asLong();
  }
}
