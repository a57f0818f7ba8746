package dev.medallion.users;

import dev.medallion.core.DeadLetter;
import dev.medallion.core.EventTimestamps;
import dev.medallion.core.Failsafe;
import dev.medallion.core.InvalidRecordException;
import dev.medallion.core.JsonFields;
import dev.medallion.core.Rejections;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.BigEndianLongCoder;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.CoderRegistry;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.transforms.Combine;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.View;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.PCollectionView;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.TupleTagList;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * Silver for user events, over the whole of Bronze: records whose key field ({@code user_id},
 * {@code event_type}, {@code event_timestamp}) is missing, null or unparseable go to {@link
 * #QUARANTINE} with the reason, and so does an event further ahead of its ingest than the transform
 * allows ({@code future_event_timestamp}, default {@link #MAX_AHEAD_OF_INGEST}); a non-key field of
 * the wrong type ({@code "price":"n/a"}) becomes null and is named in {@code invalid_fields}.
 * Events with the same {@code (user_id, event_timestamp)} instant, across all files and runs, are
 * one event: the first ingested copy (earliest run, then file name, then line number) is kept, so a
 * later file never displaces it; the others go to {@link #DUPLICATES} with reason {@code
 * duplicate}. The result depends only on Bronze's rows, so a rerun gives the same table.
 *
 * <p>It takes two passes over Bronze: {@link #decide()} (the quarantine, and which instants more
 * than one row holds: {@link RepeatedInstants}) and {@link #keep} (the rows again, once that is
 * known: {@link DropLaterCopies}, which looks closer at those instants only). Applied to one
 * PCollection, as here, the second pass waits for the first, so the runner holds the rows until
 * then; the batch job instead reads Bronze a second time after the decisions ({@link
 * UserFeaturesMedallion}), and holds nothing.
 */
public class CleanUserEvents extends PTransform<PCollection<UserEventBronze>, PCollectionTuple> {
  public static final TupleTag<UserEvent> EVENTS = DropLaterCopies.KEPT;
  public static final TupleTag<DeadLetter> QUARANTINE = new TupleTag<>() {};
  public static final TupleTag<DeadLetter> DUPLICATES = DropLaterCopies.LATER_COPIES;

  static final String STAGE = "silver_user";

  private final Duration maxAheadOfIngest;

  private CleanUserEvents(Duration maxAheadOfIngest) {
    this.maxAheadOfIngest = maxAheadOfIngest;
  }

  public static CleanUserEvents create() {
    return new CleanUserEvents(MAX_AHEAD_OF_INGEST);
  }

  /** Quarantines events whose time is more than {@code max} after they were ingested. */
  public CleanUserEvents withMaxAheadOfIngest(Duration max) {
    return new CleanUserEvents(max);
  }

  /** The first pass: the quarantine and the decisions. */
  public Decide decide() {
    return new Decide(maxAheadOfIngest);
  }

  /** The second pass: Silver's events and the later copies, given the repeated instants. */
  public DropLaterCopies keep(PCollectionView<RepeatedInstants> repeated) {
    return new DropLaterCopies(STAGE, maxAheadOfIngest, repeated);
  }

  @Override
  public PCollectionTuple expand(PCollection<UserEventBronze> bronze) {
    PCollectionTuple decided = bronze.apply("Decide", decide());
    PCollectionView<RepeatedInstants> repeated =
        decided.get(Decide.REPEATED_INSTANTS).apply("RepeatedInstantsView", View.asSingleton());
    PCollectionTuple kept = bronze.apply("Keep", keep(repeated));
    return PCollectionTuple.of(EVENTS, kept.get(EVENTS))
        .and(QUARANTINE, decided.get(QUARANTINE))
        .and(DUPLICATES, kept.get(DUPLICATES));
  }

  /**
   * Silver's first pass over Bronze: rows that fail the key checks go to {@link #QUARANTINE}, the
   * instants that more than one of the others hold to {@link #REPEATED_INSTANTS} (one element), and
   * the date of the latest valid event to {@link #LATEST_DATE} (one element; "" for none), which is
   * Silver's latest date, since dedupe keeps one copy of every instant.
   */
  public static class Decide extends PTransform<PCollection<UserEventBronze>, PCollectionTuple> {
    public static final TupleTag<DeadLetter> QUARANTINE = CleanUserEvents.QUARANTINE;
    public static final TupleTag<RepeatedInstants> REPEATED_INSTANTS = new TupleTag<>() {};
    public static final TupleTag<String> LATEST_DATE = new TupleTag<>() {};

    /** A valid event's instant: its hash ({@link RepeatedInstants#hash}) and its milliseconds. */
    private static final TupleTag<KV<Long, Long>> INSTANTS = new TupleTag<>() {};

    private final Duration maxAheadOfIngest;

    Decide(Duration maxAheadOfIngest) {
      this.maxAheadOfIngest = maxAheadOfIngest;
    }

    @Override
    public PCollectionTuple expand(PCollection<UserEventBronze> bronze) {
      PCollectionTuple checked =
          bronze.apply(
              "ValidateKeys",
              ParDo.of(new ValidateFn(maxAheadOfIngest))
                  .withOutputTags(INSTANTS, TupleTagList.of(QUARANTINE)));
      PCollection<KV<Long, Long>> instants =
          checked.get(INSTANTS).setCoder(KvCoder.of(BigEndianLongCoder.of(), VarLongCoder.of()));
      // One pass over the instants for both decisions (reading them twice cost the Spark runner a
      // second read of the step's kept output: 1.4 s at 2M events).
      PCollectionTuple decisions =
          instants
              .apply("FindRepeatedInstantsAndLatest", Combine.globally(new FindDecisions()))
              .apply(
                  "SplitDecisions",
                  ParDo.of(new SplitDecisionsFn())
                      .withOutputTags(REPEATED_INSTANTS, TupleTagList.of(LATEST_DATE)));
      PCollection<RepeatedInstants> repeated =
          decisions.get(REPEATED_INSTANTS).setCoder(new RepeatedInstants.RepeatedInstantsCoder());
      PCollection<String> latestDate = decisions.get(LATEST_DATE).setCoder(StringUtf8Coder.of());
      return PCollectionTuple.of(QUARANTINE, checked.get(QUARANTINE))
          .and(REPEATED_INSTANTS, repeated)
          .and(LATEST_DATE, latestDate);
    }
  }

  /**
   * Of the valid events' instants ({@code hash, millis}): the repeated ones ({@link
   * RepeatedInstants.Find}) and the latest milliseconds ({@link Long#MIN_VALUE} for none).
   */
  static final class FindDecisions
      extends Combine.CombineFn<KV<Long, Long>, Decisions, KV<RepeatedInstants, Long>> {
    private final RepeatedInstants.Find find = new RepeatedInstants.Find();

    @Override
    public Decisions createAccumulator() {
      return new Decisions(find.createAccumulator(), Long.MIN_VALUE);
    }

    @Override
    public Decisions addInput(Decisions acc, KV<Long, Long> instant) {
      find.addInput(acc.hashes, instant.getKey());
      acc.latest = Math.max(acc.latest, instant.getValue());
      return acc;
    }

    @Override
    public Decisions mergeAccumulators(Iterable<Decisions> accumulators) {
      List<RepeatedInstants.Hashes> hashes = new ArrayList<>();
      long latest = Long.MIN_VALUE;
      for (Decisions a : accumulators) {
        hashes.add(a.hashes);
        latest = Math.max(latest, a.latest);
      }
      return new Decisions(find.mergeAccumulators(hashes), latest);
    }

    @Override
    public KV<RepeatedInstants, Long> extractOutput(Decisions acc) {
      return KV.of(find.extractOutput(acc.hashes), acc.latest);
    }

    @Override
    public Coder<Decisions> getAccumulatorCoder(
        CoderRegistry registry, Coder<KV<Long, Long>> inputCoder) {
      return new DecisionsCoder();
    }

    @Override
    public Coder<KV<RepeatedInstants, Long>> getDefaultOutputCoder(
        CoderRegistry registry, Coder<KV<Long, Long>> inputCoder) {
      return KvCoder.of(new RepeatedInstants.RepeatedInstantsCoder(), VarLongCoder.of());
    }
  }

  /** {@link FindDecisions}' accumulator: the hashes seen, and the latest milliseconds. */
  static final class Decisions {
    private final RepeatedInstants.Hashes hashes;
    private long latest;

    Decisions(RepeatedInstants.Hashes hashes, long latest) {
      this.hashes = hashes;
      this.latest = latest;
    }
  }

  static final class DecisionsCoder extends AtomicCoder<Decisions> {
    private static final Coder<RepeatedInstants.Hashes> HASHES = new RepeatedInstants.HashesCoder();

    @Override
    public void encode(Decisions d, OutputStream out) throws IOException {
      HASHES.encode(d.hashes, out);
      VarLongCoder.of().encode(d.latest, out);
    }

    @Override
    public Decisions decode(InputStream in) throws IOException {
      return new Decisions(HASHES.decode(in), VarLongCoder.of().decode(in));
    }
  }

  /** The two decisions to their outputs: the latest as its date, "" for none. */
  static class SplitDecisionsFn extends DoFn<KV<RepeatedInstants, Long>, RepeatedInstants> {
    @ProcessElement
    public void process(@Element KV<RepeatedInstants, Long> both, MultiOutputReceiver out) {
      out.get(Decide.REPEATED_INSTANTS).output(both.getKey());
      long latest = both.getValue();
      out.get(Decide.LATEST_DATE)
          .output(latest == Long.MIN_VALUE ? "" : EventTimestamps.utcDate(new Instant(latest)));
    }
  }

  /** A valid row's instant, or the row to the quarantine with its reason. */
  static class ValidateFn extends DoFn<UserEventBronze, KV<Long, Long>> {
    private final Duration maxAheadOfIngest;
    private final Rejections.Examples rejections = new Rejections.Examples();

    ValidateFn(Duration maxAheadOfIngest) {
      this.maxAheadOfIngest = maxAheadOfIngest;
    }

    @ProcessElement
    public void process(@Element UserEventBronze b, MultiOutputReceiver out) {
      UserEvent event;
      try {
        event = toUserEvent(b, maxAheadOfIngest);
      } catch (RuntimeException thrown) {
        InvalidRecordException e = Failsafe.rejection(thrown);
        DeadLetter letter =
            DeadLetter.of(
                DeadLetter.SILVER,
                e.getReason(),
                e.getMessage(),
                b.getRawLine(),
                b.getSource(),
                b.getSourceFile(),
                b.getEventTimestamp(),
                b.getIngestTs());
        rejections.count(STAGE, letter);
        out.get(QUARANTINE).output(letter);
        return;
      }
      long millis = event.getEventTimestamp().getMillis();
      out.get(Decide.INSTANTS)
          .output(KV.of(RepeatedInstants.hash(event.getUserId(), millis), millis));
    }

    @FinishBundle
    public void finishBundle() {
      rejections.flush();
    }
  }

  /** The Silver rule for one Bronze row, from its typed columns. */
  public static UserEvent toUserEvent(UserEventBronze b) {
    return toUserEvent(b, MAX_AHEAD_OF_INGEST);
  }

  /** The Silver rule, with how far an event may be ahead of its ingest. */
  public static UserEvent toUserEvent(UserEventBronze b, Duration maxAheadOfIngest) {
    String errors = b.getTypeErrors();
    String userId = JsonFields.requireText(b.getUserId(), "user_id", errors);
    String eventType = JsonFields.requireText(b.getEventType(), "event_type", errors);
    Instant ts = b.getEventTimestamp();
    if (ts == null) {
      String wrong = JsonFields.wrongTypeOf(errors, "event_timestamp");
      throw wrong == null
          ? new InvalidRecordException(
              "missing_event_timestamp", "event_timestamp is missing or null")
          : new InvalidRecordException(
              "invalid_event_timestamp",
              "event_timestamp (a "
                  + wrong
                  + ") is not an ISO-8601 instant with Z or an offset,"
                  + " nor epoch milliseconds as a JSON integer");
    }
    if (ts.isAfter(b.getIngestTs().plus(maxAheadOfIngest))) {
      throw new InvalidRecordException(
          "future_event_timestamp",
          "event_timestamp "
              + ts
              + " is more than "
              + maxAheadOfIngest.getStandardDays()
              + " day(s) after the event was ingested ("
              + b.getIngestTs()
              + "): a clock error");
    }
    List<String> invalid = new ArrayList<>();
    for (String field : NON_KEY_FIELDS) {
      if (JsonFields.wrongTypeOf(errors, field) != null) {
        invalid.add(field);
      }
    }
    return UserEvent.builder()
        .setEventId(b.getEventId())
        .setUserId(userId)
        .setEventType(eventType)
        .setEventTimestamp(ts)
        .setEventDate(EventTimestamps.utcDate(ts))
        .setSessionId(b.getSessionId())
        .setProductId(b.getProductId())
        .setPrice(b.getPrice())
        .setDevice(b.getDevice())
        .setCountry(b.getCountry())
        .setInvalidFields(invalid.isEmpty() ? null : String.join(",", invalid))
        .setRawLine(b.getRawLine())
        .setSource(b.getSource())
        .setSourceFile(b.getSourceFile())
        .setLineNumber(b.getLineNumber())
        .setIngestTs(b.getIngestTs())
        .setExtra(b.getExtra())
        .build();
  }

  /**
   * By default, how far an event's time may be ahead of the moment Bronze ingested it. Later is a
   * clock error ({@code 9999-12-31}, microseconds read as milliseconds), quarantined as {@code
   * future_event_timestamp} rather than moving the Gold snapshot date to the far future.
   */
  public static final Duration MAX_AHEAD_OF_INGEST = Duration.standardDays(30);

  /** The fields that become null and flagged, not quarantined, when of the wrong type. */
  static final List<String> NON_KEY_FIELDS =
      List.of("event_id", "session_id", "product_id", "price", "device", "country");
}
