package dev.medallion.users;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.medallion.core.DeadLetter;
import dev.medallion.core.EventTimestamps;
import dev.medallion.core.Failsafe;
import dev.medallion.core.InvalidRecordException;
import dev.medallion.core.Json;
import dev.medallion.core.Rejections;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.LocalDate;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.coders.ByteArrayCoder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.state.CombiningState;
import org.apache.beam.sdk.state.StateSpec;
import org.apache.beam.sdk.state.StateSpecs;
import org.apache.beam.sdk.state.TimeDomain;
import org.apache.beam.sdk.state.Timer;
import org.apache.beam.sdk.state.TimerSpec;
import org.apache.beam.sdk.state.TimerSpecs;
import org.apache.beam.sdk.transforms.Combine;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.PCollectionView;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.TupleTagList;
import org.joda.time.Instant;

/**
 * Gold for user events: one {@link UserFeatures} row per user as of a snapshot date (a singleton
 * side input {@code YYYY-MM-DD}); only events on or before that date (UTC) count, so a snapshot can
 * be recomputed later and come out the same. {@code last_event_type} is the type of the user's
 * latest event (Silver holds one event per user and instant, so there is no tie).
 *
 * <p>Events are added up into {@link UserTotals} per bucket of users with a {@code Combine}, which
 * runners lift before the shuffle: what is shuffled and held is a few numbers per user, never the
 * events. A runner that keeps every partial sum of a {@code Combine} until its input ends (the
 * DirectRunner: one per bucket and bundle, which adds up to about one per event) is given {@link
 * #addingUpInState}: each bundle's sums per bucket, kept in state encoded and merged every few
 * bundles and at the end ({@link UserTotals.MergedParts}).
 */
public class ComputeUserFeatures extends PTransform<PCollection<UserEvent>, PCollectionTuple> {
  public static final TupleTag<UserFeatures> FEATURES = new TupleTag<>() {};

  /** The events of a user whose row could not be computed ({@code unexpected_error}, Failsafe). */
  public static final TupleTag<DeadLetter> DEAD_LETTERS = DeadLetter.TAG;

  private final PCollectionView<String> asOfDate;
  private final boolean inState;

  private ComputeUserFeatures(PCollectionView<String> asOfDate, boolean inState) {
    this.asOfDate = asOfDate;
    this.inState = inState;
  }

  public static ComputeUserFeatures asOf(PCollectionView<String> asOfDate) {
    return new ComputeUserFeatures(asOfDate, false);
  }

  /**
   * Adds up each bucket's events in state ({@link AddUpInState}) rather than with a {@code
   * Combine}: the same rows, and what is held is one sum per bucket, however the runner bundles the
   * events.
   */
  public ComputeUserFeatures addingUpInState() {
    return new ComputeUserFeatures(asOfDate, true);
  }

  @Override
  public PCollectionTuple expand(PCollection<UserEvent> events) {
    PCollection<KV<Integer, UserEvent>> keyed =
        events
            .apply(
                "OnOrBeforeSnapshot", ParDo.of(new OnOrBeforeFn(asOfDate)).withSideInputs(asOfDate))
            .setCoder(KvCoder.of(VarIntCoder.of(), events.getCoder()));
    PTransform<
            PCollection<KV<Integer, UserEvent>>, PCollection<KV<Integer, Map<String, UserTotals>>>>
        addUp = inState ? new AddUpInState() : Combine.perKey(new UserTotals.PerUser());
    return keyed
        .apply("TotalsPerUserBucket", addUp)
        .setCoder(KvCoder.of(VarIntCoder.of(), UserTotals.CODER))
        .apply(
            "ToFeatures",
            ParDo.of(new FeaturesFn(asOfDate))
                .withSideInputs(asOfDate)
                .withOutputTags(FEATURES, TupleTagList.of(DEAD_LETTERS)));
  }

  private static final org.apache.beam.sdk.metrics.Counter ROWS =
      org.apache.beam.sdk.metrics.Metrics.counter(
          dev.medallion.core.Rejections.NAMESPACE, "gold_user_features_rows");

  /**
   * Each bucket's totals, added up within each bundle ({@link AddUpPerBundleFn}), then merged into
   * combining state per bucket ({@link MergeInStateFn}), which is given out once the input ends:
   * what waits for the end is one sum per bucket, however many bundles the events come in.
   */
  static final class AddUpInState
      extends PTransform<
          PCollection<KV<Integer, UserEvent>>, PCollection<KV<Integer, Map<String, UserTotals>>>> {
    @Override
    public PCollection<KV<Integer, Map<String, UserTotals>>> expand(
        PCollection<KV<Integer, UserEvent>> events) {
      return events
          .apply("PerBundle", ParDo.of(new AddUpPerBundleFn()))
          .setCoder(KvCoder.of(VarIntCoder.of(), ByteArrayCoder.of()))
          .apply("MergeInState", ParDo.of(new MergeInStateFn()));
    }
  }

  /**
   * The totals of each bucket (and window) of the bundle's events, given out encoded as it
   * finishes.
   */
  static final class AddUpPerBundleFn extends DoFn<KV<Integer, UserEvent>, KV<Integer, byte[]>> {
    private final UserTotals.PerUser perUser = new UserTotals.PerUser();
    private transient Map<BoundedWindow, Map<Integer, Map<String, UserTotals>>> bundle;

    @StartBundle
    public void start() {
      bundle = new HashMap<>();
    }

    @ProcessElement
    public void process(@Element KV<Integer, UserEvent> event, BoundedWindow window) {
      Map<String, UserTotals> bucket =
          bundle
              .computeIfAbsent(window, w -> new HashMap<>())
              .computeIfAbsent(event.getKey(), k -> perUser.createAccumulator());
      perUser.addInput(bucket, event.getValue());
    }

    @FinishBundle
    public void finish(FinishBundleContext c) {
      bundle.forEach(
          (window, buckets) ->
              buckets.forEach(
                  (bucket, totals) ->
                      c.output(
                          KV.of(bucket, UserTotals.encode(totals)),
                          window.maxTimestamp(),
                          window)));
      bundle = null;
    }
  }

  /**
   * Merges a bucket's per-bundle totals in state ({@link UserTotals.MergedParts}: kept encoded);
   * gives them out when the window ends.
   */
  static final class MergeInStateFn
      extends DoFn<KV<Integer, byte[]>, KV<Integer, Map<String, UserTotals>>> {
    @StateId("totals")
    private final StateSpec<CombiningState<byte[], List<byte[]>, Map<String, UserTotals>>>
        totalsSpec = StateSpecs.combining(UserTotals.PARTS_CODER, new UserTotals.MergedParts());

    @TimerId("end")
    private final TimerSpec endSpec = TimerSpecs.timer(TimeDomain.EVENT_TIME);

    @ProcessElement
    public void process(
        @Element KV<Integer, byte[]> part,
        @StateId("totals") CombiningState<byte[], List<byte[]>, Map<String, UserTotals>> totals,
        @TimerId("end") Timer end,
        BoundedWindow window) {
      totals.add(part.getValue());
      end.set(window.maxTimestamp());
    }

    @OnTimer("end")
    public void giveOut(
        @Key Integer bucket,
        @StateId("totals") CombiningState<byte[], List<byte[]>, Map<String, UserTotals>> totals,
        OutputReceiver<KV<Integer, Map<String, UserTotals>>> out) {
      out.output(KV.of(bucket, totals.read()));
      totals.clear();
    }
  }

  /** The events on or before the snapshot date, keyed by their user's bucket. */
  static class OnOrBeforeFn extends DoFn<UserEvent, KV<Integer, UserEvent>> {
    private final PCollectionView<String> asOfDate;

    OnOrBeforeFn(PCollectionView<String> asOfDate) {
      this.asOfDate = asOfDate;
    }

    @ProcessElement
    public void process(
        @Element UserEvent e, ProcessContext c, OutputReceiver<KV<Integer, UserEvent>> out) {
      if (e.getEventDate().compareTo(c.sideInput(asOfDate)) <= 0) {
        out.output(KV.of(UserBuckets.of(e.getUserId(), UserBuckets.GOLD_COUNT), e));
      }
    }
  }

  /** Each user's row of a bucket, from the user's totals. */
  static class FeaturesFn extends DoFn<KV<Integer, Map<String, UserTotals>>, UserFeatures> {
    private final PCollectionView<String> asOfDate;

    FeaturesFn(PCollectionView<String> asOfDate) {
      this.asOfDate = asOfDate;
    }

    @ProcessElement
    public void process(
        @Element KV<Integer, Map<String, UserTotals>> bucket,
        ProcessContext c,
        MultiOutputReceiver out) {
      String asOf = c.sideInput(asOfDate);
      for (Map.Entry<String, UserTotals> user : bucket.getValue().entrySet()) {
        UserFeatures f;
        try {
          f = features(user.getKey(), user.getValue(), asOf);
        } catch (RuntimeException thrown) {
          quarantine(user.getKey(), user.getValue(), Failsafe.rejection(thrown), out);
          continue;
        }
        if (f != null) {
          ROWS.inc();
          out.get(FEATURES).output(f);
        }
      }
    }

    /**
     * A user whose row cannot be computed: one dead letter naming the user and the events that were
     * added up (the events themselves stay in Silver).
     */
    private static void quarantine(
        String userId, UserTotals t, InvalidRecordException e, MultiOutputReceiver out) {
      Rejections.count("gold_user", e.getReason());
      ObjectNode totals = Json.mapper().createObjectNode();
      totals.put("user_id", userId);
      totals.put("event_count", t.count);
      totals.put("first_event_timestamp", EventTimestamps.isoMillis(new Instant(t.firstMillis)));
      totals.put("last_event_timestamp", EventTimestamps.isoMillis(new Instant(t.lastMillis)));
      out.get(DEAD_LETTERS)
          .output(
              DeadLetter.of(
                  DeadLetter.GOLD,
                  e.getReason(),
                  e.getMessage(),
                  totals.toString(),
                  "user_id=" + userId,
                  "silver/user_events",
                  new Instant(t.lastMillis),
                  Instant.now()));
    }
  }

  /** The features of one user as of a date, or null when the user has no event by then. */
  public static UserFeatures features(String userId, Iterable<UserEvent> events, String asOf) {
    UserTotals t = new UserTotals();
    for (UserEvent e : events) {
      if (e.getEventDate().compareTo(asOf) <= 0) {
        t.add(e.getEventType(), e.getEventTimestamp().getMillis());
      }
    }
    return features(userId, t, asOf);
  }

  /** The features of a user from the totals of the user's events on or before {@code asOf}. */
  static UserFeatures features(String userId, UserTotals t, String asOf) {
    if (t.count == 0) {
      return null;
    }
    Instant lastTs = new Instant(t.lastMillis);
    long days =
        ChronoUnit.DAYS.between(
            LocalDate.parse(EventTimestamps.utcDate(lastTs)), LocalDate.parse(asOf));
    return UserFeatures.of(
        userId,
        lastTs,
        t.lastType,
        t.clicks,
        t.purchases,
        t.views,
        t.carts,
        t.count,
        new Instant(t.firstMillis),
        days,
        featureHash(userId, t.clicks, t.purchases, t.lastType, lastTs),
        asOf);
  }

  /** Lowercase hex SHA-256 of {@code user_id|click_count|purchase_count|last_event_type|ts}. */
  public static String featureHash(
      String userId, long clicks, long purchases, String lastType, Instant lastTs) {
    String text =
        userId
            + "|"
            + clicks
            + "|"
            + purchases
            + "|"
            + lastType
            + "|"
            + EventTimestamps.isoMillis(lastTs);
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      return HexFormat.of().formatHex(sha.digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }
}
