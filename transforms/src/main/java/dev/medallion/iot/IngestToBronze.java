package dev.medallion.iot;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.medallion.core.DeadLetter;
import dev.medallion.core.EventTimestamps;
import dev.medallion.core.Failsafe;
import dev.medallion.core.FieldMapping;
import dev.medallion.core.InvalidRecordException;
import dev.medallion.core.Json;
import dev.medallion.core.JsonFields;
import dev.medallion.core.RawEvent;
import dev.medallion.core.Rejections;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.TupleTagList;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * Bronze: turns raw lines into append-only Bronze rows. A plain line is parsed once, in one pass of
 * a streaming parser ({@link PlainLines}); any other line, and every line read with a field
 * mapping, goes through the line's JSON tree, whose rule names a rejection's reason and a field's
 * type error. A line that is a JSON object with a usable {@code device_id} and {@code ts} and the
 * shape of a sensor reading ({@code sensor_type}) or a heartbeat ({@code battery_pct}, {@code
 * rssi_dbm} or {@code status}) becomes a {@link BronzeEvent} keeping the line verbatim and stamped
 * with its event time; any other line (including one whose bytes are not valid UTF-8) goes to
 * {@link #DEAD_LETTERS} with its reason. Nothing else is checked here: the fields' values are
 * Silver's business.
 */
public class IngestToBronze extends PTransform<PCollection<RawEvent>, PCollectionTuple> {
  public static final TupleTag<BronzeEvent> EVENTS = new TupleTag<>() {};
  public static final TupleTag<DeadLetter> DEAD_LETTERS = DeadLetter.TAG;

  private final FieldMapping mapping;

  private IngestToBronze(FieldMapping mapping) {
    this.mapping = mapping;
  }

  public static IngestToBronze create() {
    return new IngestToBronze(FieldMapping.NONE);
  }

  /** Maps each record's fields ({@link FieldMapping}) before the rules read them. */
  public IngestToBronze withMapping(FieldMapping mapping) {
    return new IngestToBronze(mapping);
  }

  @Override
  public PCollectionTuple expand(PCollection<RawEvent> raw) {
    PCollectionTuple parsed =
        raw.apply(
            "ParseRawEvent",
            ParDo.of(new ParseRawEventFn(mapping))
                .withOutputTags(EVENTS, TupleTagList.of(DEAD_LETTERS)));
    parsed.get(EVENTS).setCoder(IotRecordCoders.BRONZE);
    return parsed;
  }

  /** Classifies one raw line; {@link #classify} is the whole rule, for tests and tools. */
  static class ParseRawEventFn extends DoFn<RawEvent, BronzeEvent> {
    private final Rejections.Accepted accepted = new Rejections.Accepted(DeadLetter.BRONZE);
    private final Rejections.Examples rejections = new Rejections.Examples();
    private final FieldMapping mapping;

    ParseRawEventFn(FieldMapping mapping) {
      this.mapping = mapping;
    }

    @ProcessElement
    public void process(@Element RawEvent raw, MultiOutputReceiver out) {
      Instant now = Instant.now();
      BronzeEvent event;
      try {
        event = classify(raw, now, mapping);
      } catch (RuntimeException thrown) {
        InvalidRecordException e = Failsafe.rejection(thrown);
        DeadLetter letter = DeadLetter.rejectedLine(DeadLetter.BRONZE, e, raw, now);
        rejections.count(DeadLetter.BRONZE, letter);
        out.get(DEAD_LETTERS).output(letter);
        return;
      }
      accepted.add();
      out.get(EVENTS).outputWithTimestamp(event, event.getEventTs());
    }

    @FinishBundle
    public void finishBundle() {
      accepted.flush();
      rejections.flush();
    }

    /** Events re-stamp lines with their own event time, which may be earlier than the source's. */
    @Override
    public Duration getAllowedTimestampSkew() {
      return EventTimestamps.ANY_EARLIER;
    }
  }

  /**
   * The Bronze rule for one line.
   *
   * @throws InvalidRecordException with reason {@code invalid_utf8}, {@code empty_line}, {@code
   *     not_json}, {@code not_object}, {@code trailing_data}, {@code missing_device_id}, {@code
   *     wrong_type:device_id}, {@code key_mismatch}, {@code missing_ts}, {@code invalid_ts} or
   *     {@code unknown_event_type}
   */
  public static BronzeEvent classify(RawEvent raw, Instant ingestTs) {
    return classify(raw, ingestTs, FieldMapping.NONE);
  }

  /** {@link #classify(RawEvent, Instant)} of the record's fields as {@code mapping} maps them. */
  public static BronzeEvent classify(RawEvent raw, Instant ingestTs, FieldMapping mapping) {
    if (mapping.isEmpty()) {
      BronzeEvent plain = PlainLines.read(raw, ingestTs);
      if (plain != null) {
        return plain;
      }
    }
    return classifyTree(raw, ingestTs, mapping);
  }

  /** The rule through the line's JSON tree: every line that is not plain ({@link PlainLines}). */
  static BronzeEvent classifyTree(RawEvent raw, Instant ingestTs, FieldMapping mapping) {
    ObjectNode json = mapping.apply(raw.jsonObject());
    String deviceId = Json.requireText(json, "device_id");
    String key = raw.getSourceKey();
    if (key != null && !key.equals(deviceId)) {
      throw new InvalidRecordException(
          "key_mismatch",
          "the record's key \"" + key + "\" is not its device_id \"" + deviceId + "\"");
    }
    Instant ts = EventTimestamps.parse(json.get("ts"), "ts");
    return BronzeEvent.of(
        kindOf(json),
        deviceId,
        ts,
        raw.getPayload(),
        raw,
        ingestTs,
        BronzeEvent.Fields.of(new JsonFields(json)));
  }

  private static String kindOf(JsonNode json) {
    if (json.has("sensor_type")) {
      return "reading";
    }
    if (json.has("battery_pct") || json.has("rssi_dbm") || json.has("status")) {
      return "heartbeat";
    }
    throw new InvalidRecordException(
        "unknown_event_type",
        "neither a reading (sensor_type) nor a heartbeat (battery_pct, rssi_dbm, status)");
  }
}
