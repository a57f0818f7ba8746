package dev.medallion.lakehouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.medallion.core.MedallionException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stages of different layers write one lakehouse side by side; two runs of one layer, or a whole
 * run beside a stage, never do; and a run tidies up only after runs no live run holds the layers
 * of.
 */
class LakehouseLockTest {
  @TempDir Path dir;

  LakeTables.Config config() {
    return new LakeTables.Config(dir.resolve("lake").toString(), "jdbc", "");
  }

  @Test
  void stagesOfOtherLayersRunBesideEachOtherAndTheSameLayerIsRefused() throws Exception {
    try (LakehouseLock bronze = LakehouseLock.acquire(config(), "b1", List.of("bronze"));
        LakehouseLock gold = LakehouseLock.acquire(config(), "g1", List.of("gold"))) {
      assertThat(bronze.holdsAll()).isFalse();
      assertThatThrownBy(() -> LakehouseLock.acquire(config(), "b2", List.of("bronze")))
          .isInstanceOf(MedallionException.class)
          .hasMessageContaining("(its bronze layer) is being written by another run (run b1, pid");
      assertThatThrownBy(() -> LakehouseLock.acquire(config(), "all"))
          .isInstanceOf(MedallionException.class)
          .hasMessageContaining("is being written by another run (run b1");
      // The refused whole run took nothing: silver is still free for a stage.
      try (LakehouseLock silver = LakehouseLock.acquire(config(), "s1", List.of("silver"))) {
        assertThat(silver.holdsOrFree(config(), List.of("silver"))).isTrue();
        assertThat(silver.holdsOrFree(config(), List.of("bronze"))).isFalse();
        assertThat(silver.holdsOrFree(config(), LakehouseLock.LAYERS)).isFalse();
      }
      assertThat(gold.holdsOrFree(config(), List.of("silver"))).as("silver ended").isTrue();
    }
    try (LakehouseLock all = LakehouseLock.acquire(config(), "all")) {
      assertThat(all.holdsAll()).isTrue();
    }
  }

  @Test
  void aStageLeavesTheFilesOfALiveStageOfAnotherLayerAndDiscardsADeadOnesOfItsOwn()
      throws Exception {
    Lakehouse lake = new Lakehouse(config().lakehouse());
    try (LakeTables tables = LakeTables.open(config());
        LakehouseLock liveGold = LakehouseLock.acquire(config(), "live-gold", List.of("gold"))) {
      RunIds.claim(lake, "live-gold", List.of("gold"));
      RunIds.claim(lake, "dead-bronze", List.of("bronze"));
      RunIds.claim(lake, "dead-all", LakehouseLock.LAYERS);
      try (LakehouseLock bronze = LakehouseLock.acquire(config(), "b2", List.of("bronze"))) {
        RunIds.claim(lake, "b2", List.of("bronze"));
        // dead-all names every layer, and gold is live: only a run free of it tidies dead-all.
        assertThat(RunIds.discardUnfinished(lake, tables, "b2", bronze))
            .containsExactly("dead-bronze");
      }
    }
    try (LakeTables tables = LakeTables.open(config());
        LakehouseLock all = LakehouseLock.acquire(config(), "later")) {
      assertThat(RunIds.discardUnfinished(lake, tables, "later", all))
          .containsExactly("b2", "dead-all", "live-gold");
    }
  }

  @Test
  void theNextRunDeletesWhatAFailedRunsWorkWroteAfterItsCleanup() throws Exception {
    Lakehouse lake = new Lakehouse(config().lakehouse());
    Path late = Path.of(lake.table(Lakehouse.BRONZE_USERS), "part-failed1-0007.parquet");
    try (LakeTables tables = LakeTables.open(config())) {
      RunIds.claim(lake, "failed1");
      Files.createDirectories(late.getParent());
      Files.writeString(late.resolveSibling("part-failed1-0001.parquet"), "x");
      RunIds.abandon(lake, tables, "failed1");
      assertThat(late.getParent()).isEmptyDirectory();
      // A task still running when the run failed finishes its file after the cleanup.
      Files.writeString(late, "x");
    }
    try (LakeTables tables = LakeTables.open(config());
        LakehouseLock all = LakehouseLock.acquire(config(), "next")) {
      assertThat(RunIds.discardUnfinished(lake, tables, "next", all)).containsExactly("failed1");
      assertThat(late).doesNotExist();
      assertThat(RunIds.discardUnfinished(lake, tables, "next", all))
          .as("ended: nothing more to say about it")
          .isEmpty();
      assertThatThrownBy(() -> RunIds.claim(lake, "failed1"))
          .hasMessageContaining("was already used");
    }
  }
}
