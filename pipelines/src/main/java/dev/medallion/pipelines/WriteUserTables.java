package dev.medallion.pipelines;

import dev.medallion.core.DeadLetter;
import dev.medallion.core.WriteTable;
import dev.medallion.lakehouse.Lakehouse;
import dev.medallion.users.UserEvent;
import dev.medallion.users.UserEventBronze;
import dev.medallion.users.UserFeatures;
import dev.medallion.users.UserFeaturesMedallion;
import org.apache.beam.sdk.transforms.Filter;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.PDone;

/**
 * The user-features pipeline's lakehouse sink. Bronze is append-only, so this run's Bronze rows and
 * Bronze dead letters go straight to the lakehouse; Silver, its dead letters and Gold are rebuilt
 * from all of Bronze, so they go to a staging lakehouse that replaces the tables once the job
 * succeeded.
 */
public final class WriteUserTables extends PTransform<PCollectionTuple, PDone> {
  private final Lakehouse lake;
  private final Lakehouse staged;
  private final String runId;
  private final int numShards;

  private WriteUserTables(Lakehouse lake, Lakehouse staged, String runId, int numShards) {
    this.lake = lake;
    this.staged = staged;
    this.runId = runId;
    this.numShards = numShards;
  }

  public static WriteUserTables to(Lakehouse lake, Lakehouse staged, UsersOptions o) {
    return new WriteUserTables(lake, staged, o.getRunId(), o.getNumShards());
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
    PCollection<DeadLetter> deadLetters = layers.get(UserFeaturesMedallion.DEAD_LETTERS);
    deadLetters
        .apply("BronzeDeadLetters", Filter.by(WriteUserTables::fromBronze))
        .apply(
            "WriteBronzeDeadLetters",
            table(lake, Lakehouse.QUARANTINE_USERS, WriteIotTables::stagePartition));
    deadLetters
        .apply("LaterDeadLetters", Filter.by((DeadLetter d) -> !fromBronze(d)))
        .apply(
            "WriteSilverDeadLetters",
            table(staged, Lakehouse.QUARANTINE_USERS, WriteIotTables::stagePartition));
    layers
        .get(UserFeaturesMedallion.SILVER)
        .apply(
            "WriteSilver",
            table(
                staged, Lakehouse.SILVER_USERS, (UserEvent e) -> "event_date=" + e.getEventDate()));
    layers
        .get(UserFeaturesMedallion.FEATURES)
        .apply(
            "WriteGold",
            table(
                staged,
                Lakehouse.GOLD_USER_FEATURES,
                (UserFeatures f) -> "as_of_date=" + f.getAsOfDate()));
    return PDone.in(layers.getPipeline());
  }

  private static boolean fromBronze(DeadLetter d) {
    return DeadLetter.BRONZE.equals(d.getStage());
  }

  private <T> WriteTable<T> table(
      Lakehouse root, String table, SerializableFunction<T, String> partition) {
    return WriteTable.to(root.table(table), partition, runId).withNumShards(numShards);
  }
}
