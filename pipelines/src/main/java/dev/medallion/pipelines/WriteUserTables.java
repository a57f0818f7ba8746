package dev.medallion.pipelines;

import dev.medallion.core.WriteTableFiles;
import dev.medallion.lakehouse.Lakehouse;
import dev.medallion.users.UserEvent;
import dev.medallion.users.UserEventBronze;
import dev.medallion.users.UserFeatures;
import dev.medallion.users.UserFeaturesMedallion;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.PDone;

/**
 * The user-features pipeline's lakehouse sink: every layer and the dead letters of every stage into
 * their tables' folders, as files named after the run, each bundle writing its own ({@link
 * WriteTableFiles}: no shuffle), listed in a manifest per table; {@link UserFeaturesJob} commits
 * the listed files (Bronze and its dead letters appended, Silver, its dead letters and Gold
 * replacing what was there).
 */
public final class WriteUserTables extends PTransform<PCollectionTuple, PDone> {
  private final Lakehouse lake;
  private final String runId;

  private WriteUserTables(Lakehouse lake, String runId) {
    this.lake = lake;
    this.runId = runId;
  }

  public static WriteUserTables to(Lakehouse lake, UsersOptions o) {
    return new WriteUserTables(lake, o.getRunId());
  }

  @Override
  public PDone expand(PCollectionTuple layers) {
    layers
        .get(UserFeaturesMedallion.BRONZE)
        .apply(
            "WriteBronze",
            table(
                lake,
                Lakehouse.BRONZE_USERS,
                (UserEventBronze e) -> "ingest_date=" + e.getIngestDate()));
    layers
        .get(UserFeaturesMedallion.DEAD_LETTERS)
        .apply(
            "WriteDeadLetters",
            table(lake, Lakehouse.QUARANTINE_USERS, WriteIotTables::stagePartition));
    layers
        .get(UserFeaturesMedallion.SILVER)
        .apply(
            "WriteSilver",
            table(lake, Lakehouse.SILVER_USERS, (UserEvent e) -> "event_date=" + e.getEventDate()));
    layers
        .get(UserFeaturesMedallion.FEATURES)
        .apply(
            "WriteGold",
            table(
                lake,
                Lakehouse.GOLD_USER_FEATURES,
                (UserFeatures f) -> "as_of_date=" + f.getAsOfDate()));
    return PDone.in(layers.getPipeline());
  }

  private <T> WriteTableFiles<T> table(
      Lakehouse root, String table, SerializableFunction<T, String> partition) {
    return WriteTableFiles.to(root.table(table), partition, runId, root.written(runId, table));
  }
}
