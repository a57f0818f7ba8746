package dev.medallion.iot;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.medallion.core.EventTimestamps;
import dev.medallion.core.Json;
import dev.medallion.core.RawEvent;
import java.io.IOException;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * Bronze's rule for a plain line, in one pass of Jackson's streaming parser instead of through a
 * tree. A plain line is what nearly every line is: one flat JSON object, each field once, its known
 * fields of their JSON types (a number within a double's range, an integer within a long's), a
 * usable {@code device_id} and {@code ts} (and the record's key, if it has one, equal to the {@code
 * device_id}), the shape of a reading or a heartbeat, and any other field a string, number, boolean
 * or null. For such a line {@link #read} builds the row {@link IngestToBronze#classify} builds from
 * the tree, at about half the cost (the tree, its maps and the parser's duplicate check were most
 * of Bronze's parse).
 *
 * <p>For any other line it returns null, and the caller applies the tree rule, which rejects the
 * line with its reason or keeps it with its type errors and its nested {@code extra}: a record its
 * reader could not decode or shape, one beyond the size limit, a line that is not valid JSON, has a
 * field twice, a known field of the wrong type or out of range, a nested object or array, an
 * unusable {@code device_id} or {@code ts}, a key that is not its {@code device_id}, neither shape,
 * or anything after the object. The tree rule stays the one place that names a reason and notes a
 * type error, so this class decides nothing a row could differ by; {@code PlainLinesTest} holds the
 * two reads to the same row.
 */
final class PlainLines {
  /**
   * The project's parser ({@link Json#mapper()}) without its duplicate check, which this read makes
   * itself: a bit per known field, the {@code extra} object's own map for the others.
   */
  private static final JsonFactory PARSERS =
      Json.mapper().getFactory().copy().disable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

  private static final String[] KNOWN = {
    "device_id", "ts", "sensor_type", "value", "unit", "seq", "battery_pct", "rssi_dbm", "status"
  };

  private PlainLines() {}

  /** Why a line is not plain: thrown inside the read only, without a stack trace. */
  private static final class NotPlain extends Exception {
    private static final long serialVersionUID = 1L;
    static final NotPlain LINE = new NotPlain();

    private NotPlain() {
      super(null, null, false, false);
    }
  }

  /** The line's Bronze row, or null when the line is not plain (see the class). */
  static @Nullable BronzeEvent read(RawEvent raw, Instant ingestTs) {
    String line = raw.getPayload();
    if (raw.getDecodeError() != null
        || raw.getReadError() != null
        || line.length() > RawEvent.MAX_PAYLOAD_CHARS) {
      return null;
    }
    try (JsonParser p = PARSERS.createParser(line)) {
      return read(p, raw, ingestTs);
    } catch (NotPlain | IOException | RuntimeException notPlain) {
      return null;
    }
  }

  private static BronzeEvent read(JsonParser p, RawEvent raw, Instant ingestTs)
      throws IOException, NotPlain {
    require(p.nextToken() == JsonToken.START_OBJECT);
    String deviceId = null;
    JsonNode ts = null;
    String sensorType = null;
    Double value = null;
    String unit = null;
    Long seq = null;
    Double batteryPct = null;
    Long rssiDbm = null;
    String status = null;
    int seen = 0; // a bit per known field
    ObjectNode extra = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken v = p.nextToken();
      int known = indexOf(name);
      if (known < 0) {
        require(v.isScalarValue() && (extra == null || !extra.has(name)));
        extra = extra == null ? Json.mapper().getNodeFactory().objectNode() : extra;
        extra.set(name, Json.mapper().readTree(p));
        continue;
      }
      require((seen & (1 << known)) == 0);
      seen |= 1 << known;
      switch (known) {
        case 0 -> deviceId = text(p, v);
        case 1 -> ts = timestamp(p, v);
        case 2 -> sensorType = text(p, v);
        case 3 -> value = number(p, v);
        case 4 -> unit = text(p, v);
        case 5 -> seq = integer(p, v);
        case 6 -> batteryPct = number(p, v);
        case 7 -> rssiDbm = integer(p, v);
        default -> status = text(p, v);
      }
    }
    require(p.currentToken() == JsonToken.END_OBJECT && p.nextToken() == null);
    require(deviceId != null && !deviceId.isBlank() && ts != null);
    String key = raw.getSourceKey();
    require(key == null || key.equals(deviceId));
    boolean reading = (seen & (1 << 2)) != 0;
    boolean heartbeat = (seen & (1 << 6 | 1 << 7 | 1 << 8)) != 0;
    require(reading || heartbeat);
    return BronzeEvent.of(
        reading ? "reading" : "heartbeat",
        deviceId,
        EventTimestamps.parse(ts, "ts"),
        raw.getPayload(),
        raw,
        ingestTs,
        new BronzeEvent.Fields(
            sensorType,
            value,
            unit,
            seq,
            batteryPct,
            rssiDbm,
            status,
            null,
            extra == null ? null : extra.toString()));
  }

  private static int indexOf(String name) {
    for (int i = 0; i < KNOWN.length; i++) {
      if (KNOWN[i].equals(name)) {
        return i;
      }
    }
    return -1;
  }

  private static void require(boolean plain) throws NotPlain {
    if (!plain) {
      throw NotPlain.LINE;
    }
  }

  private static @Nullable String text(JsonParser p, JsonToken v) throws IOException, NotPlain {
    if (v == JsonToken.VALUE_NULL) {
      return null;
    }
    require(v == JsonToken.VALUE_STRING);
    return p.getText();
  }

  private static @Nullable Double number(JsonParser p, JsonToken v) throws IOException, NotPlain {
    if (v == JsonToken.VALUE_NULL) {
      return null;
    }
    if (v == JsonToken.VALUE_NUMBER_INT) {
      return (double) p.getLongValue(); // as the tree's asDouble of an int or a long
    }
    require(v == JsonToken.VALUE_NUMBER_FLOAT);
    double d = p.getDoubleValue();
    require(Double.isFinite(d));
    return d;
  }

  private static @Nullable Long integer(JsonParser p, JsonToken v) throws IOException, NotPlain {
    if (v == JsonToken.VALUE_NULL) {
      return null;
    }
    require(v == JsonToken.VALUE_NUMBER_INT);
    return p.getLongValue(); // a number beyond a long throws: not plain
  }

  private static JsonNode timestamp(JsonParser p, JsonToken v) throws IOException, NotPlain {
    if (v == JsonToken.VALUE_STRING) {
      return TextNode.valueOf(p.getText());
    }
    require(v == JsonToken.VALUE_NUMBER_INT);
    return LongNode.valueOf(p.getLongValue());
  }
}
