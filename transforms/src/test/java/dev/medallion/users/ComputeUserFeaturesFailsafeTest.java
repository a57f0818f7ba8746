package dev.medallion.users;

import static org.assertj.core.api.Assertions.assertThat;

import dev.medallion.core.DeadLetter;
import dev.medallion.core.EventTimestamps;
import dev.medallion.testing.BeamPipelineExtension;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.View;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.PCollectionView;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A user whose row cannot be computed is one dead letter naming the user, not a failed job. */
@ExtendWith(BeamPipelineExtension.class)
class ComputeUserFeaturesFailsafeTest {
  @Test
  void aRowThatCannotBeComputedIsADeadLetterNamingTheUser(TestPipeline p) {
    Instant t = Instant.parse("2026-11-28T10:15:30Z");
    UserEvent click =
        UserEvent.builder()
            .setUserId("u-1")
            .setEventType("click")
            .setEventTimestamp(t)
            .setEventDate(EventTimestamps.utcDate(t))
            .setRawLine("{\"user_id\":\"u-1\"}")
            .setSource("file:a#1")
            .setSourceFile("a")
            .setLineNumber(1)
            .setIngestTs(t)
            .build();
    // A snapshot "date" that is not a date makes the days-since computation throw.
    PCollectionView<String> asOf = p.apply("AsOf", Create.of("garbage")).apply(View.asSingleton());
    PCollectionTuple gold =
        p.apply("Events", Create.of(click)).apply(ComputeUserFeatures.asOf(asOf));

    PAssert.that(gold.get(ComputeUserFeatures.FEATURES)).empty();
    PAssert.thatSingleton(gold.get(ComputeUserFeatures.DEAD_LETTERS))
        .satisfies(
            (DeadLetter d) -> {
              assertThat(d.getStage()).isEqualTo("gold");
              assertThat(d.getReason()).isEqualTo("unexpected_error");
              assertThat(d.getDetail()).contains("DateTimeParseException", "\tat ");
              assertThat(d.getOriginalPayload())
                  .isEqualTo(
                      "{\"user_id\":\"u-1\",\"event_count\":1,"
                          + "\"first_event_timestamp\":\"2026-11-28T10:15:30.000Z\","
                          + "\"last_event_timestamp\":\"2026-11-28T10:15:30.000Z\"}");
              assertThat(d.getSource()).isEqualTo("user_id=u-1");
              return null;
            });
    p.run().waitUntilFinish();
  }
}
