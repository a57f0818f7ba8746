package dev.medallion.users;

import static org.assertj.core.api.Assertions.assertThat;

import dev.medallion.core.DeadLetter;
import dev.medallion.core.RawEvent;
import dev.medallion.testing.BeamPipelineExtension;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(BeamPipelineExtension.class)
class CleanUserEventsTest {
  private static final String OK_TS = "\"event_timestamp\":\"2026-11-28T10:15:30.123Z\"";

  /** Ingested {@code ingestMillis} after noon on the day after the fixtures' events. */
  private static final Instant INGESTED = Instant.parse("2026-11-29T12:00:00Z");

  private static UserEventBronze bronze(String line, String file, long n, long ingestMillis) {
    return IngestUserEvents.parse(
        RawEvent.of(line, "file", file, null, n, null), INGESTED.plus(ingestMillis));
  }

  @Test
  void anEventFromTheFarFutureOfItsIngestIsQuarantined() {
    // Ingested 2026-11-29T12:00Z; by default an event may be up to 30 days ahead.
    UserEventBronze inYear9999 =
        bronze(
            "{\"user_id\":\"u-1\",\"event_type\":\"click\","
                + "\"event_timestamp\":\"9999-12-31T23:59:59.000Z\"}",
            "a",
            1,
            0);
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> CleanUserEvents.toUserEvent(inYear9999))
        .isInstanceOf(dev.medallion.core.InvalidRecordException.class)
        .hasMessageContaining("9999-12-31T23:59:59.000Z")
        .extracting(e -> ((dev.medallion.core.InvalidRecordException) e).getReason())
        .isEqualTo("future_event_timestamp");
    UserEventBronze withinADay =
        bronze(
            "{\"user_id\":\"u-1\",\"event_type\":\"click\","
                + "\"event_timestamp\":\"2026-12-29T11:59:59.000Z\"}",
            "a",
            1,
            0);
    org.assertj.core.api.Assertions.assertThat(CleanUserEvents.toUserEvent(withinADay).getUserId())
        .isEqualTo("u-1");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> CleanUserEvents.toUserEvent(withinADay, org.joda.time.Duration.standardHours(1)))
        .hasMessageContaining("more than 0 day(s)");
  }

  /** Every way a key field can be wrong, with its quarantine reason. */
  static final List<KV<String, String>> INVALID =
      List.of(
          KV.of("{\"event_type\":\"click\"," + OK_TS + "}", "missing_user_id"),
          KV.of("{\"user_id\":null,\"event_type\":\"click\"," + OK_TS + "}", "missing_user_id"),
          KV.of("{\"user_id\":\"\",\"event_type\":\"click\"," + OK_TS + "}", "missing_user_id"),
          KV.of("{\"user_id\":42,\"event_type\":\"click\"," + OK_TS + "}", "wrong_type:user_id"),
          KV.of("{\"user_id\":\"u-1\"," + OK_TS + "}", "missing_event_type"),
          KV.of("{\"user_id\":\"u-1\",\"event_type\":7," + OK_TS + "}", "wrong_type:event_type"),
          KV.of("{\"user_id\":\"u-1\",\"event_type\":\"click\"}", "missing_event_timestamp"),
          KV.of(
              "{\"user_id\":\"u-1\",\"event_type\":\"click\",\"event_timestamp\":null}",
              "missing_event_timestamp"),
          KV.of(
              "{\"user_id\":\"u-1\",\"event_type\":\"click\",\"event_timestamp\":\"2026-11-28 10:15:30\"}",
              "invalid_event_timestamp"),
          KV.of(
              "{\"user_id\":\"u-1\",\"event_type\":\"click\",\"event_timestamp\":\"1795947330123\"}",
              "invalid_event_timestamp"),
          KV.of(
              "{\"user_id\":\"u-1\",\"event_type\":\"click\",\"event_timestamp\":true}",
              "invalid_event_timestamp"));

  @Test
  void everyKeyProblemIsQuarantinedWithItsReason(TestPipeline p) {
    List<UserEventBronze> rows = new ArrayList<>();
    List<KV<String, String>> expected = new ArrayList<>();
    long n = 0;
    for (KV<String, String> c : INVALID) {
      rows.add(bronze(c.getKey(), "a.ndjson", ++n, 0));
      expected.add(KV.of(c.getKey(), c.getValue()));
    }
    PCollectionTuple out = p.apply(Create.of(rows)).apply(CleanUserEvents.create());
    PAssert.that(out.get(CleanUserEvents.EVENTS)).empty();
    PAssert.that(out.get(CleanUserEvents.DUPLICATES)).empty();
    PAssert.that(
            out.get(CleanUserEvents.QUARANTINE)
                .apply(
                    MapElements.into(
                            TypeDescriptors.kvs(
                                TypeDescriptors.strings(), TypeDescriptors.strings()))
                        .via((DeadLetter d) -> KV.of(d.getOriginalPayload(), d.getReason()))))
        .containsInAnyOrder(expected);
    p.run();
  }

  @Test
  void theSameInstantInThreeFormsIsOneEventAndTheFirstIngestedCopyIsKept(TestPipeline p) {
    String z =
        "{\"event_id\":\"e-1\",\"user_id\":\"u-1\",\"event_type\":\"view\",\"event_timestamp\":\"2026-11-28T10:15:30.123Z\"}";
    String offset =
        "{\"event_id\":\"e-2\",\"user_id\":\"u-1\",\"event_type\":\"click\",\"event_timestamp\":\"2026-11-28T12:15:30.123+02:00\"}";
    String millis =
        "{\"event_id\":\"e-3\",\"user_id\":\"u-1\",\"event_type\":\"purchase\",\"event_timestamp\":1795860930123}";
    PCollectionTuple out =
        p.apply(
                Create.of(
                    bronze(millis, "z-late.ndjson", 1, 2000), // a later run
                    bronze(offset, "b.ndjson", 7, 1000),
                    bronze(z, "b.ndjson", 3, 1000)))
            .apply(CleanUserEvents.create());
    PAssert.that(
            out.get(CleanUserEvents.EVENTS)
                .apply(
                    "Ids",
                    MapElements.into(TypeDescriptors.strings())
                        .via((UserEvent e) -> e.getEventId())))
        .containsInAnyOrder("e-1");
    PAssert.that(
            out.get(CleanUserEvents.DUPLICATES)
                .apply(
                    "Dups",
                    MapElements.into(TypeDescriptors.strings())
                        .via((DeadLetter d) -> d.getSource() + "|" + d.getReason())))
        .containsInAnyOrder("file:b.ndjson#7|duplicate", "file:z-late.ndjson#1|duplicate");
    PAssert.that(
            out.get(CleanUserEvents.DUPLICATES)
                .apply(
                    "DupPayloads",
                    MapElements.into(TypeDescriptors.strings())
                        .via((DeadLetter d) -> d.getOriginalPayload())))
        .containsInAnyOrder(offset, millis);
    p.run();
  }

  @Test
  void onlyLaterCopiesAreDroppedAndEveryValidRowIsKeptOrDropped(TestPipeline p) {
    List<UserEventBronze> rows = new ArrayList<>();
    // 40 users with 5 distinct instants each: all kept, also where two users share an instant.
    for (int u = 0; u < 40; u++) {
      for (int m = 0; m < 5; m++) {
        rows.add(bronze(event("u-" + u, 1795860930000L + m), "a.ndjson", 100 * u + m, 0));
      }
    }
    // u-7's first instant three more times, in a later file of the same run and in a later run.
    String again = event("u-7", 1795860930000L);
    rows.add(bronze(again, "b.ndjson", 1, 0));
    rows.add(bronze(again, "b.ndjson", 2, 0));
    rows.add(bronze(again, "a.ndjson", 9999, 5000));
    // u-9's last instant: the same Bronze row held twice (same ingest, file and line) is kept
    // twice.
    rows.add(bronze(event("u-9", 1795860930004L), "a.ndjson", 904, 0));
    PCollectionTuple out = p.apply(Create.of(rows)).apply(CleanUserEvents.create());
    PAssert.that(
            out.get(CleanUserEvents.DUPLICATES)
                .apply(
                    "Dups",
                    MapElements.into(TypeDescriptors.strings())
                        .via((DeadLetter d) -> d.getSource() + " " + d.getDetail())))
        .containsInAnyOrder(
            "file:b.ndjson#1 same user_id and event_timestamp instant as file:a.ndjson#700",
            "file:b.ndjson#2 same user_id and event_timestamp instant as file:a.ndjson#700",
            "file:a.ndjson#9999 same user_id and event_timestamp instant as file:a.ndjson#700");
    PAssert.that(out.get(CleanUserEvents.QUARANTINE)).empty();
    PAssert.that(
            out.get(CleanUserEvents.EVENTS)
                .apply(
                    "Kept",
                    MapElements.into(TypeDescriptors.strings()).via((UserEvent e) -> e.getSource()))
                .apply("Count", org.apache.beam.sdk.transforms.Count.globally()))
        .containsInAnyOrder(201L); // 204 valid rows = 201 kept + 3 later copies
    p.run();
  }

  /**
   * The first pass decides from the valid rows only: the instants more than one holds, and the
   * latest date (not that of a quarantined row from the far future); over no rows, none and "".
   */
  @Test
  void theDecisionsComeFromTheValidRowsOnly(TestPipeline p) {
    long latest = Instant.parse("2026-11-28T23:59:59.999Z").getMillis();
    List<UserEventBronze> rows = new ArrayList<>();
    rows.add(bronze(event("u-1", latest - 86_400_000L), "a.ndjson", 1, 0));
    rows.add(bronze(event("u-1", latest), "a.ndjson", 2, 0));
    rows.add(bronze(event("u-2", latest - 5), "a.ndjson", 3, 0));
    rows.add(bronze(event("u-2", latest - 5), "b.ndjson", 1, 0)); // a copy
    rows.add(bronze(event("u-3", 253_402_214_400_000L), "a.ndjson", 4, 0)); // year 9999
    rows.add(bronze("{\"user_id\":\"u-4\",\"event_timestamp\":" + latest + "}", "a.ndjson", 5, 0));
    PCollectionTuple decided = p.apply(Create.of(rows)).apply(CleanUserEvents.create().decide());
    PAssert.thatSingleton(decided.get(CleanUserEvents.Decide.LATEST_DATE)).isEqualTo("2026-11-28");
    PAssert.thatSingleton(decided.get(CleanUserEvents.Decide.REPEATED_INSTANTS))
        .isEqualTo(RepeatedInstants.of(RepeatedInstants.hash("u-2", latest - 5)));
    PAssert.that(
            decided
                .get(CleanUserEvents.QUARANTINE)
                .apply(
                    "Reasons",
                    MapElements.into(TypeDescriptors.strings())
                        .via((DeadLetter d) -> d.getReason())))
        .containsInAnyOrder("future_event_timestamp", "missing_event_type");

    PCollectionTuple none =
        p.apply(
                "NoRows",
                Create.empty(org.apache.beam.sdk.values.TypeDescriptor.of(UserEventBronze.class)))
            .apply("DecideNone", CleanUserEvents.create().decide());
    PAssert.thatSingleton("NoLatest", none.get(CleanUserEvents.Decide.LATEST_DATE)).isEqualTo("");
    PAssert.thatSingleton("NoneRepeated", none.get(CleanUserEvents.Decide.REPEATED_INSTANTS))
        .isEqualTo(RepeatedInstants.of());
    p.run();
  }

  private static String event(String user, long millis) {
    return "{\"user_id\":\""
        + user
        + "\",\"event_type\":\"view\",\"event_timestamp\":"
        + millis
        + "}";
  }

  @Test
  void aNonKeyFieldOfTheWrongTypeBecomesNullAndIsFlagged() {
    UserEvent e =
        CleanUserEvents.toUserEvent(
            bronze(
                "{\"user_id\":\"u-1\",\"event_type\":\"share\","
                    + OK_TS
                    + ",\"price\":\"n/a\",\"device\":123,\"country\":null,\"session_id\":\"s-1\"}",
                "a",
                1,
                0));
    assertThat(e.getPrice()).isNull();
    assertThat(e.getDevice()).isNull();
    assertThat(e.getCountry()).isNull();
    assertThat(e.getSessionId()).isEqualTo("s-1");
    assertThat(e.getEventType()).as("an unknown event type is kept as it is").isEqualTo("share");
    assertThat(e.getInvalidFields()).isEqualTo("price,device");
    assertThat(e.getEventDate()).isEqualTo("2026-11-28");
  }

  @Test
  void aPriceBeyondADoubleIsNotedOutOfRangeAndFlaggedLikeAWrongType() {
    UserEventBronze b =
        bronze(
            "{\"user_id\":\"u-1\",\"event_type\":\"view\"," + OK_TS + ",\"price\":1e400}",
            "a",
            1,
            0);
    assertThat(b.getTypeErrors()).isEqualTo("price:out_of_range");
    UserEvent e = CleanUserEvents.toUserEvent(b);
    assertThat(e.getPrice()).isNull();
    assertThat(e.getInvalidFields()).isEqualTo("price");
  }

  @Test
  void bronzeRejectsOnlyLinesThatAreNotJsonObjects() {
    for (String bad : List.of("", "  ", "{oops", "[1]", "3")) {
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> bronze(bad, "a", 1, 0))
          .isInstanceOf(dev.medallion.core.InvalidRecordException.class);
    }
    UserEventBronze keptWithoutKeys = bronze("{\"x\":1}", "a", 1, 0);
    assertThat(keptWithoutKeys.getUserId()).isNull();
    assertThat(keptWithoutKeys.getEventDate()).isNull();
  }
}
