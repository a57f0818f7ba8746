package dev.medallion.users;

import dev.medallion.core.DeadLetter;
import dev.medallion.core.FieldMapping;
import dev.medallion.core.RawEvent;
import dev.medallion.core.Replay;
import java.util.List;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.View;
import org.apache.beam.sdk.values.PBegin;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.PCollectionView;
import org.apache.beam.sdk.values.TupleTag;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * The batch user-features medallion as one composite: this run's new raw lines → Bronze ({@link
 * IngestUserEvents}); then all of Bronze (the rows earlier runs ingested, plus this run's) → Silver
 * ({@link CleanUserEvents}: validate keys, quarantine, dedupe) → Gold ({@link ComputeUserFeatures}
 * as of a snapshot date). Silver and Gold depend only on Bronze's rows, so a rerun over the same
 * input gives the same tables.
 *
 * <p>Its sources are injected ({@link #reading}) as {@link Replay}s, because it reads them twice:
 * once for Bronze and Silver's decisions (the quarantine, which instants are repeated, the latest
 * date), and once more after those are made, for Silver's rows and Gold. No row waits in memory for
 * a decision that needs all of them; what the decisions hold is 8 bytes per event. A runner that
 * keeps the first read's rows anyway takes them instead ({@link #rereadingForSilver}).
 *
 * <p>Output: {@link #BRONZE} (this run's rows only: Bronze is append-only), {@link #SILVER}, {@link
 * #FEATURES} and every dead letter under {@link #DEAD_LETTERS} (their {@code stage} says which
 * layer, and {@code duplicate} marks the copies dedupe removed). It writes nothing; the caller
 * applies the sinks.
 */
public final class UserFeaturesMedallion extends PTransform<PBegin, PCollectionTuple> {
  public static final TupleTag<UserEventBronze> BRONZE = IngestUserEvents.EVENTS;
  public static final TupleTag<UserEvent> SILVER = CleanUserEvents.EVENTS;
  public static final TupleTag<UserFeatures> FEATURES = ComputeUserFeatures.FEATURES;
  public static final TupleTag<DeadLetter> DEAD_LETTERS = DeadLetter.TAG;

  // Set once, by the factory or by a copy's setter below: each setter returns a new transform.
  private final Instant ingestTs;
  private String asOf = "";
  private Duration maxAheadOfIngest = CleanUserEvents.MAX_AHEAD_OF_INGEST;
  private transient Replay<RawEvent> newLines = nothing();
  private transient Replay<UserEventBronze> earlierBronze = nothing();
  private FieldMapping mapping = FieldMapping.NONE;
  private String cdcKey = "";
  private boolean totalsInState;
  private boolean rereading = true;

  private UserFeaturesMedallion(Instant ingestTs) {
    this.ingestTs = ingestTs;
  }

  /** New lines are stamped as ingested at {@code ingestTs}. */
  public static UserFeaturesMedallion ingestedAt(Instant ingestTs) {
    return new UserFeaturesMedallion(ingestTs);
  }

  /** This run's new lines, and the Bronze rows earlier runs committed. */
  public UserFeaturesMedallion reading(
      Replay<RawEvent> newLines, Replay<UserEventBronze> earlierBronze) {
    UserFeaturesMedallion t = copy();
    t.newLines = newLines;
    t.earlierBronze = earlierBronze;
    return t;
  }

  /** The snapshot date {@code YYYY-MM-DD}; empty: the latest event date in Silver. */
  public UserFeaturesMedallion asOf(String date) {
    UserFeaturesMedallion t = copy();
    t.asOf = date;
    return t;
  }

  /** See {@link CleanUserEvents#withMaxAheadOfIngest}. */
  public UserFeaturesMedallion withMaxAheadOfIngest(Duration max) {
    UserFeaturesMedallion t = copy();
    t.maxAheadOfIngest = max;
    return t;
  }

  /** See {@link IngestUserEvents#withMapping}: the new lines' fields, on both reads. */
  public UserFeaturesMedallion withMapping(FieldMapping mapping) {
    UserFeaturesMedallion t = copy();
    t.mapping = mapping;
    return t;
  }

  /**
   * Resolves changes of data (records with {@code op} and {@code updated_at}) per {@code key}
   * before Silver ({@link ResolveChanges}); empty: none.
   */
  public UserFeaturesMedallion withChangesBy(String key) {
    UserFeaturesMedallion t = copy();
    t.cdcKey = key;
    return t;
  }

  /**
   * Gold adds up each bucket of users in state ({@link ComputeUserFeatures#addingUpInState}), for a
   * runner that holds every partial sum of a {@code Combine} until the input ends (the
   * DirectRunner).
   */
  public UserFeaturesMedallion addingUpInState(boolean inState) {
    UserFeaturesMedallion t = copy();
    t.totalsInState = inState;
    return t;
  }

  /**
   * Whether Silver and Gold read the input again after the decisions ({@code true}, the default) or
   * take the first read's Bronze rows ({@code false}). The second read holds nothing in memory,
   * where on a runner that runs a step once its side inputs are ready (the DirectRunner) the first
   * read's rows would wait for the decisions; a runner that keeps a multi-output step's outputs
   * anyway (Spark keeps Bronze's parse on disk, for its writer and Silver's checks) only decodes
   * them once more, which costs less than reading and parsing every line again.
   */
  public UserFeaturesMedallion rereadingForSilver(boolean reread) {
    UserFeaturesMedallion t = copy();
    t.rereading = reread;
    return t;
  }

  private UserFeaturesMedallion copy() {
    UserFeaturesMedallion t = new UserFeaturesMedallion(ingestTs);
    t.asOf = asOf;
    t.maxAheadOfIngest = maxAheadOfIngest;
    t.newLines = newLines;
    t.earlierBronze = earlierBronze;
    t.mapping = mapping;
    t.cdcKey = cdcKey;
    t.totalsInState = totalsInState;
    t.rereading = rereading;
    return t;
  }

  @Override
  public PCollectionTuple expand(PBegin begin) {
    CleanUserEvents silver = CleanUserEvents.create().withMaxAheadOfIngest(maxAheadOfIngest);
    // 1) This run's lines → Bronze rows and dead letters.
    PCollectionTuple bronze =
        newLines
            .read(begin, "ReadNewLines", List.of())
            .apply("Bronze", IngestUserEvents.at(ingestTs).withMapping(mapping));
    // 2) All of Bronze → the quarantine and the decisions: repeated instants, the snapshot date.
    PCollection<UserEventBronze> allBronze =
        PCollectionList.of(earlierBronze.read(begin, "ReadEarlierBronze", List.of()))
            .and(bronze.get(BRONZE))
            .apply("AllBronze", Flatten.pCollections());
    PCollectionList<DeadLetter> replaced = PCollectionList.empty(begin.getPipeline());
    if (!cdcKey.isEmpty()) {
      PCollectionTuple changes = allBronze.apply("Changes", ResolveChanges.byKey(cdcKey));
      allBronze = changes.get(ResolveChanges.CURRENT);
      replaced = replaced.and(changes.get(ResolveChanges.REPLACED));
    }
    PCollectionTuple decided = allBronze.apply("SilverDecisions", silver.decide());
    PCollectionView<RepeatedInstants> repeated =
        decided
            .get(CleanUserEvents.Decide.REPEATED_INSTANTS)
            .apply("RepeatedInstants", View.asSingleton());
    PCollectionView<String> asOfDate =
        snapshotDate(begin, decided.get(CleanUserEvents.Decide.LATEST_DATE));
    // 3) All of Bronze again, read once those are known (or the first read's) → Silver → Gold.
    PCollection<UserEventBronze> allBronzeAgain =
        rereading ? reread(begin, List.of(repeated, asOfDate)) : allBronze;
    PCollectionTuple kept = allBronzeAgain.apply("Silver", silver.keep(repeated));
    PCollection<UserEvent> events = kept.get(CleanUserEvents.EVENTS);
    ComputeUserFeatures features = ComputeUserFeatures.asOf(asOfDate);
    PCollectionTuple gold =
        events.apply("Gold", totalsInState ? features.addingUpInState() : features);
    PCollection<DeadLetter> deadLetters =
        PCollectionList.of(bronze.get(IngestUserEvents.DEAD_LETTERS))
            .and(replaced.getAll())
            .and(decided.get(CleanUserEvents.QUARANTINE))
            .and(kept.get(CleanUserEvents.DUPLICATES))
            .and(gold.get(ComputeUserFeatures.DEAD_LETTERS))
            .apply("AllDeadLetters", Flatten.pCollections());
    return PCollectionTuple.of(BRONZE, bronze.get(BRONZE))
        .and(SILVER, events)
        .and(FEATURES, gold.get(ComputeUserFeatures.FEATURES))
        .and(DEAD_LETTERS, deadLetters);
  }

  /** All of Bronze read again, after {@code decisions}, with the changes resolved again. */
  private PCollection<UserEventBronze> reread(PBegin begin, List<PCollectionView<?>> decisions) {
    PCollection<UserEventBronze> again =
        PCollectionList.of(earlierBronze.read(begin, "RereadEarlierBronze", decisions))
            .and(
                newLines
                    .read(begin, "RereadNewLines", decisions)
                    .apply("BronzeAgain", IngestUserEvents.again(ingestTs, mapping)))
            .apply("AllBronzeAgain", Flatten.pCollections());
    if (cdcKey.isEmpty()) {
      return again;
    }
    return again
        .apply("ChangesAgain", ResolveChanges.byKey(cdcKey).again())
        .get(ResolveChanges.CURRENT);
  }

  /** {@link #asOf}, or the latest event date in Silver. */
  private PCollectionView<String> snapshotDate(PBegin begin, PCollection<String> latestDate) {
    PCollection<String> date =
        asOf.isEmpty() ? latestDate : begin.apply("AsOfOption", Create.of(asOf));
    return date.apply("SnapshotDate", View.asSingleton());
  }

  /** A source not given yet: {@link #reading} is required. */
  private static <T> Replay<T> nothing() {
    return (begin, name, after) -> {
      throw new IllegalStateException("UserFeaturesMedallion needs its sources: call reading()");
    };
  }
}
