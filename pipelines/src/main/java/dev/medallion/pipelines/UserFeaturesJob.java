package dev.medallion.pipelines;

import dev.medallion.core.MedallionException;
import dev.medallion.core.ReadNdjsonLines;
import dev.medallion.core.ReadTable;
import dev.medallion.lakehouse.Catalog;
import dev.medallion.lakehouse.CrashPoints;
import dev.medallion.lakehouse.IngestManifest;
import dev.medallion.lakehouse.Lakehouse;
import dev.medallion.lakehouse.LakehouseLock;
import dev.medallion.lakehouse.RunIds;
import dev.medallion.lakehouse.TablePublisher;
import dev.medallion.users.UserEventBronze;
import dev.medallion.users.UserFeaturesMedallion;
import java.io.IOException;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * Runs the batch user-features pipeline: one Beam job ({@link #build}) in which this run's new
 * files become Bronze rows (append-only), and all of Bronze (earlier runs' rows plus these) is
 * rebuilt into Silver and Gold, staged. Around it the table protocol: the files no manifest lists
 * yet are this run's ({@code <runId>.pending} until the job succeeded), and the staged Silver, its
 * quarantine and Gold's snapshot replace the lakehouse's only then; a failed job leaves nothing
 * half-done, so a rerun over the same input gives the same tables.
 */
public final class UserFeaturesJob {
  private UserFeaturesJob() {}

  /** What a run did: how many new files it ingested, and every Medallion counter of its job. */
  public record Summary(int newFiles, Map<String, Long> counters) {}

  public static Summary run(UsersOptions o) throws IOException {
    validate(o);
    try (LakehouseLock lock = LakehouseLock.acquire(o.getLakehouse(), o.getRunId())) {
      return runLocked(o);
    }
  }

  private static Summary runLocked(UsersOptions o) throws IOException {
    Lakehouse lake = new Lakehouse(o.getLakehouse());
    List<String> abandoned = TablePublisher.discardAbandonedStaging(lake);
    if (!abandoned.isEmpty()) {
      System.err.println("removed the staging of killed run(s) " + abandoned);
    }
    Catalog.register(o.getLakehouse());
    String manifests = lake.table(Lakehouse.MANIFEST_USERS);
    List<String> bronzeTables =
        List.of(Lakehouse.BRONZE_USERS, Lakehouse.QUARANTINE_USERS + "/stage=bronze");
    IngestManifest.Plan plan = IngestManifest.plan(lake, manifests, bronzeTables, o.getInput());
    List<String> fresh = plan.fresh();
    Lakehouse staged = new Lakehouse(lake.table(Lakehouse.STAGING + "/" + o.getRunId()));
    Pipeline p = Pipeline.create(o);
    build(p, fresh, lake, staged, o);
    RunIds.claim(lake, o.getRunId());
    if (!plan.undone().isEmpty()) {
      System.err.println(
          "undid the Bronze of unfinished run(s) "
              + plan.undone()
              + "; their files are ingested again");
    }
    IngestManifest.begin(manifests, o.getRunId(), fresh);
    PipelineResult result;
    try {
      result = Progress.runAndWait(p);
      if (result.getState() != PipelineResult.State.DONE) {
        throw new MedallionException(
            "the job ended " + result.getState() + "; nothing was published");
      }
    } catch (RuntimeException e) {
      // Nothing half-done: this run's Bronze files, its pending manifest and its staging go.
      IngestManifest.undo(lake, manifests, o.getRunId(), bronzeTables);
      TablePublisher.discard(staged.root());
      throw e;
    }
    CrashPoints.reached(CrashPoints.BEFORE_COMMIT);
    IngestManifest.commit(manifests, o.getRunId());
    TablePublisher.replaceTable(
        staged.table(Lakehouse.SILVER_USERS), lake.table(Lakehouse.SILVER_USERS));
    CrashPoints.reached(CrashPoints.MID_PUBLISH);
    TablePublisher.replaceTable(
        staged.table(Lakehouse.QUARANTINE_USERS + "/stage=silver"),
        lake.table(Lakehouse.QUARANTINE_USERS + "/stage=silver"));
    TablePublisher.replacePartitions(
        staged.table(Lakehouse.GOLD_USER_FEATURES), lake.table(Lakehouse.GOLD_USER_FEATURES));
    TablePublisher.cleanUp(staged.root());
    return new Summary(fresh.size(), Progress.counters(result));
  }

  private static void validate(UsersOptions o) {
    if (o.getInput().isBlank()) {
      throw new IllegalArgumentException(
          "--input is required: the raw NDJSON files to ingest, e.g. --input='data/*.ndjson'"
              + " (the repository's sample: --input='testdata/users/raw/*.ndjson')");
    }
    if (!o.getAsOf().isEmpty()) {
      try {
        LocalDate.parse(o.getAsOf());
      } catch (DateTimeParseException e) {
        throw new IllegalArgumentException("--asOf must be a date YYYY-MM-DD, got " + o.getAsOf());
      }
    }
    if (o.getMaxFutureDays() < 0) {
      throw new IllegalArgumentException(
          "--maxFutureDays must be 0 or more, got " + o.getMaxFutureDays());
    }
  }

  /**
   * The job's story: the new files' lines and the Bronze rows earlier runs wrote, through {@link
   * UserFeaturesMedallion}, into {@link WriteUserTables} (Bronze appended to {@code lake}, the
   * rebuilt layers to {@code staged}). Earlier Bronze is the table's files listed before the job.
   */
  static void build(
      Pipeline p, List<String> newFiles, Lakehouse lake, Lakehouse staged, UsersOptions o)
      throws IOException {
    // Listed now, before the job appends this run's Bronze files to the same table.
    List<String> earlierBronze = TablePublisher.parquetFiles(lake.table(Lakehouse.BRONZE_USERS));
    PCollectionTuple.of(
            UserFeaturesMedallion.NEW_LINES,
            p.apply("ReadNewFiles", ReadNdjsonLines.fromFiles(newFiles)))
        .and(
            UserFeaturesMedallion.EARLIER_BRONZE,
            p.apply("ReadBronze", ReadTable.ofFiles(earlierBronze, UserEventBronze.class)))
        .apply(
            "UserFeaturesMedallion",
            UserFeaturesMedallion.ingestedAt(Instant.now())
                .asOf(o.getAsOf())
                .withMaxAheadOfIngest(Duration.standardDays(o.getMaxFutureDays())))
        .apply("WriteTables", WriteUserTables.to(lake, staged, o));
  }
}
