package dev.medallion.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.medallion.pipelines.UserFeaturesJob;
import java.nio.file.Path;
import java.util.List;
import org.apache.iceberg.expressions.Expressions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code validate} checks the users tables too, and fails naming the check that broke. */
class ValidateUsersTest {
  @TempDir Path lake;

  @BeforeEach
  void users() throws Exception {
    UserFeaturesJob.run(
        UserFeaturesEndToEndTest.options(
            lake, UserFeaturesEndToEndTest.USERS.resolve("raw"), "r1"));
  }

  private List<String> failed() throws Exception {
    return Validate.validate(lake.toString(), null).stream()
        .filter(c -> !c.passed())
        .map(Validate.Check::name)
        .toList();
  }

  @Test
  void aUsersLakehousePassesAndIsNotAskedForIotTables() throws Exception {
    List<Validate.Check> checks = Validate.validate(lake.toString(), null);
    assertThat(checks).extracting(Validate.Check::layer).containsOnly("users");
    assertThat(checks).hasSize(8).allMatch(Validate.Check::passed);
  }

  @Test
  void silverRowsLostBreakTheBalanceAndGold() throws Exception {
    LakeEdits.delete(lake, "silver_user_events", Expressions.equal("event_date", "2026-11-26"));
    assertThat(failed())
        .containsExactly(
            "bronze = silver + quarantined + duplicates, per file",
            "gold (newest as_of_date): one row per user, as Silver gives it");
  }

  @Test
  void aLostQuarantineBreaksTheBalanceOnly() throws Exception {
    LakeEdits.delete(lake, "quarantine_user_events", Expressions.equal("stage", "silver"));
    assertThat(failed()).containsExactly("bronze = silver + quarantined + duplicates, per file");
  }
}
