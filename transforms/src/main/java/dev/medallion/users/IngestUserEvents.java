package dev.medallion.users;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.medallion.core.DeadLetter;
import dev.medallion.core.EventTimestamps;
import dev.medallion.core.Failsafe;
import dev.medallion.core.FieldMapping;
import dev.medallion.core.InvalidRecordException;
import dev.medallion.core.JsonFields;
import dev.medallion.core.PlainObjects;
import dev.medallion.core.PlainObjects.Kind;
import dev.medallion.core.RawEvent;
import dev.medallion.core.Rejections;
import java.util.List;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.TupleTagList;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * Bronze for user events: every line that is a JSON object becomes a {@link UserEventBronze}, kept
 * verbatim with its file, line and ingest time, and typed {@code user_id}, {@code event_type} and
 * {@code event_timestamp} where they are valid (null where not: Silver decides). Any other line is
 * a dead letter: {@code invalid_utf8} (its bytes are not UTF-8), {@code empty_line}, {@code
 * not_json}, {@code not_object}, {@code trailing_data} (more than one JSON value on the line).
 */
public class IngestUserEvents extends PTransform<PCollection<RawEvent>, PCollectionTuple> {
  public static final TupleTag<UserEventBronze> EVENTS = new TupleTag<>() {};
  public static final TupleTag<DeadLetter> DEAD_LETTERS = DeadLetter.TAG;

  private final Instant ingestTs;
  private final FieldMapping mapping;

  private IngestUserEvents(Instant ingestTs, FieldMapping mapping) {
    this.ingestTs = ingestTs;
    this.mapping = mapping;
  }

  /**
   * @param ingestTs the ingest time of every row of this run: one instant per run, so that "the
   *     first ingested copy" of a duplicate is well defined
   */
  public static IngestUserEvents at(Instant ingestTs) {
    return new IngestUserEvents(ingestTs, FieldMapping.NONE);
  }

  /** Maps each record's fields ({@link FieldMapping}) before the rules read them. */
  public IngestUserEvents withMapping(FieldMapping mapping) {
    return new IngestUserEvents(ingestTs, mapping);
  }

  @Override
  public PCollectionTuple expand(PCollection<RawEvent> lines) {
    PCollectionTuple parsed =
        lines.apply(
            "ParseUserEvent",
            ParDo.of(new ParseUserEventFn(ingestTs, mapping))
                .withOutputTags(EVENTS, TupleTagList.of(DEAD_LETTERS)));
    parsed.get(EVENTS).setCoder(UserEventCoders.bronze());
    return parsed;
  }

  /**
   * The Bronze rows of lines read a second time ({@link dev.medallion.core.Replay}): the rows
   * {@link #at} gives for the same lines and ingest time, without its dead letters and counters
   * (the first read has them).
   */
  public static PTransform<PCollection<RawEvent>, PCollection<UserEventBronze>> again(
      Instant ingestTs, FieldMapping mapping) {
    return new PTransform<>() {
      @Override
      public PCollection<UserEventBronze> expand(PCollection<RawEvent> lines) {
        return lines
            .apply("ParseUserEventAgain", ParDo.of(new ParseAgainFn(ingestTs, mapping)))
            .setCoder(UserEventCoders.bronze());
      }
    };
  }

  static class ParseAgainFn extends DoFn<RawEvent, UserEventBronze> {
    private final Instant now;
    private final FieldMapping mapping;

    ParseAgainFn(Instant ingestTs, FieldMapping mapping) {
      this.now = ingestTs;
      this.mapping = mapping;
    }

    @ProcessElement
    public void process(@Element RawEvent raw, OutputReceiver<UserEventBronze> out) {
      UserEventBronze event;
      try {
        event = parse(raw, now, mapping);
      } catch (RuntimeException rejected) {
        return; // the first read dead-lettered and counted it
      }
      out.output(event);
    }
  }

  static class ParseUserEventFn extends DoFn<RawEvent, UserEventBronze> {
    private final Rejections.Accepted accepted = new Rejections.Accepted(STAGE);
    private final Rejections.Examples rejections = new Rejections.Examples();

    private final Instant now;
    private final FieldMapping mapping;

    ParseUserEventFn(Instant ingestTs, FieldMapping mapping) {
      this.now = ingestTs;
      this.mapping = mapping;
    }

    @ProcessElement
    public void process(@Element RawEvent raw, MultiOutputReceiver out) {
      UserEventBronze event;
      try {
        event = parse(raw, now, mapping);
      } catch (RuntimeException thrown) {
        InvalidRecordException e = Failsafe.rejection(thrown);
        DeadLetter letter = DeadLetter.rejectedLine(DeadLetter.BRONZE, e, raw, now);
        rejections.count(STAGE, letter);
        out.get(DEAD_LETTERS).output(letter);
        return;
      }
      accepted.add();
      out.get(EVENTS).output(event);
    }

    @FinishBundle
    public void finishBundle() {
      accepted.flush();
      rejections.flush();
    }
  }

  static final String STAGE = "bronze_user";

  /**
   * The Bronze rule for one user-event line.
   *
   * @throws InvalidRecordException with reason {@code invalid_utf8}, {@code empty_line}, {@code
   *     not_json}, {@code not_object} or {@code trailing_data}
   */
  public static UserEventBronze parse(RawEvent raw, Instant ingestTs) {
    return parse(raw, ingestTs, FieldMapping.NONE);
  }

  /** {@link #parse(RawEvent, Instant)} of the record's fields as {@code mapping} maps them. */
  public static UserEventBronze parse(RawEvent raw, Instant ingestTs, FieldMapping mapping) {
    if (mapping.isEmpty()) {
      UserEventBronze plain = readPlain(raw, ingestTs);
      if (plain != null) {
        return plain;
      }
    }
    return parseTree(raw, ingestTs, mapping);
  }

  /** The rule through the line's JSON tree: every line that is not plain ({@link #readPlain}). */
  static UserEventBronze parseTree(RawEvent raw, Instant ingestTs, FieldMapping mapping) {
    ObjectNode json = mapping.apply(raw.jsonObject());
    JsonFields fields = new JsonFields(json);
    return UserEventBronze.of(fields, timestampOrNote(json, fields), raw, ingestTs);
  }

  /** The record's fields and their kinds, for {@link #readPlain}, in {@code Fields}' order. */
  private static final PlainObjects.Fields PLAIN_FIELDS =
      PlainObjects.Fields.of(
          List.of(
              "user_id",
              "event_type",
              "event_id",
              "session_id",
              "product_id",
              "price",
              "device",
              "country",
              "event_timestamp"),
          List.of(
              Kind.TEXT,
              Kind.TEXT,
              Kind.TEXT,
              Kind.TEXT,
              Kind.TEXT,
              Kind.NUMBER,
              Kind.TEXT,
              Kind.TEXT,
              Kind.TIMESTAMP));

  private static final int USER_ID = 0;
  private static final int EVENT_TYPE = 1;
  private static final int EVENT_ID = 2;
  private static final int SESSION_ID = 3;
  private static final int PRODUCT_ID = 4;
  private static final int PRICE = 5;
  private static final int DEVICE = 6;
  private static final int COUNTRY = 7;
  private static final int EVENT_TIMESTAMP = 8;

  /**
   * The rule for a plain line ({@link PlainObjects}) whose {@code event_timestamp}, if any, parses:
   * in one pass of the streaming parser, the row the tree gives; null for any other line, which
   * {@link #parseTree} reads ({@code PlainUserLinesTest} holds the two to the same row).
   */
  static @Nullable UserEventBronze readPlain(RawEvent raw, Instant ingestTs) {
    PlainObjects.Plain plain = PlainObjects.read(raw, PLAIN_FIELDS);
    if (plain == null) {
      return null;
    }
    Object[] v = plain.values();
    Instant at = null;
    if (v[EVENT_TIMESTAMP] != null) {
      try {
        at = EventTimestamps.parse((JsonNode) v[EVENT_TIMESTAMP], "event_timestamp");
      } catch (InvalidRecordException invalid) {
        return null; // a type error, which the tree notes
      }
    }
    UserEventBronze.Fields fields =
        new UserEventBronze.Fields(
            (String) v[USER_ID],
            (String) v[EVENT_TYPE],
            (String) v[EVENT_ID],
            (String) v[SESSION_ID],
            (String) v[PRODUCT_ID],
            (Double) v[PRICE],
            (String) v[DEVICE],
            (String) v[COUNTRY],
            null,
            plain.extra());
    return UserEventBronze.of(fields, at, raw, ingestTs);
  }

  /** The parsed {@code event_timestamp}; null when absent, or when invalid (then noted). */
  private static @Nullable Instant timestampOrNote(ObjectNode json, JsonFields fields) {
    JsonNode v = json.get("event_timestamp");
    if (v == null || v.isNull()) {
      return null;
    }
    try {
      return EventTimestamps.parse(v, "event_timestamp");
    } catch (InvalidRecordException e) {
      fields.noteWrong("event_timestamp", v);
      return null;
    }
  }
}
