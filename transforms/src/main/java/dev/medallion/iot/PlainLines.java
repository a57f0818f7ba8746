package dev.medallion.iot;

import com.fasterxml.jackson.databind.JsonNode;
import dev.medallion.core.EventTimestamps;
import dev.medallion.core.PlainObjects;
import dev.medallion.core.PlainObjects.Kind;
import dev.medallion.core.RawEvent;
import java.util.List;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * Bronze's rule for a plain line, in one pass of Jackson's streaming parser instead of through a
 * tree ({@link PlainObjects}). A plain line is what nearly every line is: one flat JSON object,
 * each field once, its known fields of their JSON types (a number within a double's range, an
 * integer within a long's), a usable {@code device_id} and {@code ts} (and the record's key, if it
 * has one, equal to the {@code device_id}), the shape of a reading or a heartbeat, and any other
 * field a string, number, boolean or null. For such a line {@link #read} builds the row {@link
 * IngestToBronze#classify} builds from the tree, at about half the cost (the tree, its maps and the
 * parser's duplicate check were most of Bronze's parse).
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
  private static final int DEVICE_ID = 0;
  private static final int TS = 1;
  private static final int SENSOR_TYPE = 2;
  private static final int VALUE = 3;
  private static final int UNIT = 4;
  private static final int SEQ = 5;
  private static final int BATTERY_PCT = 6;
  private static final int RSSI_DBM = 7;
  private static final int STATUS = 8;

  private static final PlainObjects.Fields FIELDS =
      PlainObjects.Fields.of(
          List.of(
              "device_id",
              "ts",
              "sensor_type",
              "value",
              "unit",
              "seq",
              "battery_pct",
              "rssi_dbm",
              "status"),
          List.of(
              Kind.TEXT,
              Kind.TIMESTAMP,
              Kind.TEXT,
              Kind.NUMBER,
              Kind.TEXT,
              Kind.INTEGER,
              Kind.NUMBER,
              Kind.INTEGER,
              Kind.TEXT));

  private PlainLines() {}

  /** The line's Bronze row, or null when the line is not plain (see the class). */
  static @Nullable BronzeEvent read(RawEvent raw, Instant ingestTs) {
    PlainObjects.Plain plain = PlainObjects.read(raw, FIELDS);
    if (plain == null) {
      return null;
    }
    Object[] v = plain.values();
    String deviceId = (String) v[DEVICE_ID];
    String key = raw.getSourceKey();
    boolean reading = plain.has(SENSOR_TYPE);
    boolean heartbeat = plain.has(BATTERY_PCT) || plain.has(RSSI_DBM) || plain.has(STATUS);
    if (deviceId == null
        || deviceId.isBlank()
        || v[TS] == null
        || (key != null && !key.equals(deviceId))
        || !(reading || heartbeat)) {
      return null;
    }
    Instant ts;
    try {
      ts = EventTimestamps.parse((JsonNode) v[TS], "ts");
    } catch (RuntimeException invalid) {
      return null;
    }
    return BronzeEvent.of(
        reading ? "reading" : "heartbeat",
        deviceId,
        ts,
        raw.getPayload(),
        raw,
        ingestTs,
        new BronzeEvent.Fields(
            (String) v[SENSOR_TYPE],
            (Double) v[VALUE],
            (String) v[UNIT],
            (Long) v[SEQ],
            (Double) v[BATTERY_PCT],
            (Long) v[RSSI_DBM],
            (String) v[STATUS],
            null,
            plain.extra()));
  }
}
