package dev.medallion.users;

import dev.medallion.core.DeadLetter;
import dev.medallion.core.KeyedBatches;
import dev.medallion.core.Rejections;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.PCollectionView;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.TupleTagList;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Duration;

/**
 * Silver from Bronze rows, once the first pass has found which instants are repeated ({@link
 * CleanUserEvents.Decide}, a side input): each row that passes the key checks becomes a Silver
 * event ({@link #KEPT}) at once, unless its instant is repeated. Those few (the copies, and an
 * instant that only shares a hash with one) are grouped per bucket of users with their rows; of
 * each instant the first ingested copy (earliest ingest time, then file name, then line) is kept
 * and every later copy becomes a {@code duplicate} dead letter naming the copy kept ({@link
 * #LATER_COPIES}). A row that fails the checks is skipped: the first pass quarantined it.
 *
 * <p>Only the repeated instants' rows are shuffled, and Silver's dedupe holds no state for the
 * others.
 */
public class DropLaterCopies extends PTransform<PCollection<UserEventBronze>, PCollectionTuple> {
  public static final TupleTag<UserEvent> KEPT = new TupleTag<>() {};
  public static final TupleTag<DeadLetter> LATER_COPIES = new TupleTag<>() {};

  private static final TupleTag<UserEvent> REPEATED = new TupleTag<>() {};

  private final String stage;
  private final Duration maxAheadOfIngest;
  private final PCollectionView<RepeatedInstants> repeated;

  DropLaterCopies(
      String stage, Duration maxAheadOfIngest, PCollectionView<RepeatedInstants> repeated) {
    this.stage = stage;
    this.maxAheadOfIngest = maxAheadOfIngest;
    this.repeated = repeated;
  }

  @Override
  public PCollectionTuple expand(PCollection<UserEventBronze> bronze) {
    PCollectionTuple split =
        bronze.apply(
            "SetAsideRepeatedInstants",
            ParDo.of(new SetAsideFn(repeated, stage, maxAheadOfIngest))
                .withSideInputs(repeated)
                .withOutputTags(KEPT, TupleTagList.of(REPEATED)));
    PCollection<UserEvent> unique = split.get(KEPT).setCoder(UserEventCoders.silver());
    PCollectionTuple firsts =
        split
            .get(REPEATED)
            .setCoder(unique.getCoder())
            .apply("BatchByUserBucket", KeyedBatches.inTheGlobalWindow(DropLaterCopies::bucket))
            .apply("GroupByUserBucket", GroupByKey.create())
            .apply(
                "KeepFirstCopies",
                ParDo.of(new FirstCopyFn(stage))
                    .withOutputTags(KEPT, TupleTagList.of(LATER_COPIES)));
    PCollection<UserEvent> kept =
        PCollectionList.of(unique)
            .and(firsts.get(KEPT).setCoder(unique.getCoder()))
            .apply("AllKept", Flatten.pCollections());
    return PCollectionTuple.of(KEPT, kept).and(LATER_COPIES, firsts.get(LATER_COPIES));
  }

  /** Keeps a valid event whose instant is not repeated; sets the others aside by bucket. */
  static class SetAsideFn extends DoFn<UserEventBronze, UserEvent> {
    private final PCollectionView<RepeatedInstants> repeated;
    private final Duration maxAheadOfIngest;
    private final Rejections.Accepted accepted;
    private transient @Nullable RepeatedInstants repeatedInBundle;

    SetAsideFn(
        PCollectionView<RepeatedInstants> repeated, String stage, Duration maxAheadOfIngest) {
      this.repeated = repeated;
      this.maxAheadOfIngest = maxAheadOfIngest;
      this.accepted = new Rejections.Accepted(stage);
    }

    @StartBundle
    public void start() {
      repeatedInBundle = null;
    }

    @ProcessElement
    public void process(@Element UserEventBronze b, ProcessContext c, MultiOutputReceiver out) {
      UserEvent e;
      try {
        e = CleanUserEvents.toUserEvent(b, maxAheadOfIngest);
      } catch (RuntimeException quarantined) {
        return; // the first pass quarantined and counted it
      }
      if (repeatedInBundle == null) {
        // Read once per bundle: the DirectRunner decodes a side input on every call (the events
        // are in the global window, so it is one value).
        repeatedInBundle = c.sideInput(repeated);
      }
      if (repeatedInBundle.contains(e.getUserId(), e.getEventTimestamp().getMillis())) {
        out.get(REPEATED).output(e);
      } else {
        accepted.add();
        out.get(KEPT).output(e);
      }
    }

    @FinishBundle
    public void finishBundle() {
      accepted.flush();
    }
  }

  /** The first ingested copy first: earliest ingest time (one per run), then file, then line. */
  static final Comparator<UserEvent> FIRST =
      Comparator.<UserEvent>comparingLong(e -> e.getIngestTs().getMillis())
          .thenComparing(UserEvent::getSourceFile)
          .thenComparingLong(UserEvent::getLineNumber);

  /** The bucket of an event's user, as the key of its batch. */
  static String bucket(UserEvent e) {
    return Integer.toString(UserBuckets.of(e.getUserId()));
  }

  /**
   * Within a bucket of users (its events in batches, {@link KeyedBatches}: the DirectRunner copies
   * a key's grouped values whenever a bundle reaches it, a batch as one byte array): of each
   * instant's copies, the first is kept, the others dropped.
   */
  static class FirstCopyFn extends DoFn<KV<String, Iterable<byte[]>>, UserEvent> {
    private final Counter accepted;
    private final Counter duplicates;

    FirstCopyFn(String stage) {
      this.accepted = Rejections.accepted(stage);
      this.duplicates = Metrics.counter(Rejections.NAMESPACE, stage + "_duplicates");
    }

    @ProcessElement
    public void process(@Element KV<String, Iterable<byte[]>> bucket, MultiOutputReceiver out) {
      Map<String, List<UserEvent>> byInstant = new HashMap<>();
      for (byte[] batch : bucket.getValue()) {
        for (UserEvent e : KeyedBatches.decode(batch, UserEventCoders.silver())) {
          String instant = e.getUserId() + "|" + e.getEventTimestamp().getMillis();
          byInstant.computeIfAbsent(instant, k -> new ArrayList<>(2)).add(e);
        }
      }
      for (List<UserEvent> copies : byInstant.values()) {
        copies.sort(FIRST);
        UserEvent first = copies.get(0);
        for (UserEvent e : copies) {
          // A row held twice (the same ingest, file and line) is one row: never dropped.
          if (FIRST.compare(e, first) == 0) {
            accepted.inc();
            out.get(KEPT).output(e);
          } else {
            duplicates.inc();
            out.get(LATER_COPIES).output(laterCopy(e, first));
          }
        }
      }
    }

    private static DeadLetter laterCopy(UserEvent e, UserEvent kept) {
      return DeadLetter.of(
          DeadLetter.SILVER,
          "duplicate",
          "same user_id and event_timestamp instant as " + kept.getSource(),
          e.getRawLine(),
          e.getSource(),
          e.getSourceFile(),
          e.getEventTimestamp(),
          e.getIngestTs());
    }
  }
}
