package dev.medallion.users;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import dev.medallion.core.DeadLetter;
import dev.medallion.core.RawEvent;
import dev.medallion.core.Rejections;
import dev.medallion.core.Replay;
import dev.medallion.testing.BeamPipelineExtension;
import dev.medallion.testing.Counters;
import org.apache.beam.sdk.PipelineResult;
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
  private static final String NO_USER =
      "{\"user_id\":null,\"event_type\":\"view\",\"event_timestamp\":\"2026-11-28T12:00:00Z\"}";
  private static final String PURCHASE =
      "{\"user_id\":\"u-1\",\"event_type\":\"purchase\",\"event_timestamp\":\"2026-11-28T11:00:00Z\"}";

  @Test
  void newLinesAndEarlierBronzeMakeOneSilverAndGold(TestPipeline p) {
    newLinesAndEarlierBronze(p, true);
  }

  /** Silver from the first read's rows, not the input read again: the same layers. */
  @Test
  void theSameWhenSilverTakesTheFirstReadsRows(TestPipeline p) {
    newLinesAndEarlierBronze(p, false);
  }

  private static void newLinesAndEarlierBronze(TestPipeline p, boolean reread) {
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
                                RawEvent.of("{oops", "file", "day2.ndjson", null, 3, null),
                                RawEvent.of(NO_USER, "file", "day2.ndjson", null, 4, null))),
                        Replay.of(Create.of(earlier)))
                    .asOf("2026-11-28")
                    .rereadingForSilver(reread));

    // Bronze is append-only: only this run's three JSON lines are new rows.
    PAssert.thatSingleton(
            layers.get(UserFeaturesMedallion.BRONZE).apply("CountBronze", Count.globally()))
        .isEqualTo(3L);
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
        .containsInAnyOrder("bronze/not_json", "silver/missing_user_id", "silver/duplicate");
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
    PipelineResult result = p.run();
    // The counters say the same as the outputs: three JSON lines and one not; of Silver's four
    // rows (three new, one earlier), one without a user, two kept and one later copy.
    assertThat(Counters.of(result, Rejections.NAMESPACE))
        .contains(
            entry("bronze_user_accepted", 3L),
            entry("bronze_user_rejected", 1L),
            entry("bronze_user_rejected_not_json", 1L),
            entry("silver_user_rejected", 1L),
            entry("silver_user_rejected_missing_user_id", 1L),
            entry("silver_user_accepted", 2L),
            entry("silver_user_duplicates", 1L));
  }

  private static String change(String id, String op, String updatedAt, String type) {
    return "{\"event_id\":\""
        + id
        + "\",\"user_id\":\"u-2\",\"event_type\":\""
        + type
        + "\",\"event_timestamp\":\"2026-11-28T1"
        + id.charAt(1)
        + ":00:00Z\""
        + (op == null ? "" : ",\"op\":\"" + op + "\"")
        + (updatedAt == null ? "" : ",\"updated_at\":\"" + updatedAt + "\"")
        + "}";
  }

  @Test
  void changesOfDataResolveLatestWinsPerKeyAndADeleteRemovesTheRecord(TestPipeline p)
      throws Exception {
    changesOfData(p, true);
  }

  @Test
  void changesOfDataResolveTheSameWhenSilverTakesTheFirstReadsRows(TestPipeline p)
      throws Exception {
    changesOfData(p, false);
  }

  private static void changesOfData(TestPipeline p, boolean reread) throws Exception {
    String[] lines = {
      change("e1", "I", "2026-11-28T10:00:00Z", "view"),
      change("e1", "U", "2026-11-28T12:00:00Z", "purchase"),
      change("e2", "I", "2026-11-28T10:00:00Z", "view"),
      change("e2", "D", "2026-11-28T13:00:00Z", "view"),
      change("e3", "u", "2026-11-28T15:00:00Z", "click"), // later, though earlier in the file
      change("e3", "c", "2026-11-28T14:00:00Z", "view"),
      change("e4", null, null, "view"), // no op: not a change
      change("e5", "X", "2026-11-28T10:00:00Z", "view"),
      change("e6", "U", null, "view"),
    };
    java.util.List<RawEvent> raw = new java.util.ArrayList<>();
    for (int i = 0; i < lines.length; i++) {
      raw.add(RawEvent.of(lines[i], "file", "cdc.ndjson", null, i + 1, null));
    }
    PCollectionTuple layers =
        p.begin()
            .apply(
                UserFeaturesMedallion.ingestedAt(Instant.parse("2026-11-29T12:00:00Z"))
                    .reading(
                        Replay.of(Create.of(raw)),
                        Replay.of(
                            Create.empty(
                                p.getSchemaRegistry().getSchemaCoder(UserEventBronze.class))))
                    .withChangesBy("event_id")
                    .rereadingForSilver(reread));
    PAssert.that(
            layers
                .get(UserFeaturesMedallion.SILVER)
                .apply(
                    "Kept",
                    MapElements.into(TypeDescriptors.strings())
                        .via((UserEvent e) -> e.getEventId() + ":" + e.getEventType())))
        .containsInAnyOrder("e1:purchase", "e3:click", "e4:view");
    PAssert.that(
            layers
                .get(UserFeaturesMedallion.DEAD_LETTERS)
                .apply(
                    "Reasons",
                    MapElements.into(TypeDescriptors.strings())
                        .via((DeadLetter d) -> d.getSource() + "/" + d.getReason())))
        .containsInAnyOrder(
            "file:cdc.ndjson#1/cdc_superseded",
            "file:cdc.ndjson#3/cdc_deleted",
            "file:cdc.ndjson#4/cdc_deleted",
            "file:cdc.ndjson#6/cdc_superseded",
            "file:cdc.ndjson#8/invalid_op",
            "file:cdc.ndjson#9/missing_updated_at");
    PipelineResult result = p.run();
    // Counted as the outputs say: three kept, two changes that cannot be used, four replaced.
    assertThat(Counters.of(result, Rejections.NAMESPACE))
        .contains(
            entry("silver_user_accepted", 3L),
            entry("silver_user_rejected", 2L),
            entry("silver_user_rejected_invalid_op", 1L),
            entry("silver_user_rejected_missing_updated_at", 1L),
            entry("silver_user_replaced", 4L));
  }
}
