package dev.medallion.users;

import static org.assertj.core.api.Assertions.assertThat;

import dev.medallion.core.EventTimestamps;
import java.util.List;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

class ComputeUserFeaturesTest {
  private static UserEvent event(String type, String ts) {
    return event("u-00042", type, Instant.parse(ts));
  }

  /** An event of {@code user}, of {@code type}, at {@code t}, ingested then. */
  static UserEvent event(String user, String type, Instant t) {
    return UserEvent.builder()
        .setUserId(user)
        .setEventType(type)
        .setEventTimestamp(t)
        .setEventDate(EventTimestamps.utcDate(t))
        .setRawLine("{}")
        .setSource("s")
        .setSourceFile("f")
        .setLineNumber(1)
        .setIngestTs(t)
        .build();
  }

  @Test
  void lastEventTypeIsTheTypeOfTheLatestEventNotTheAlphabeticalMaximum() {
    UserFeatures f =
        ComputeUserFeatures.features(
            "u-00042",
            List.of(
                event("view", "2026-11-26T09:00:00Z"),
                event("click", "2026-11-28T10:15:30.123Z"),
                event("purchase", "2026-11-27T08:00:00Z"),
                event("share", "2026-11-27T09:00:00Z"),
                event("click", "2026-11-30T00:00:00Z")), // after the snapshot date: ignored
            "2026-11-29");
    assertThat(f.getLastEventType()).isEqualTo("click");
    assertThat(f.getLastEventTimestamp()).isEqualTo(Instant.parse("2026-11-28T10:15:30.123Z"));
    assertThat(f.getFirstEventTimestamp()).isEqualTo(Instant.parse("2026-11-26T09:00:00Z"));
    assertThat(f.getClickCount()).isEqualTo(1);
    assertThat(f.getPurchaseCount()).isEqualTo(1);
    assertThat(f.getViewCount()).isEqualTo(1);
    assertThat(f.getAddToCartCount()).isZero();
    assertThat(f.getEventCount()).isEqualTo(4);
    assertThat(f.getDaysSinceLastEvent()).isEqualTo(1);
    assertThat(f.getAsOfDate()).isEqualTo("2026-11-29");
  }

  @Test
  void theHashIsSha256OfTheDocumentedString() {
    // printf 'u-00042|1|1|click|2026-11-28T10:15:30.123Z' | sha256sum
    assertThat(
            ComputeUserFeatures.featureHash(
                "u-00042", 1, 1, "click", Instant.parse("2026-11-28T10:15:30.123Z")))
        .isEqualTo("50c43e864ae93c9726d9edbf340785a41ed42e99bf7162cf374ea6202d1cbdfa");
  }

  @Test
  void aUserWithNoEventByTheSnapshotDateHasNoRow() {
    assertThat(
            ComputeUserFeatures.features(
                "u-1", List.of(event("view", "2026-12-01T00:00:00Z")), "2026-11-29"))
        .isNull();
  }
}
