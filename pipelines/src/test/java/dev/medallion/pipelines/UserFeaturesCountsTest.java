package dev.medallion.pipelines;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The users report counts what the run's files hold, not what the runner's counters say: Spark
 * counts a retried or recomputed task again.
 */
class UserFeaturesCountsTest {
  /**
   * What a run's files hold: 76 Bronze rows, 3 Bronze dead letters, 65 Silver rows, and 14 Silver
   * dead letters: 9 rejected, 2 later copies, 3 older versions of CDC records.
   */
  private static final Map<String, Long> FILES =
      Map.of(
          "bronze_user_accepted", 76L,
          "bronze_user_rejected", 3L,
          "bronze_user_rejected_not_json", 3L,
          "silver_user_accepted", 65L,
          "silver_user_rejected", 14L,
          "silver_user_rejected_missing_user_id", 9L,
          "silver_user_rejected_duplicate", 2L,
          "silver_user_rejected_cdc_superseded", 2L,
          "silver_user_rejected_cdc_deleted", 1L,
          "gold_user_features_rows", 8L);

  @Test
  void countersOfATaskRunTwiceGiveWayToTheFilesAndItIsSaid() {
    Map<String, Long> counters =
        Map.of(
            "bronze_user_accepted", 152L,
            "bronze_user_rejected", 6L,
            "bronze_user_rejected_not_json", 6L,
            "silver_user_accepted", 65L,
            "silver_user_rejected", 9L,
            "silver_user_rejected_missing_user_id", 9L,
            "silver_user_rejected_stale_reason", 1L,
            "silver_user_duplicates", 2L,
            "silver_user_replaced", 4L,
            "gold_user_features_rows", 8L);
    ByteArrayOutputStream err = new ByteArrayOutputStream();

    Map<String, Long> c =
        UserFeaturesJob.preferFiles(
            counters, FILES, new PrintStream(err, true, StandardCharsets.UTF_8));

    assertThat(c)
        .containsOnly(
            Map.entry("bronze_user_accepted", 76L),
            Map.entry("bronze_user_rejected", 3L),
            Map.entry("bronze_user_rejected_not_json", 3L),
            Map.entry("silver_user_accepted", 65L),
            Map.entry("silver_user_rejected", 9L),
            Map.entry("silver_user_rejected_missing_user_id", 9L),
            Map.entry("silver_user_duplicates", 2L),
            Map.entry("gold_user_features_rows", 8L),
            Map.entry("silver_user_replaced", 3L));
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("the runner's counters differ from what this run's table files hold")
        .contains("bronze_user_accepted 152 -> 76")
        .contains("bronze_user_rejected 6 -> 3")
        .contains("silver_user_replaced 4 -> 3")
        .contains("silver_user_rejected_stale_reason 1 -> 0");
  }

  @Test
  void countersThatAgreeWithTheFilesAreSilent() {
    Map<String, Long> counters =
        Map.of(
            "bronze_user_accepted", 76L,
            "bronze_user_rejected", 3L,
            "bronze_user_rejected_not_json", 3L,
            "silver_user_accepted", 65L,
            "silver_user_rejected", 9L,
            "silver_user_rejected_missing_user_id", 9L,
            "silver_user_duplicates", 2L,
            "silver_user_replaced", 3L,
            "gold_user_features_rows", 8L);
    ByteArrayOutputStream err = new ByteArrayOutputStream();

    Map<String, Long> c =
        UserFeaturesJob.preferFiles(
            counters, FILES, new PrintStream(err, true, StandardCharsets.UTF_8));

    assertThat(c).isEqualTo(counters);
    assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
  }
}
