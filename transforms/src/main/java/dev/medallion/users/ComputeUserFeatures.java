package dev.medallion.users;

import dev.medallion.core.DeadLetter;
import dev.medallion.core.EventTimestamps;
import dev.medallion.core.Failsafe;
import dev.medallion.core.InvalidRecordException;
import dev.medallion.core.Rejections;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.LocalDate;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.WithKeys;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.PCollectionView;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.TupleTagList;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Instant;

/**
 * Gold for user events: one {@link UserFeatures} row per user as of a snapshot date (a singleton
 * side input {@code YYYY-MM-DD}); only events on or before that date (UTC) count, so a snapshot can
 * be recomputed later and come out the same. {@code last_event_type} is the type of the user's
 * latest event (Silver holds one event per user and instant, so there is no tie).
 */
public class ComputeUserFeatures extends PTransform<PCollection<UserEvent>, PCollectionTuple> {
  public static final TupleTag<UserFeatures> FEATURES = new TupleTag<>() {};

  /** The events of a user whose row could not be computed ({@code unexpected_error}, Failsafe). */
  public static final TupleTag<DeadLetter> DEAD_LETTERS = DeadLetter.TAG;

  private final PCollectionView<String> asOfDate;

  private ComputeUserFeatures(PCollectionView<String> asOfDate) {
    this.asOfDate = asOfDate;
  }

  public static ComputeUserFeatures asOf(PCollectionView<String> asOfDate) {
    return new ComputeUserFeatures(asOfDate);
  }

  @Override
  public PCollectionTuple expand(PCollection<UserEvent> events) {
    return events
        .apply(
            "KeyByUserBucket",
            WithKeys.of((UserEvent e) -> UserBuckets.of(e.getUserId()))
                .withKeyType(TypeDescriptors.integers()))
        .apply("GroupByUserBucket", GroupByKey.create())
        .apply(
            "ToFeatures",
            ParDo.of(new FeaturesFn(asOfDate))
                .withSideInputs(asOfDate)
                .withOutputTags(FEATURES, TupleTagList.of(DEAD_LETTERS)));
  }

  private static final org.apache.beam.sdk.metrics.Counter ROWS =
      org.apache.beam.sdk.metrics.Metrics.counter(
          dev.medallion.core.Rejections.NAMESPACE, "gold_user_features_rows");

  static class FeaturesFn extends DoFn<KV<Integer, Iterable<UserEvent>>, UserFeatures> {
    private final PCollectionView<String> asOfDate;

    FeaturesFn(PCollectionView<String> asOfDate) {
      this.asOfDate = asOfDate;
    }

    @ProcessElement
    public void process(
        @Element KV<Integer, Iterable<UserEvent>> bucket,
        ProcessContext c,
        MultiOutputReceiver out) {
      String asOf = c.sideInput(asOfDate);
      Map<String, List<UserEvent>> users = new HashMap<>();
      for (UserEvent e : bucket.getValue()) {
        users.computeIfAbsent(e.getUserId(), k -> new ArrayList<>()).add(e);
      }
      for (Map.Entry<String, List<UserEvent>> user : users.entrySet()) {
        UserFeatures f;
        try {
          f = features(user.getKey(), user.getValue(), asOf);
        } catch (RuntimeException thrown) {
          quarantine(user.getValue(), Failsafe.rejection(thrown), out);
          continue;
        }
        if (f != null) {
          ROWS.inc();
          out.get(FEATURES).output(f);
        }
      }
    }

    private static void quarantine(
        List<UserEvent> events, InvalidRecordException e, MultiOutputReceiver out) {
      for (UserEvent event : events) {
        Rejections.count("gold_user", e.getReason());
        out.get(DEAD_LETTERS)
            .output(
                DeadLetter.of(
                    DeadLetter.GOLD,
                    e.getReason(),
                    e.getMessage(),
                    event.getRawLine(),
                    event.getSource(),
                    event.getSourceFile(),
                    event.getEventTimestamp(),
                    Instant.now()));
      }
    }
  }

  /** The features of one user as of a date, or null when the user has no event by then. */
  public static UserFeatures features(String userId, Iterable<UserEvent> events, String asOf) {
    long clicks = 0;
    long purchases = 0;
    long views = 0;
    long carts = 0;
    long count = 0;
    UserEvent first = null;
    UserEvent last = null;
    for (UserEvent e : events) {
      if (e.getEventDate().compareTo(asOf) > 0) {
        continue;
      }
      count++;
      switch (e.getEventType()) {
        case "click" -> clicks++;
        case "purchase" -> purchases++;
        case "view" -> views++;
        case "add_to_cart" -> carts++;
        default -> {}
      }
      if (first == null || e.getEventTimestamp().isBefore(first.getEventTimestamp())) {
        first = e;
      }
      if (last == null || e.getEventTimestamp().isAfter(last.getEventTimestamp())) {
        last = e;
      }
    }
    if (last == null) {
      return null;
    }
    Instant lastTs = last.getEventTimestamp();
    long days =
        ChronoUnit.DAYS.between(
            LocalDate.parse(EventTimestamps.utcDate(lastTs)), LocalDate.parse(asOf));
    return UserFeatures.of(
        userId,
        lastTs,
        last.getEventType(),
        clicks,
        purchases,
        views,
        carts,
        count,
        first.getEventTimestamp(),
        days,
        featureHash(userId, clicks, purchases, last.getEventType(), lastTs),
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
