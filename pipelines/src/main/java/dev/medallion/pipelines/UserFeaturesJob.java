package dev.medallion.pipelines;

import dev.medallion.bronze.IngestUserEvents;
import dev.medallion.gold.ComputeUserFeatures;
import dev.medallion.io.ReadNdjsonLines;
import dev.medallion.io.ReadTable;
import dev.medallion.io.WriteTable;
import dev.medallion.records.DeadLetter;
import dev.medallion.records.UserEvent;
import dev.medallion.records.UserEventBronze;
import dev.medallion.records.UserFeatures;
import dev.medallion.silver.CleanUserEvents;
import java.io.IOException;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.Combine;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.transforms.View;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.PCollectionView;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * The batch user-features pipeline, in two Beam jobs: 1) Bronze ingests the raw files no manifest
 * lists yet (append-only), then records them in a manifest; 2) Silver is rebuilt from all of Bronze
 * (validate, quarantine, dedupe) and Gold computes the snapshot; both are written to a staging
 * folder and published when the job succeeded (Silver and its quarantine replaced whole, Gold's
 * snapshot partition replaced), so a rerun over the same input gives the same tables.
 */
public final class UserFeaturesJob {
  private UserFeaturesJob() {}

  /** What a run did. */
  public record Summary(
      int newFiles, Map<String, Long> bronzeCounters, Map<String, Long> silverCounters) {}

  static int run(String[] args) throws IOException {
    PipelineOptionsFactory.register(BatchOptions.class);
    S3Support.register();
    BatchOptions options =
        PipelineOptionsFactory.fromArgs(RunnerDefaults.apply(args))
            .withValidation()
            .as(BatchOptions.class);
    org.apache.beam.sdk.io.FileSystems.setDefaultPipelineOptions(options);
    Summary s = run(options);
    Map<String, Long> b = s.bronzeCounters();
    Map<String, Long> c = s.silverCounters();
    System.out.printf(
        "bronze : %d new file(s); %d lines = %d rows + %d dead letters%n",
        s.newFiles(),
        b.getOrDefault("bronze_user_accepted", 0L) + b.getOrDefault("bronze_user_rejected", 0L),
        b.getOrDefault("bronze_user_accepted", 0L),
        b.getOrDefault("bronze_user_rejected", 0L));
    System.out.printf(
        "silver : %d bronze rows = %d kept + %d quarantined + %d duplicates removed%n",
        c.getOrDefault("silver_user_accepted", 0L)
            + c.getOrDefault("silver_user_rejected", 0L)
            + c.getOrDefault("silver_user_duplicates", 0L),
        c.getOrDefault("silver_user_accepted", 0L),
        c.getOrDefault("silver_user_rejected", 0L),
        c.getOrDefault("silver_user_duplicates", 0L));
    System.out.printf(
        "gold   : %d user_features rows%n", c.getOrDefault("gold_user_features_rows", 0L));
    System.out.println(
        "tables under " + options.getLakehouse() + " (catalog: _catalog/tables.json)");
    return 0;
  }

  public static Summary run(BatchOptions o) throws IOException {
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
    org.apache.beam.sdk.io.FileSystems.setDefaultPipelineOptions(o);
    Lakehouse lake = new Lakehouse(o.getLakehouse());
    Catalog.register(o.getLakehouse());

    if (o.getInput().isBlank()) {
      throw new IllegalArgumentException(
          "--input is required: the raw NDJSON files to ingest, e.g. --input='data/*.ndjson'"
              + " (the repository's sample: --input='testdata/users/raw/*.ndjson')");
    }
    String manifests = lake.table(Lakehouse.MANIFEST_USERS);
    List<String> bronzeTables =
        List.of(Lakehouse.BRONZE_USERS, Lakehouse.QUARANTINE_USERS + "/stage=bronze");
    IngestManifest.Plan plan = IngestManifest.plan(lake, manifests, bronzeTables, o.getInput());
    RunIds.claim(lake, o.getRunId());
    if (!plan.undone().isEmpty()) {
      System.err.println(
          "undid the Bronze of unfinished run(s) "
              + plan.undone()
              + "; their files are ingested again");
    }
    List<String> fresh = plan.fresh();
    Map<String, Long> bronzeCounters = Map.of();
    if (!fresh.isEmpty()) {
      IngestManifest.begin(manifests, o.getRunId(), fresh);
      try {
        Pipeline bronze = Pipeline.create(o);
        buildBronze(bronze, fresh, lake, o);
        bronzeCounters = finish(bronze.run(), "Bronze");
      } catch (RuntimeException e) {
        // Nothing half-done: this run's Bronze files and its pending manifest go.
        IngestManifest.undo(lake, manifests, o.getRunId(), bronzeTables);
        throw e;
      }
      IngestManifest.commit(manifests, o.getRunId());
    }

    String staging = lake.table("_staging/" + o.getRunId());
    Map<String, Long> silverCounters;
    try {
      Pipeline silverGold = Pipeline.create(o);
      buildSilverAndGold(silverGold, lake, new Lakehouse(staging), o);
      silverCounters = finish(silverGold.run(), "Silver and Gold");
    } catch (RuntimeException e) {
      TablePublisher.discard(staging);
      throw e;
    }
    Lakehouse staged = new Lakehouse(staging);
    TablePublisher.replaceTable(
        staged.table(Lakehouse.SILVER_USERS), lake.table(Lakehouse.SILVER_USERS));
    TablePublisher.replaceTable(
        staged.table(Lakehouse.QUARANTINE_USERS + "/stage=silver"),
        lake.table(Lakehouse.QUARANTINE_USERS + "/stage=silver"));
    TablePublisher.replacePartitions(
        staged.table(Lakehouse.GOLD_USER_FEATURES), lake.table(Lakehouse.GOLD_USER_FEATURES));
    TablePublisher.cleanUp(staging);
    return new Summary(fresh.size(), bronzeCounters, silverCounters);
  }

  private static Map<String, Long> finish(PipelineResult result, String what) {
    PipelineResult.State state = result.waitUntilFinish();
    if (state != PipelineResult.State.DONE) {
      throw new IllegalStateException(what + " ended " + state + "; nothing was published");
    }
    return Progress.counters(result);
  }

  /** Steps: 1) read the new files line by line; 2) Bronze; 3) append rows and dead letters. */
  static void buildBronze(Pipeline p, List<String> files, Lakehouse lake, BatchOptions o) {
    PCollectionTuple bronze =
        p.apply("ReadNewFiles", ReadNdjsonLines.fromFiles(files))
            .apply("Bronze", IngestUserEvents.at(Instant.now()));
    bronze
        .get(IngestUserEvents.EVENTS)
        .apply(
            "WriteBronze",
            table(
                lake.table(Lakehouse.BRONZE_USERS),
                (UserEventBronze e) -> "ingest_date=" + e.getIngestDate(),
                o));
    bronze
        .get(IngestUserEvents.DEAD_LETTERS)
        .apply(
            "WriteDeadLetters",
            table(lake.table(Lakehouse.QUARANTINE_USERS), UserFeaturesJob::deadLetterPartition, o));
  }

  /**
   * Steps: 1) all of Bronze; 2) Silver: validate keys, quarantine, dedupe; 3) the snapshot date; 4)
   * Gold features; 5) write Silver, its quarantine and Gold to {@code staged}.
   */
  static void buildSilverAndGold(Pipeline p, Lakehouse lake, Lakehouse staged, BatchOptions o) {
    PCollectionTuple silver =
        p.apply(
                "ReadBronze",
                ReadTable.of(lake.table(Lakehouse.BRONZE_USERS), UserEventBronze.class))
            .apply(
                "Silver",
                CleanUserEvents.create()
                    .withMaxAheadOfIngest(Duration.standardDays(o.getMaxFutureDays())));
    PCollection<UserEvent> events = silver.get(CleanUserEvents.EVENTS);
    events.apply(
        "WriteSilver",
        table(
            staged.table(Lakehouse.SILVER_USERS),
            (UserEvent e) -> "event_date=" + e.getEventDate(),
            o));
    PCollectionList.of(silver.get(CleanUserEvents.QUARANTINE))
        .and(silver.get(CleanUserEvents.DUPLICATES))
        .apply("SilverDeadLetters", Flatten.pCollections())
        .apply(
            "WriteQuarantine",
            table(
                staged.table(Lakehouse.QUARANTINE_USERS), UserFeaturesJob::deadLetterPartition, o));

    events
        .apply("Features", ComputeUserFeatures.asOf(asOfDate(p, events, o)))
        .apply(
            "WriteGold",
            table(
                staged.table(Lakehouse.GOLD_USER_FEATURES),
                (UserFeatures f) -> "as_of_date=" + f.getAsOfDate(),
                o));
  }

  /** {@code --asOf}, or the latest event date in Silver. */
  private static PCollectionView<String> asOfDate(
      Pipeline p, PCollection<UserEvent> events, BatchOptions o) {
    if (!o.getAsOf().isEmpty()) {
      return p.apply("AsOfOption", Create.of(o.getAsOf())).apply("AsOfView", View.asSingleton());
    }
    return events
        .apply(
            "EventDates", MapElements.into(TypeDescriptors.strings()).via(UserEvent::getEventDate))
        .apply("LatestDate", Combine.globally(new LatestDate()).asSingletonView());
  }

  /** The latest of ISO dates; "" when there is none. */
  static class LatestDate extends Combine.BinaryCombineFn<String> {
    @Override
    public String apply(String a, String b) {
      return a.compareTo(b) >= 0 ? a : b;
    }

    @Override
    public String identity() {
      return "";
    }
  }

  private static String deadLetterPartition(DeadLetter d) {
    return "stage=" + d.getStage() + "/date=" + d.getDate();
  }

  private static <T> WriteTable<T> table(
      String path, SerializableFunction<T, String> partition, BatchOptions o) {
    return WriteTable.to(path, partition, o.getRunId()).withNumShards(o.getNumShards());
  }
}
