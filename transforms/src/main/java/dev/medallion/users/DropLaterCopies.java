package dev.medallion.users;

import dev.medallion.core.DeadLetter;
import dev.medallion.core.Rejections;
import java.util.Map;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.PCollectionView;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.TupleTagList;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Duration;

/**
 * Silver from Bronze rows, once the decisions are made ({@link CleanUserEvents.Decide}): each row
 * that passes the key checks becomes a Silver event ({@link #KEPT}), unless it is a later copy
 * ({@link FindLaterCopies}, a side input), which becomes a {@code duplicate} dead letter naming the
 * copy kept ({@link #LATER_COPIES}). A row that fails the checks is skipped: the decisions' pass
 * quarantined it.
 */
public class DropLaterCopies extends PTransform<PCollection<UserEventBronze>, PCollectionTuple> {
  public static final TupleTag<UserEvent> KEPT = new TupleTag<>() {};
  public static final TupleTag<DeadLetter> LATER_COPIES = new TupleTag<>() {};

  private final String stage;
  private final Duration maxAheadOfIngest;
  private final PCollectionView<Map<String, String>> later;

  DropLaterCopies(
      String stage, Duration maxAheadOfIngest, PCollectionView<Map<String, String>> later) {
    this.stage = stage;
    this.maxAheadOfIngest = maxAheadOfIngest;
    this.later = later;
  }

  @Override
  public PCollectionTuple expand(PCollection<UserEventBronze> bronze) {
    return bronze.apply(
        "KeepFirstCopies",
        ParDo.of(new DropFn(later, stage, maxAheadOfIngest))
            .withSideInputs(later)
            .withOutputTags(KEPT, TupleTagList.of(LATER_COPIES)));
  }

  /** Keeps a valid event unless it is a later copy. */
  static class DropFn extends DoFn<UserEventBronze, UserEvent> {
    private final PCollectionView<Map<String, String>> later;
    private final Duration maxAheadOfIngest;
    private final Counter accepted;
    private final Counter duplicates;
    private transient @Nullable Map<String, String> laterInBundle;

    DropFn(PCollectionView<Map<String, String>> later, String stage, Duration maxAheadOfIngest) {
      this.later = later;
      this.maxAheadOfIngest = maxAheadOfIngest;
      this.accepted = Rejections.accepted(stage);
      this.duplicates = Metrics.counter(Rejections.NAMESPACE, stage + "_duplicates");
    }

    @StartBundle
    public void start() {
      laterInBundle = null;
    }

    @ProcessElement
    public void process(@Element UserEventBronze b, ProcessContext c, MultiOutputReceiver out) {
      UserEvent e;
      try {
        e = CleanUserEvents.toUserEvent(b, maxAheadOfIngest);
      } catch (RuntimeException quarantined) {
        return; // the decisions' pass quarantined and counted it
      }
      if (laterInBundle == null) {
        // The DirectRunner builds the map anew on every call: once per bundle is enough (the
        // events are in the global window, so the side input is one map).
        laterInBundle = c.sideInput(later);
      }
      String kept = laterInBundle.get(FindLaterCopies.Copy.id(e));
      if (kept == null) {
        accepted.inc();
        out.get(KEPT).output(e);
        return;
      }
      duplicates.inc();
      out.get(LATER_COPIES)
          .output(
              DeadLetter.of(
                  DeadLetter.SILVER,
                  "duplicate",
                  "same user_id and event_timestamp instant as " + kept,
                  e.getRawLine(),
                  e.getSource(),
                  e.getSourceFile(),
                  e.getEventTimestamp(),
                  e.getIngestTs()));
    }
  }
}
