package dev.medallion.users;

import static org.assertj.core.api.Assertions.assertThat;

import dev.medallion.core.DeadLetter;
import dev.medallion.core.RawEvent;
import dev.medallion.core.Replay;
import dev.medallion.testing.BeamPipelineExtension;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.Count;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The batch medallion as one composite: this run's lines join the Bronze rows of earlier runs, and
 * Silver and Gold come from both, with no sink.
 */
@ExtendWith(BeamPipelineExtension.class)
class UserFeaturesMedallionTest {
  private static final String CLICK =
      "{\"user_id\":\"u-1\",\"event_type\":\"click\",\"event_timestamp\":\"2026-11-28T10:00:00Z\"}";
  private static final String PURCHASE =
      "{\"user_id\":\"u-1\",\"event_type\":\"purchase\",\"event_timestamp\":\"2026-11-28T11:00:00Z\"}";

  @Test
  void newLinesAndEarlierBronzeMakeOneSilverAndGold(TestPipeline p) {
    UserEventBronze earlier =
        IngestUserEvents.parse(
            RawEvent.of(CLICK, "file", "day1.ndjson", null, 1, null),
            Instant.parse("2026-11-28T12:00:00Z"));
    PCollectionTuple layers =
        p.begin()
            .apply(
                UserFeaturesMedallion.ingestedAt(Instant.parse("2026-11-29T12:00:00Z"))
                    .reading(
                        Replay.of(
                            Create.of(
                                RawEvent.of(CLICK, "file", "day2.ndjson", null, 1, null),
                                RawEvent.of(PURCHASE, "file", "day2.ndjson", null, 2, null),
                                RawEvent.of("{oops", "file", "day2.ndjson", null, 3, null))),
                        Replay.of(Create.of(earlier)))
                    .asOf("2026-11-28"));

    // Bronze is append-only: only this run's two good lines are new rows.
    PAssert.thatSingleton(
            layers.get(UserFeaturesMedallion.BRONZE).apply("CountBronze", Count.globally()))
        .isEqualTo(2L);
    // The click ingested on day 1 is kept; its copy in day 2's file is the duplicate.
    PAssert.that(
            layers
                .get(UserFeaturesMedallion.SILVER)
                .apply(
                    "Kept",
                    MapElements.into(TypeDescriptors.strings())
                        .via((UserEvent e) -> e.getEventType() + "@" + e.getSourceFile())))
        .containsInAnyOrder("click@day1.ndjson", "purchase@day2.ndjson");
    PAssert.that(
            layers
                .get(UserFeaturesMedallion.DEAD_LETTERS)
                .apply(
                    "Reasons",
                    MapElements.into(TypeDescriptors.strings())
                        .via((DeadLetter d) -> d.getStage() + "/" + d.getReason())))
        .containsInAnyOrder("bronze/not_json", "silver/duplicate");
    PAssert.thatSingleton(layers.get(UserFeaturesMedallion.FEATURES))
        .satisfies(
            f -> {
              assertThat(f.getUserId()).isEqualTo("u-1");
              assertThat(f.getEventCount()).isEqualTo(2);
              assertThat(f.getClickCount()).isEqualTo(1);
              assertThat(f.getPurchaseCount()).isEqualTo(1);
              assertThat(f.getLastEventType()).isEqualTo("purchase");
              assertThat(f.getAsOfDate()).isEqualTo("2026-11-28");
              return null;
            });
    p.run().waitUntilFinish();
  }
}
