package dev.medallion.pipelines;

import dev.medallion.core.DeadLetter;
import dev.medallion.core.InputFormat;
import dev.medallion.core.MedallionException;
import dev.medallion.core.ReadNdjsonLines;
import dev.medallion.core.ReadTable;
import dev.medallion.core.TableRewrite;
import dev.medallion.lakehouse.Catalog;
import dev.medallion.lakehouse.CrashPoints;
import dev.medallion.lakehouse.InputFiles;
import dev.medallion.lakehouse.LakeTables;
import dev.medallion.lakehouse.Lakehouse;
import dev.medallion.lakehouse.LakehouseLock;
import dev.medallion.lakehouse.RunIds;
import dev.medallion.users.UserEventBronze;
import dev.medallion.users.UserFeaturesMedallion;
import java.io.IOException;
import java.io.PrintStream;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * Runs the batch user-features pipeline: one Beam job ({@link #build}) in which this run's new
 * files become Bronze rows (append-only), and all of Bronze (earlier runs' rows plus these) is
 * rebuilt into Silver and Gold. The job only writes files; after it succeeded, {@link LakeTables}
 * commits them: Bronze's append first, with the input files it ingested (the files no earlier
 * commit lists are this run's), then the quarantine, Silver's replacement and Gold's snapshot. A
 * job that fails commits nothing, so a rerun over the same input gives the same tables.
 */
public final class UserFeaturesJob {
  private UserFeaturesJob() {}

  /** What a run did: how many new files it ingested, and every Medallion counter of its job. */
  /**
   * What a run did: its new files, its counters, and an example of each rejection reason ({@link
   * Progress#examples}).
   */
  public record Summary(int newFiles, Map<String, Long> counters, Map<String, String> examples) {}

  public static Summary run(UsersOptions o) throws IOException {
    validate(o);
    LakeTables.Config config = LakeTables.Config.of(o);
    try (LakehouseLock lock = LakehouseLock.acquire(config, o.getRunId());
        LakeTables tables = LakeTables.open(config)) {
      return runLocked(o, tables);
    }
  }

  private static Summary runLocked(UsersOptions o, LakeTables tables) throws IOException {
    Lakehouse lake = new Lakehouse(tables.config().root());
    String runId = o.getRunId();
    int finished = tables.rollForward();
    if (finished > 0) {
      System.err.println("finished " + finished + " commit(s) of a run killed after its Bronze");
    }
    List<String> discarded = RunIds.discardUnfinished(lake, tables, runId);
    if (!discarded.isEmpty()) {
      System.err.println("removed the uncommitted files of killed or failed run(s) " + discarded);
    }
    Map<String, String> matching = InputFiles.versions(o.getInput());
    if (matching.isEmpty()) {
      throw new IllegalArgumentException("--input matches no file: " + o.getInput());
    }
    InputFiles.NewInput input =
        InputFiles.NewInput.of(matching, tables.ingested(BRONZE), tables.ingestedVersions(BRONZE));
    if (o.getReingest()) {
      input = input.reingestingChanged(matching);
    } else {
      input.sayChanged("users");
    }
    List<String> fresh = input.fresh();
    Reingest reingest = Reingest.NONE;
    if (!input.reingested().isEmpty()) {
      RunIds.claim(lake, runId); // the rewritten files are the run's, before its job
      try {
        reingest = Reingest.of(input.reingested(), tables, runId);
      } catch (IOException | RuntimeException e) {
        RunIds.abandon(lake, tables, runId);
        throw e;
      }
    }
    Pipeline p = Pipeline.create(o);
    build(p, fresh, reingest.bronze().appliedTo(tables.paths(BRONZE)), lake, o);
    if (reingest == Reingest.NONE) {
      RunIds.claim(lake, runId);
    }
    PipelineResult result;
    try {
      FileCounter live = FileCounter.live();
      result = Progress.runAndWait(p, null, () -> writtenSoFar(live, tables, runId));
      if (result.getState() != PipelineResult.State.DONE) {
        throw new MedallionException(
            "the job ended " + result.getState() + "; nothing was committed");
      }
    } catch (RuntimeException e) {
      // Nothing half-done: nothing is committed, and the files this run wrote go.
      RunIds.abandon(lake, tables, runId);
      throw e;
    }
    Map<String, Long> counts;
    try {
      counts = countedInFiles(Progress.counters(result), tables, runId);
    } catch (IOException | RuntimeException e) {
      RunIds.abandon(lake, tables, runId);
      throw e;
    }
    CrashPoints.reached(CrashPoints.BEFORE_COMMIT);
    tables.commit(
        runId,
        List.of(
            LakeTables.Step.rewriteAndAdd(
                BRONZE.name(), reingest.bronze(), tables.listedBy(BRONZE, runId, "")),
            LakeTables.Step.rewriteAndAdd(
                QUARANTINE.name(),
                reingest.deadLetters(),
                tables.listedBy(QUARANTINE, runId, "stage=" + DeadLetter.BRONZE)),
            LakeTables.Step.of(
                SILVER.name(), LakeTables.Op.REPLACE_ALL, tables.listedBy(SILVER, runId, "")),
            LakeTables.Step.replaceWhere(
                QUARANTINE.name(),
                "stage",
                List.of(DeadLetter.SILVER, DeadLetter.GOLD),
                concat(
                    tables.listedBy(QUARANTINE, runId, "stage=" + DeadLetter.SILVER),
                    tables.listedBy(QUARANTINE, runId, "stage=" + DeadLetter.GOLD))),
            LakeTables.Step.of(
                GOLD.name(), LakeTables.Op.REPLACE_PARTITIONS, tables.listedBy(GOLD, runId, ""))),
        LakeTables.ingestedSummary(input));
    // Files a retried or recomputed bundle left (listed in no manifest, so not committed).
    RunIds.discard(tables, runId);
    RunIds.end(lake, runId);
    return new Summary(fresh.size(), counts, Progress.examples(result));
  }

  /** The counters {@link #countedInFiles} takes from the run's files instead. */
  private static final Pattern FROM_FILES =
      Pattern.compile(
          "(bronze|silver|gold)_user_rejected(_.*)?|(bronze|silver)_user_accepted"
              + "|silver_user_duplicates|silver_user_replaced|gold_user_features_rows");

  /**
   * The run's counts of rows and dead letters from the files its commit adds (their footers, and
   * the quarantine's stage and reason columns), in place of the runner's counters for the same
   * numbers ({@link #preferFiles}).
   */
  static Map<String, Long> countedInFiles(
      Map<String, Long> counters, LakeTables tables, String runId) throws IOException {
    return preferFiles(counters, inFiles(FileCounter.EXACT, tables, runId), System.err);
  }

  /**
   * The rows and dead letters of the files run {@code runId} lists for its commit, or, before its
   * job has listed them, of every file it has written so far.
   */
  private static Map<String, Long> inFiles(FileCounter count, LakeTables tables, String runId)
      throws IOException {
    Map<String, Long> files = new TreeMap<>();
    files.put("bronze_user_accepted", count.rows(tables.listedBy(BRONZE, runId, "")));
    files.put("silver_user_accepted", count.rows(tables.listedBy(SILVER, runId, "")));
    files.put("gold_user_features_rows", count.rows(tables.listedBy(GOLD, runId, "")));
    List<String> deadLetters = new ArrayList<>();
    for (String stage : List.of(DeadLetter.BRONZE, DeadLetter.SILVER, DeadLetter.GOLD)) {
      deadLetters.addAll(tables.listedBy(QUARANTINE, runId, "stage=" + stage));
    }
    files.putAll(count.deadLetters(deadLetters, "_user"));
    return files;
  }

  /**
   * The progress line's counts on Spark, whose counters a recomputed or retried task increments
   * again: the rows and dead letters of the files the job has written so far ({@link
   * FileCounter#live}), as counters name them.
   */
  static Map<String, Long> writtenSoFar(FileCounter live, LakeTables tables, String runId) {
    try {
      return asCounters(inFiles(live, tables, runId));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /**
   * The counters, with what the files say in place of every count the files hold: Spark increments
   * a counter again for a task it recomputes or retries, and has no committed metrics. Says on
   * {@code err} when counters and files differ.
   */
  static Map<String, Long> preferFiles(
      Map<String, Long> counters, Map<String, Long> inFiles, PrintStream err) {
    return FileCounts.prefer("users", counters, asCounters(inFiles), FROM_FILES, err);
  }

  /**
   * The files' counts as the counters name them. Two kinds of Silver dead letters are not
   * rejections and have counters of their own: later copies ({@code duplicate}: {@code
   * silver_user_duplicates}) and CDC's older versions ({@code cdc_superseded}, {@code cdc_deleted}:
   * {@code silver_user_replaced}).
   */
  private static Map<String, Long> asCounters(Map<String, Long> inFiles) {
    Map<String, Long> files = new TreeMap<>(inFiles);
    files.putIfAbsent("bronze_user_rejected", 0L);
    files.putIfAbsent("silver_user_rejected", 0L);
    long duplicates = notRejected(files, "duplicate");
    long replaced = notRejected(files, "cdc_superseded") + notRejected(files, "cdc_deleted");
    files.put("silver_user_duplicates", duplicates);
    files.put("silver_user_replaced", replaced);
    return files;
  }

  /** Takes Silver's dead letters of this reason out of its rejections; returns how many. */
  private static long notRejected(Map<String, Long> files, String reason) {
    Long n = files.remove("silver_user_rejected_" + reason);
    if (n == null) {
      return 0;
    }
    files.merge("silver_user_rejected", -n, Long::sum);
    return n;
  }

  /**
   * What a re-ingest ({@code --reingest}) replaces before the job: the Bronze files and the Bronze
   * dead-letter files that hold rows of the changed input files, written again without them ({@link
   * TableRewrite}). The job computes Silver and Gold from Bronze as it will be; the commit replaces
   * those files and adds the new rows in one snapshot per table.
   */
  record Reingest(TableRewrite.Rewritten bronze, TableRewrite.Rewritten deadLetters) {
    static final Reingest NONE =
        new Reingest(TableRewrite.Rewritten.NONE, TableRewrite.Rewritten.NONE);

    static Reingest of(List<String> changed, LakeTables tables, String runId) throws IOException {
      Set<String> files = Set.copyOf(changed);
      TableRewrite.Rewritten bronze =
          TableRewrite.withoutRows(tables.paths(BRONZE), "source_file", files, runId);
      List<String> bronzeDead =
          tables.paths(QUARANTINE).stream()
              .filter(f -> f.contains("/stage=" + DeadLetter.BRONZE + "/"))
              .toList();
      TableRewrite.Rewritten dead =
          TableRewrite.withoutRows(bronzeDead, "source_name", files, runId);
      System.err.println(
          "users: re-ingesting "
              + changed.size()
              + " changed --input file(s); their "
              + bronze.dropped()
              + " Bronze row(s) and "
              + dead.dropped()
              + " Bronze dead letter(s) are replaced by what the files hold now: "
              + String.join(", ", changed.subList(0, Math.min(10, changed.size())))
              + (changed.size() > 10 ? ", …" : ""));
      return new Reingest(bronze, dead);
    }
  }

  static final Catalog.Table BRONZE = Catalog.byPath(Lakehouse.BRONZE_USERS);
  static final Catalog.Table SILVER = Catalog.byPath(Lakehouse.SILVER_USERS);
  static final Catalog.Table GOLD = Catalog.byPath(Lakehouse.GOLD_USER_FEATURES);
  static final Catalog.Table QUARANTINE = Catalog.byPath(Lakehouse.QUARANTINE_USERS);

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> out = new ArrayList<>(a);
    out.addAll(b);
    return out;
  }

  private static void validate(UsersOptions o) {
    InputFormat.of(o.getInputFormat());
    InputFiles.mapping(o.getMapping());
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
   * The job's story: the new files' lines and the Bronze rows earlier runs committed ({@code
   * earlierBronze}, the files of Bronze's current snapshot), through {@link UserFeaturesMedallion},
   * into {@link WriteUserTables}: new files in every table's folder, committed after the job.
   */
  static void build(
      Pipeline p,
      List<String> newFiles,
      List<String> earlierBronze,
      Lakehouse lake,
      UsersOptions o) {
    p.begin()
        .apply(
            "UserFeaturesMedallion",
            UserFeaturesMedallion.ingestedAt(Instant.now())
                .withMapping(InputFiles.mapping(o.getMapping()))
                .reading(
                    ReadNdjsonLines.fromFiles(newFiles)
                        .withMaxParts(o.getMaxReadParts())
                        .pausingAboveHeapShare(o.getPauseReadAboveHeapPct() / 100.0)
                        .withFormat(InputFormat.of(o.getInputFormat()))
                        .replay(),
                    ReadTable.ofFiles(earlierBronze, UserEventBronze.class).replay())
                .asOf(o.getAsOf())
                .withChangesBy(o.getCdcKey())
                .withMaxAheadOfIngest(Duration.standardDays(o.getMaxFutureDays()))
                .addingUpInState(!RunnerDefaults.isSpark(o))
                .rereadingForSilver(!RunnerDefaults.isSpark(o)))
        .apply("WriteTables", WriteUserTables.to(lake, o));
  }
}
