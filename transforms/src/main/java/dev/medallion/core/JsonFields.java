package dev.medallion.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Typed reads of a JSON object's optional fields, for Bronze's schema-aware columns: an absent or
 * null field reads as null; a field of the wrong JSON type also reads as null and is noted in
 * {@link #typeErrors()} as {@code field:jsontype}, and a JSON number beyond the range of a double
 * ({@code 1e400}) reads as null and is noted as {@code field:out_of_range}, so that Silver can
 * reject it with its reason without parsing the line again.
 */
public final class JsonFields {
  /** The note of a number too large for a finite double, in place of a JSON type. */
  public static final String OUT_OF_RANGE = "out_of_range";

  private final ObjectNode json;
  private final List<String> errors = new ArrayList<>();
  private final Set<String> read = new HashSet<>();

  public JsonFields(ObjectNode json) {
    this.json = json;
  }

  public @Nullable String text(String field) {
    read.add(field);
    JsonNode v = json.get(field);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isTextual()) {
      return wrong(field, v);
    }
    return v.asText();
  }

  public @Nullable Double number(String field) {
    read.add(field);
    JsonNode v = json.get(field);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isNumber()) {
      return wrong(field, v);
    }
    double d = v.asDouble();
    if (!Double.isFinite(d)) {
      errors.add(field + ":" + OUT_OF_RANGE);
      return null;
    }
    return d;
  }

  public @Nullable Long integer(String field) {
    read.add(field);
    JsonNode v = json.get(field);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isIntegralNumber() || !v.canConvertToLong()) {
      return wrong(field, v);
    }
    return v.asLong();
  }

  private <T> @Nullable T wrong(String field, JsonNode v) {
    noteWrong(field, v);
    return null;
  }

  /** Notes a field whose value a caller found unusable (an unparseable timestamp, say). */
  public void noteWrong(String field, JsonNode v) {
    errors.add(field + ":" + v.getNodeType().name().toLowerCase());
  }

  /**
   * The fields of the object that no rule reads (neither read through this object nor named in
   * {@code known}), as one JSON object in their order; null when there are none. Bronze and Silver
   * keep it in their {@code extra} column, so that what the rules do not know stays queryable.
   */
  public @Nullable String extra(String... known) {
    List<String> also = List.of(known);
    ObjectNode rest = null; // built only for a record that has an unknown field
    for (Iterator<Map.Entry<String, JsonNode>> it = json.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> f = it.next();
      if (!read.contains(f.getKey()) && !also.contains(f.getKey())) {
        rest = rest == null ? json.objectNode() : rest;
        rest.set(f.getKey(), f.getValue());
      }
    }
    return rest == null ? null : rest.toString();
  }

  /**
   * {@code field:jsontype,…} for every field read with the wrong type ({@code field:out_of_range}
   * for a number beyond a double); null when none.
   */
  public @Nullable String typeErrors() {
    return errors.isEmpty() ? null : String.join(",", errors);
  }

  /**
   * A required string field read by {@link #text}.
   *
   * @throws InvalidRecordException {@code wrong_type:<field>} or {@code missing_<field>} (also for
   *     a blank string)
   */
  public static String requireText(
      @Nullable String value, String field, @Nullable String typeErrors) {
    String wrong = wrongTypeOf(typeErrors, field);
    if (wrong != null) {
      throw new InvalidRecordException(
          "wrong_type:" + field, field + " must be a string, got " + wrong);
    }
    if (value == null) {
      throw new InvalidRecordException("missing_" + field, field + " is missing or null");
    }
    if (value.isBlank()) {
      throw new InvalidRecordException("missing_" + field, field + " is empty");
    }
    return value;
  }

  /**
   * A required number field read by {@link #number}; reasons as {@link #requireText}.
   *
   * @param line the raw line the field was read from, to name a number beyond the range of a double
   *     as it was written
   * @throws InvalidRecordException also {@code out_of_range:<field>} for such a number
   */
  public static double requireNumber(
      @Nullable Double value, String field, @Nullable String typeErrors, String line) {
    String wrong = wrongTypeOf(typeErrors, field);
    if (OUT_OF_RANGE.equals(wrong)) {
      throw outOfRange(field, Json.fieldText(line, field));
    }
    if (wrong != null) {
      throw new InvalidRecordException(
          "wrong_type:" + field, field + " must be a JSON number, got " + wrong);
    }
    if (value == null) {
      throw new InvalidRecordException("missing_" + field, field + " is missing or null");
    }
    return value;
  }

  /** A required integer field read by {@link #integer}; reasons as {@link #requireText}. */
  public static long requireInteger(
      @Nullable Long value, String field, @Nullable String typeErrors) {
    checkType(field, typeErrors, "a JSON integer");
    if (value == null) {
      throw new InvalidRecordException("missing_" + field, field + " is missing or null");
    }
    return value;
  }

  /**
   * An optional field read by {@link #text}, {@link #number} or {@link #integer}: only its type.
   */
  public static void checkType(String field, @Nullable String typeErrors, String expected) {
    String wrong = wrongTypeOf(typeErrors, field);
    if (OUT_OF_RANGE.equals(wrong)) {
      throw outOfRange(field, null);
    }
    if (wrong != null) {
      throw new InvalidRecordException(
          "wrong_type:" + field, field + " must be " + expected + ", got " + wrong);
    }
  }

  private static InvalidRecordException outOfRange(String field, @Nullable String written) {
    return new InvalidRecordException(
        "out_of_range:" + field,
        field + (written == null ? "" : " " + written) + " is beyond the range of a double");
  }

  /**
   * The JSON type a field had when Bronze found it of the wrong type ({@link #OUT_OF_RANGE} for a
   * number beyond a double), or null when it did not.
   *
   * @param typeErrors a {@link #typeErrors()} value
   */
  public static @Nullable String wrongTypeOf(@Nullable String typeErrors, String field) {
    if (typeErrors == null) {
      return null;
    }
    for (String e : typeErrors.split(",")) {
      int colon = e.lastIndexOf(':');
      if (e.substring(0, colon).equals(field)) {
        return e.substring(colon + 1);
      }
    }
    return null;
  }
}
