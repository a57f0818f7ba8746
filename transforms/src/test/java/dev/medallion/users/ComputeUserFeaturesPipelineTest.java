package dev.medallion.users;

import dev.medallion.core.EventTimestamps;
import dev.medallion.testing.BeamPipelineExtension;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.View;
import org.apache.beam.sdk.values.PCollectionView;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Gold's two ways of adding up (a {@code Combine}, or state per bucket) give each user the row
 * {@link ComputeUserFeatures#features} computes from that user's events alone.
 */
@ExtendWith(BeamPipelineExtension.class)
class ComputeUserFeaturesPipelineTest {
  private static final String AS_OF = "2026-11-29";
  private static final String[] TYPES = {"click", "purchase", "view", "add_to_cart", "share"};

  @Test
  void bothWaysOfAddingUpGiveEachUserTheRowOfItsOwnEvents(TestPipeline p) {
    Random random = new Random(7);
    Map<String, List<UserEvent>> byUser = new LinkedHashMap<>();
    List<UserEvent> events = new ArrayList<>();
    Instant start = Instant.parse("2026-11-23T00:00:00Z");
    for (int i = 0; i < 5_000; i++) {
      String user = String.format("u-%04d", random.nextInt(700));
      // seven days and a half: some events after the snapshot date, which do not count
      Instant t = start.plus((long) (random.nextDouble() * 7.5 * 86_400_000L));
      UserEvent e =
          UserEvent.builder()
              .setUserId(user)
              .setEventType(TYPES[random.nextInt(TYPES.length)])
              .setEventTimestamp(t)
              .setEventDate(EventTimestamps.utcDate(t))
              .setRawLine("{}")
              .setSource("file:f#" + i)
              .setSourceFile("f")
              .setLineNumber(i)
              .setIngestTs(t)
              .build();
      events.add(e);
      byUser.computeIfAbsent(user, u -> new ArrayList<>()).add(e);
    }
    List<UserFeatures> expected = new ArrayList<>();
    byUser.forEach(
        (user, own) -> {
          UserFeatures row = ComputeUserFeatures.features(user, own, AS_OF);
          if (row != null) {
            expected.add(row);
          }
        });

    PCollectionView<String> asOf = p.apply("AsOf", Create.of(AS_OF)).apply(View.asSingleton());
    var input = p.apply("Events", Create.of(events));
    PAssert.that(
            input
                .apply("Combined", ComputeUserFeatures.asOf(asOf))
                .get(ComputeUserFeatures.FEATURES))
        .containsInAnyOrder(expected);
    PAssert.that(
            input
                .apply("InState", ComputeUserFeatures.asOf(asOf).addingUpInState())
                .get(ComputeUserFeatures.FEATURES))
        .containsInAnyOrder(expected);
    p.run().waitUntilFinish();
  }
}
