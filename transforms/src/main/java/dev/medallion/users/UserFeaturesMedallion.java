package dev.medallion.users;

import dev.medallion.core.DeadLetter;
import dev.medallion.core.RawEvent;
import org.apache.beam.sdk.transforms.Combine;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.View;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.PCollectionView;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * The batch user-features medallion as one composite: this run's new raw lines → Bronze ({@link
 * IngestUserEvents}); then all of Bronze (the rows earlier runs ingested, plus this run's) → Silver
 * ({@link CleanUserEvents}: validate keys, quarantine, dedupe) → Gold ({@link ComputeUserFeatures}
 * as of a snapshot date). Silver and Gold depend only on Bronze's rows, so a rerun over the same
 * input gives the same tables.
 *
 * <p>Input: a tuple of {@link #NEW_LINES} and {@link #EARLIER_BRONZE}. Output: {@link #BRONZE}
 * (this run's rows only: Bronze is append-only), {@link #SILVER}, {@link #FEATURES} and every dead
 * letter under {@link #DEAD_LETTERS} (their {@code stage} says which layer, and {@code duplicate}
 * marks the copies dedupe removed). It writes nothing; the caller applies the sinks.
 */
public final class UserFeaturesMedallion extends PTransform<PCollectionTuple, PCollectionTuple> {
  public static final TupleTag<RawEvent> NEW_LINES = new TupleTag<>("new_lines") {};
  public static final TupleTag<UserEventBronze> EARLIER_BRONZE =
      new TupleTag<>("earlier_bronze") {};

  public static final TupleTag<UserEventBronze> BRONZE = IngestUserEvents.EVENTS;
  public static final TupleTag<UserEvent> SILVER = CleanUserEvents.EVENTS;
  public static final TupleTag<UserFeatures> FEATURES = ComputeUserFeatures.FEATURES;
  public static final TupleTag<DeadLetter> DEAD_LETTERS = DeadLetter.TAG;

  private final Instant ingestTs;
  private final String asOf;
  private final Duration maxAheadOfIngest;

  private UserFeaturesMedallion(Instant ingestTs, String asOf, Duration maxAheadOfIngest) {
    this.ingestTs = ingestTs;
    this.asOf = asOf;
    this.maxAheadOfIngest = maxAheadOfIngest;
  }

  /** New lines are stamped as ingested at {@code ingestTs}. */
  public static UserFeaturesMedallion ingestedAt(Instant ingestTs) {
    return new UserFeaturesMedallion(ingestTs, "", CleanUserEvents.MAX_AHEAD_OF_INGEST);
  }

  /** The snapshot date {@code YYYY-MM-DD}; empty: the latest event date in Silver. */
  public UserFeaturesMedallion asOf(String date) {
    return new UserFeaturesMedallion(ingestTs, date, maxAheadOfIngest);
  }

  /** See {@link CleanUserEvents#withMaxAheadOfIngest}. */
  public UserFeaturesMedallion withMaxAheadOfIngest(Duration max) {
    return new UserFeaturesMedallion(ingestTs, asOf, max);
  }

  @Override
  public PCollectionTuple expand(PCollectionTuple input) {
    PCollectionTuple bronze = input.get(NEW_LINES).apply("Bronze", IngestUserEvents.at(ingestTs));
    PCollectionTuple silver =
        PCollectionList.of(input.get(EARLIER_BRONZE))
            .and(bronze.get(BRONZE))
            .apply("AllBronze", Flatten.pCollections())
            .apply("Silver", CleanUserEvents.create().withMaxAheadOfIngest(maxAheadOfIngest));
    PCollection<UserEvent> events = silver.get(CleanUserEvents.EVENTS);
    PCollectionTuple gold = events.apply("Gold", ComputeUserFeatures.asOf(snapshotDate(events)));
    PCollection<DeadLetter> deadLetters =
        PCollectionList.of(bronze.get(IngestUserEvents.DEAD_LETTERS))
            .and(silver.get(CleanUserEvents.QUARANTINE))
            .and(silver.get(CleanUserEvents.DUPLICATES))
            .and(gold.get(ComputeUserFeatures.DEAD_LETTERS))
            .apply("AllDeadLetters", Flatten.pCollections());
    return PCollectionTuple.of(BRONZE, bronze.get(BRONZE))
        .and(SILVER, events)
        .and(FEATURES, gold.get(ComputeUserFeatures.FEATURES))
        .and(DEAD_LETTERS, deadLetters);
  }

  /** {@link #asOf}, or the latest event date in Silver. */
  private PCollectionView<String> snapshotDate(PCollection<UserEvent> events) {
    if (!asOf.isEmpty()) {
      return events
          .getPipeline()
          .apply("AsOfOption", Create.of(asOf))
          .apply("AsOfView", View.asSingleton());
    }
    return events
        .apply(
            "EventDates", MapElements.into(TypeDescriptors.strings()).via(UserEvent::getEventDate))
        .apply("LatestDate", Combine.globally(new LatestDate()).asSingletonView());
  }

  /** The latest of ISO dates; "" when there is none. */
  static class LatestDate extends Combine.BinaryCombineFn<String> {
    @Override
    public String apply(String a, String b) {
      return a.compareTo(b) >= 0 ? a : b;
    }

    @Override
    public String identity() {
      return "";
    }
  }
}
