package dev.medallion.pipelines;

import dev.medallion.core.DeadLetter;
import dev.medallion.core.Failures;
import dev.medallion.core.InputFormat;
import dev.medallion.core.MedallionException;
import dev.medallion.core.RawEvent;
import dev.medallion.core.ReadNdjsonLines;
import dev.medallion.core.ReadTable;
import dev.medallion.core.StreamEnd;
import dev.medallion.generator.DeviceRegistryWriter;
import dev.medallion.generator.GeneratorConfig;
import dev.medallion.generator.GeneratorSource;
import dev.medallion.iot.BronzeEvent;
import dev.medallion.iot.Device;
import dev.medallion.iot.DeviceRegistry;
import dev.medallion.iot.Heartbeat;
import dev.medallion.iot.IngestToBronze;
import dev.medallion.iot.IotMedallion;
import dev.medallion.iot.SensorCatalog;
import dev.medallion.iot.SensorReading;
import dev.medallion.iot.ValidateAndEnrich;
import dev.medallion.iot.WindowedDeviceStats;
import dev.medallion.lakehouse.Catalog;
import dev.medallion.lakehouse.CrashPoints;
import dev.medallion.lakehouse.InputFiles;
import dev.medallion.lakehouse.LakeTables;
import dev.medallion.lakehouse.Lakehouse;
import dev.medallion.lakehouse.LakehouseLock;
import dev.medallion.lakehouse.RunIds;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.io.Read;
import org.apache.beam.sdk.options.StreamingOptions;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.transforms.WithTimestamps;
import org.apache.beam.sdk.values.PBegin;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.Row;
import org.apache.beam.sdk.values.TupleTag;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * Runs the IoT pipeline, whole or one stage: {@link #build} composes a source, the layer composites
 * ({@link IotMedallion}, or one layer) and the lakehouse sink ({@link WriteIotTables}); {@link
 * #run} adds the table protocol around the Beam job: run id, the replayed files no Bronze commit
 * lists yet, the Iceberg commits (each flush of a stream, or all of a replay or rerun stage after
 * its job), and nothing committed after a failure.
 */
public final class IotJob {
  private IotJob() {}

  /** Which layers a run executes. */
  public enum Stage {
    ALL,
    BRONZE,
    SILVER,
    GOLD
  }

  /**
   * A finished job and the counts its report gives: the rows and dead letters in the files it
   * commits ({@link #countedInFiles}), after its job (a replay, a rerun stage) or as it goes (a
   * stream); a stream that did not finish gives the runner's counters.
   */
  public record Ran(PipelineResult result, Map<String, Long> counts) {}

  /**
   * Runs {@code stage} and waits for it. Returns the finished job, or null when a replay found no
   * file that an earlier run had not ingested (said on stderr). A job that fails leaves nothing
   * half-done and throws a {@link MedallionException} saying why in one line.
   */
  public static @Nullable Ran run(Stage stage, IotOptions options) throws IOException {
    refuseSparkStreamingFromTables(stage, options);
    if (!options.getOutputTopic().isEmpty() && stage != Stage.BRONZE && stage != Stage.SILVER) {
      throw new IllegalArgumentException(OUTPUT_TOPIC_STAGES); // before anything is read
    }
    // Before the lakehouse's lock: a missing topic or broker holds no one's layers.
    KafkaTopics.requireExisting(
        options,
        isStream(stage, options) && !options.getInputTopic().isEmpty(),
        stage == Stage.BRONZE || stage == Stage.SILVER);
    LakeTables.Config config = LakeTables.Config.of(options);
    try (LakehouseLock lock = LakehouseLock.acquire(config, options.getRunId(), layers(stage));
        LakeTables tables = LakeTables.open(config)) {
      if (!options.getInputTopic().isEmpty()) {
        ArrivalWatermark.reset();
      }
      return runLocked(stage, options, tables, lock);
    }
  }

  /**
   * Whether {@code stage} reads a stream: the generator or a Kafka topic ({@code run} and {@code
   * bronze} without {@code --input}; {@code silver} and {@code gold} with {@code --inputTopic}),
   * not files or the layer below's table.
   */
  static boolean isStream(Stage stage, IotOptions options) {
    return stage == Stage.ALL || stage == Stage.BRONZE
        ? options.getInput().isEmpty()
        : !options.getInputTopic().isEmpty();
  }

  /**
   * Whether {@code stage} reads the built-in generator: a stream ({@link #isStream}) not from
   * Kafka.
   */
  static boolean readsTheGenerator(Stage stage, IotOptions options) {
    return isStream(stage, options) && options.getInputTopic().isEmpty();
  }

  /**
   * Spark's streaming mode reads only the generator and Kafka; a Silver or Gold stage without
   * {@code --inputTopic} reads the layer below from its table's files, which failed there deep in
   * the runner (a {@code NullPointerException} in its translation).
   */
  static void refuseSparkStreamingFromTables(Stage stage, IotOptions options) {
    if ((stage == Stage.SILVER || stage == Stage.GOLD)
        && options.getInputTopic().isEmpty()
        && RunnerDefaults.isSpark(options)
        && options.as(StreamingOptions.class).isStreaming()) {
      String layer = stage.name().toLowerCase();
      throw new IllegalArgumentException(
          "--streaming=true on the SparkRunner reads only the generator or a Kafka topic: "
              + layer
              + " without --inputTopic reads the "
              + (stage == Stage.SILVER ? "Bronze" : "Silver")
              + " table, which runs in batch, so leave --streaming out (or read the topic with"
              + " --inputTopic)");
    }
  }

  /** The layers a stage writes: it holds their locks, so stages of other layers run beside it. */
  private static List<String> layers(Stage stage) {
    return stage == Stage.ALL ? LakehouseLock.LAYERS : List.of(stage.name().toLowerCase());
  }

  private static @Nullable Ran runLocked(
      Stage stage, IotOptions options, LakeTables tables, LakehouseLock lock) throws IOException {
    String name = "medallion " + (stage == Stage.ALL ? "run" : stage.name().toLowerCase());
    String runId = options.getRunId();
    Lakehouse lake = new Lakehouse(tables.config().root());
    // Another layer's run may be live beside a stage: then only its own layer is tidied.
    int finished =
        lock.holdsOrFree(tables.config(), LakehouseLock.LAYERS) ? tables.rollForward() : 0;
    if (finished > 0) {
      System.err.println(name + ": finished " + finished + " commit(s) of a killed run");
    }
    List<String> discarded = RunIds.discardUnfinished(lake, tables, runId, lock);
    if (!discarded.isEmpty()) {
      System.err.println(
          name + ": removed the uncommitted files of killed or failed run(s) " + discarded);
    }
    if (options.getReingest() && stage != Stage.ALL) {
      throw new IllegalArgumentException(
          "--reingest is for run, which computes Silver and Gold again too; to correct a file"
              + " with one stage alone, give it a new name");
    }
    if ((stage == Stage.ALL || stage == Stage.BRONZE)
        && options.getInput().isEmpty()
        && !options.getInputTopic().isEmpty()) {
      KafkaResume.commitFromTables(options, tables, name, stage == Stage.BRONZE);
    } else if (stage == Stage.SILVER && !options.getInputTopic().isEmpty()) {
      KafkaResume.commitFromSilver(options, tables, name);
    }
    Optional<GoldSeed.Point> open = Optional.empty(); // held in Gold's table while the run goes
    Optional<GoldSeed.Point> seed = Optional.empty();
    if (stage == Stage.GOLD && !options.getInputTopic().isEmpty()) {
      open = GoldSeed.find(options, tables, name);
      seed = open;
      if (seed.isPresent() && RunnerDefaults.isSpark(options) && options.getMaxRecords() == 0) {
        // A bounded read in a Spark streaming job is read again every micro-batch (Impulse is a
        // constant stream there), and the job would never end: no seed, said.
        System.err.println(
            name
                + ": on Spark streaming, Gold does not fill its windows with the committed Silver"
                + " rows; a window open when a Gold run is killed (or stopped) stays short until"
                + " Gold is rebuilt (./medallion gold, without --inputTopic)");
        seed = Optional.empty();
      }
      if (seed.isPresent()) {
        GoldSeed.awaitSilverFlush(options, tables, lock, name);
        System.err.println(
            name
                + ": windows from "
                + seed.get().from()
                + " are filled with the committed Silver rows too (an event read twice counts once)");
      }
    }
    InputFiles.NewInput input = replayFiles(stage, options, tables, name);
    List<String> files = input == null ? null : input.fresh();
    if (files != null && files.isEmpty()) {
      return null;
    }
    IotReingest reingest = IotReingest.NONE;
    if (input != null && !input.reingested().isEmpty()) {
      RunIds.claim(lake, runId, layers(stage)); // the rewritten files are the run's, first
      try {
        reingest = IotReingest.of(input.reingested(), tables, runId, name);
      } catch (IOException | RuntimeException e) {
        RunIds.abandon(lake, tables, runId);
        throw e;
      }
    }
    // A stream (the generator) commits each flush inside the job; a replay or a rerun stage
    // commits after it, all or nothing.
    boolean streams = files == null && isStream(stage, options);
    Pipeline p = Pipeline.create(options);
    // Built before anything is written: a bad flag or registry leaves the lakehouse untouched.
    try {
      build(p, stage, options, files, tables, streams, reingest, seed);
    } catch (RuntimeException e) {
      if (reingest != IotReingest.NONE) {
        RunIds.abandon(lake, tables, runId);
      }
      throw e;
    }
    if (reingest == IotReingest.NONE) {
      RunIds.claim(lake, runId, layers(stage));
    }
    open.ifPresent(point -> GoldSeed.hold(tables, point));
    System.err.println(
        name + ": run " + runId + " -> " + options.getLakehouse() + source(stage, options));
    PipelineResult result;
    try {
      result = runWithProgress(p, stage, options, tables, runId, streams);
    } catch (RuntimeException e) {
      if (!streams) {
        RunIds.abandon(lake, tables, runId);
      }
      // A stream's commits may still be finishing in the job's threads: its marker stays
      // started, and the next writing run deletes what it left uncommitted.
      throw new MedallionException("the pipeline failed: " + Failures.oneLine(e), e);
    }
    Map<String, Long> counts = Progress.counters(result);
    boolean failed = result.getState() != PipelineResult.State.DONE;
    if (failed) {
      if (!streams) {
        RunIds.abandon(lake, tables, runId); // nothing committed; marked failed, not ended
      } else {
        return new Ran(result, counts);
      }
    } else if (streams) {
      counts = countedInCommits(stage, counts, tables, runId, name);
      // The job has stopped: a file of this run no commit lists is a write that failed or that a
      // retried task repeated (WriteTable), or a last flush a Spark stream stopped before it
      // committed; none of them is in a table.
      RunIds.discard(tables, runId);
    } else {
      if (reingest == IotReingest.NONE) {
        try {
          counts = countedInFiles(stage, counts, tables, runId, false, System.err);
        } catch (IOException | RuntimeException e) {
          RunIds.abandon(lake, tables, runId);
          throw e;
        }
      }
      CrashPoints.reached(CrashPoints.BEFORE_COMMIT);
      tables.commit(
          runId,
          reingest != IotReingest.NONE
              ? reingest.steps(tables, runId)
              : steps(stage, tables, runId),
          input == null ? Map.of() : LakeTables.ingestedSummary(input));
      // Files a retried or recomputed bundle left (listed in no manifest, so not committed).
      RunIds.discard(tables, runId);
    }
    if (stage == Stage.GOLD) {
      GoldSeed.release(tables); // every window it held is written (or Gold was recomputed)
    }
    if (!failed) {
      RunIds.end(lake, runId);
    }
    return new Ran(result, counts);
  }

  /**
   * A finished stream's counts from the files its commits added ({@link #countedInFiles}); its
   * counters, said, when those cannot be read.
   */
  private static Map<String, Long> countedInCommits(
      Stage stage, Map<String, Long> counters, LakeTables tables, String runId, String name) {
    try {
      return countedInFiles(stage, counters, tables, runId, true, System.err);
    } catch (IOException | RuntimeException e) {
      System.err.println(
          name
              + ": cannot count the rows this run committed ("
              + Failures.oneLine(e)
              + "); the counts below are the runner's counters");
      return counters;
    }
  }

  /**
   * {@code counters} with the counts of rows and dead letters taken from the files the run adds to
   * the layers {@code stage} writes ({@link FileCounts}): Bronze's rows, Silver's readings and
   * heartbeats, each Gold table's rows (every pane), and the quarantine's dead letters by stage and
   * reason. The files are those its job's manifests list, which its commit is about to add, or, for
   * a stream ({@code committed}), those its commits added. Says on {@code err} when the counters
   * differ.
   */
  static Map<String, Long> countedInFiles(
      Stage stage,
      Map<String, Long> counters,
      LakeTables tables,
      String runId,
      boolean committed,
      java.io.PrintStream err)
      throws IOException {
    List<String> layers = layers(stage);
    StringBuilder fromFiles =
        new StringBuilder("(" + String.join("|", layers) + ")_rejected(_.*)?");
    if (layers.contains(DeadLetter.BRONZE)) {
      fromFiles.append("|bronze_accepted");
    }
    if (layers.contains(DeadLetter.SILVER)) {
      fromFiles.append("|silver_accepted");
    }
    if (layers.contains(DeadLetter.GOLD)) {
      fromFiles.append("|gold_(device|site|sensor)_minute_rows");
    }
    return FileCounts.prefer(
        "medallion",
        counters,
        inFiles(FileCounter.EXACT, stage, tables, runId, committed),
        java.util.regex.Pattern.compile(fromFiles.toString()),
        err);
  }

  /**
   * The rows and dead letters of the files of the layers {@code stage} writes, as counters name
   * them: those the run's commits added ({@code committed}: a stream), or those its job lists for
   * its commit, or, before the job has listed them, every file it has written so far.
   */
  private static Map<String, Long> inFiles(
      FileCounter count, Stage stage, LakeTables tables, String runId, boolean committed)
      throws IOException {
    List<String> layers = layers(stage);
    Map<String, Long> files = new java.util.TreeMap<>();
    List<String> deadLetters = new ArrayList<>();
    Catalog.Table quarantine = Catalog.byPath(Lakehouse.QUARANTINE_IOT);
    for (String layer : layers) {
      files.put(layer + "_rejected", 0L);
      deadLetters.addAll(filesOf(tables, quarantine, runId, "stage=" + layer, committed));
    }
    files.putAll(count.deadLetters(deadLetters, ""));
    if (layers.contains(DeadLetter.BRONZE)) {
      files.put("bronze_accepted", rows(count, tables, runId, Lakehouse.BRONZE_IOT, committed));
    }
    if (layers.contains(DeadLetter.SILVER)) {
      files.put(
          "silver_accepted",
          rows(count, tables, runId, Lakehouse.SILVER_READINGS, committed)
              + rows(count, tables, runId, Lakehouse.SILVER_HEARTBEATS, committed));
    }
    if (layers.contains(DeadLetter.GOLD)) {
      for (String gold :
          List.of(
              Lakehouse.GOLD_DEVICE_MINUTE,
              Lakehouse.GOLD_SITE_MINUTE,
              Lakehouse.GOLD_SENSOR_MINUTE)) {
        files.put(
            Catalog.byPath(gold).name() + "_rows", rows(count, tables, runId, gold, committed));
      }
    }
    return files;
  }

  private static long rows(
      FileCounter count, LakeTables tables, String runId, String path, boolean committed)
      throws IOException {
    return count.rows(filesOf(tables, Catalog.byPath(path), runId, "", committed));
  }

  private static List<String> filesOf(
      LakeTables tables, Catalog.Table def, String runId, String under, boolean committed) {
    return committed ? tables.committedBy(def, runId, under) : tables.listedBy(def, runId, under);
  }

  /** The job with its progress line; a Kafka-fed stage's line shows its group's lag too. */
  private static PipelineResult runWithProgress(
      Pipeline p, Stage stage, IotOptions o, LakeTables tables, String runId, boolean streams) {
    FileCounter live = FileCounter.live();
    java.util.function.Supplier<Map<String, Long>> written =
        () -> {
          try {
            return inFiles(live, stage, tables, runId, streams);
          } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        };
    if (o.getInputTopic().isEmpty() || !o.getInput().isEmpty()) {
      return Progress.runAndWait(p, null, written);
    }
    String group = KafkaReads.group(o, stage == Stage.ALL ? "bronze" : stage.name().toLowerCase());
    try (KafkaLag lag =
        new KafkaLag(o.getBootstrapServers(), o.getInputTopic(), o.getOutputTopic(), group)) {
      return Progress.runAndWait(p, lag, written);
    }
  }

  /**
   * What a run commits after its job: a replay appends to every table, Bronze first (with the files
   * it ingested); a rerun Silver or Gold stage replaces its tables and its quarantine stage.
   */
  private static List<LakeTables.Step> steps(Stage stage, LakeTables tables, String runId) {
    List<LakeTables.Step> steps = new ArrayList<>();
    if (stage == Stage.SILVER || stage == Stage.GOLD) {
      List<String> layer =
          stage == Stage.SILVER
              ? List.of(Lakehouse.SILVER_READINGS, Lakehouse.SILVER_HEARTBEATS)
              : List.of(
                  Lakehouse.GOLD_DEVICE_MINUTE,
                  Lakehouse.GOLD_SITE_MINUTE,
                  Lakehouse.GOLD_SENSOR_MINUTE);
      for (String path : layer) {
        Catalog.Table t = Catalog.byPath(path);
        steps.add(
            LakeTables.Step.of(t.name(), LakeTables.Op.REPLACE_ALL, tables.listedBy(t, runId, "")));
      }
      String deadStage = stage == Stage.SILVER ? DeadLetter.SILVER : DeadLetter.GOLD;
      Catalog.Table q = Catalog.byPath(Lakehouse.QUARANTINE_IOT);
      steps.add(
          LakeTables.Step.replaceWhere(
              q.name(),
              "stage",
              List.of(deadStage),
              tables.listedBy(q, runId, "stage=" + deadStage)));
      return steps;
    }
    for (String path : Lakehouse.IOT_TABLES) {
      Catalog.Table t = Catalog.byPath(path);
      steps.add(LakeTables.Step.of(t.name(), LakeTables.Op.APPEND, tables.listedBy(t, runId, "")));
    }
    return steps;
  }

  private static String source(Stage stage, IotOptions o) {
    if (!o.getInputTopic().isEmpty()) {
      return " (Kafka topic "
          + o.getInputTopic()
          + " on "
          + o.getBootstrapServers()
          + ", group "
          + KafkaReads.group(o, stage == Stage.ALL ? "bronze" : stage.name().toLowerCase())
          + (o.getMaxRecords() > 0 ? ", " + o.getMaxRecords() + " records" : "")
          + ")";
    }
    if (stage == Stage.SILVER || stage == Stage.GOLD || !o.getInput().isEmpty()) {
      return "";
    }
    return " (generator: "
        + o.getDurationMinutes()
        + " min of event time at "
        + o.getSpeedup()
        + "x)";
  }

  /**
   * The files a replay ingests: those of {@code --input} no earlier replay committed to Bronze,
   * with their versions (null when the stage reads the generator or a table); no fresh file means
   * there is nothing new, said on stderr, as are the ingested files that changed since.
   */
  private static InputFiles.@Nullable NewInput replayFiles(
      Stage stage, IotOptions options, LakeTables tables, String name) throws IOException {
    if (options.getInput().isEmpty() || stage == Stage.SILVER || stage == Stage.GOLD) {
      return null;
    }
    Map<String, String> matching = InputFiles.versions(options.getInput());
    if (matching.isEmpty()) {
      throw new IllegalArgumentException("--input matches no file: " + options.getInput());
    }
    Catalog.Table bronze = Catalog.byPath(Lakehouse.BRONZE_IOT);
    InputFiles.NewInput input =
        InputFiles.NewInput.of(matching, tables.ingested(bronze), tables.ingestedVersions(bronze));
    if (options.getReingest()) {
      input = input.reingestingChanged(matching);
    } else {
      input.sayChanged(name);
    }
    List<String> fresh = input.fresh();
    if (fresh.isEmpty()) {
      System.err.println(
          name + ": every --input file was already ingested by an earlier run; nothing to do");
    } else if (fresh.size() < matching.size()) {
      System.err.println(
          name
              + ": "
              + (matching.size() - fresh.size())
              + " of "
              + matching.size()
              + " --input file(s) were already ingested by an earlier run; reading the others");
    }
    return input;
  }

  /**
   * Wires {@code stage} on {@code p}, reading and writing {@code --lakehouse}, each flush committed
   * inside the job; for tests.
   */
  public static void build(Pipeline p, Stage stage, IotOptions options) {
    try (LakeTables tables = LakeTables.open(options)) {
      build(p, stage, options, null, tables, true, IotReingest.NONE, Optional.empty());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /**
   * The job's story: a source ({@code files}, else {@code --input}, else the generator; or the
   * previous layer's committed tables), then the whole medallion or one layer, then every table the
   * layers produced, written to the lakehouse (each flush committed when {@code commitEachFlush}).
   */
  static void build(
      Pipeline p,
      Stage stage,
      IotOptions o,
      @Nullable List<String> files,
      LakeTables tables,
      boolean commitEachFlush,
      IotReingest reingest,
      Optional<GoldSeed.Point> goldSeed) {
    Duration allowed = Duration.standardSeconds(o.getAllowedLatenessSeconds());
    Duration slack = Duration.standardSeconds(o.getWatermarkSlackSeconds());
    Duration maxAhead = Duration.standardSeconds(o.getMaxFutureSeconds());
    if (o.getMaxFutureSeconds() < 0 || o.getAllowedLatenessSeconds() < 0) {
      throw new IllegalArgumentException(
          "--maxFutureSeconds and --allowedLatenessSeconds must be 0 or more");
    }
    PCollectionTuple layers =
        switch (stage) {
          case ALL ->
              reingest != IotReingest.NONE
                  ? reingested(p, o, files, tables, reingest)
                  : source(p, o, files)
                      .apply(
                          "IotMedallion",
                          forRunner(
                              o,
                              IotMedallion.withRegistry(registry(o))
                                  .withLateness(allowed, slack)
                                  .withMaxAheadOfArrival(maxAhead)
                                  .withMapping(InputFiles.mapping(o.getMapping()))
                                  .withCatalog(sensorCatalog(o))));
          case BRONZE ->
              source(p, o, files)
                  .apply(
                      "Bronze",
                      IngestToBronze.create().withMapping(InputFiles.mapping(o.getMapping())));
          case SILVER -> {
            ValidateAndEnrich silver =
                ValidateAndEnrich.withRegistry(registry(o))
                    .withMaxAheadOfArrival(maxAhead)
                    .withCatalog(sensorCatalog(o));
            if (!o.getOutputTopic().isEmpty()) {
              silver = silver.withKeptInOrder(); // forwarded in that order (forward, below)
            }
            if (o.getInputTopic().isEmpty()) {
              yield read(
                      p, tables, Lakehouse.BRONZE_IOT, BronzeEvent.class, BronzeEvent::getEventTs)
                  .apply("Silver", silver);
            }
            PCollectionTuple forwarded = p.apply("Kafka", ReadForwardedRows.bronze(o));
            yield withDeadLetters(
                forwarded.get(IotMedallion.BRONZE).apply("Silver", silver), forwarded);
          }
          case GOLD -> {
            WindowedDeviceStats gold =
                forRunner(
                    o,
                    WindowedDeviceStats.of(allowed, slack)
                        .withCatalog(sensorCatalog(o))
                        .withExpectedDevices(o.getDevices().isEmpty() ? 0 : registry(o).size()));
            if (!o.getInputTopic().isEmpty()) {
              PCollectionTuple forwarded = p.apply("Kafka", ReadForwardedRows.silver(o));
              PCollectionTuple silver =
                  goldSeed.isPresent()
                      ? seeded(p, forwarded, tables, goldSeed.get(), o)
                      : forwarded;
              PCollectionTuple computed = silver.apply("Gold", gold);
              if (goldSeed.isPresent()) {
                computed = withoutJudged(computed, goldSeed.get());
              }
              yield withDeadLetters(computed, forwarded);
            }
            yield PCollectionTuple.of(
                    IotMedallion.READINGS,
                    read(
                        p,
                        tables,
                        Lakehouse.SILVER_READINGS,
                        SensorReading.class,
                        SensorReading::getEventTs))
                .and(
                    IotMedallion.HEARTBEATS,
                    read(
                        p,
                        tables,
                        Lakehouse.SILVER_HEARTBEATS,
                        Heartbeat.class,
                        Heartbeat::getEventTs))
                .apply("Gold", gold);
          }
        };
    declareGoldColumns(layers, tables);
    if (!o.getOutputTopic().isEmpty()) {
      forward(layers, stage, o);
    }
    WriteIotTables sink = WriteIotTables.to(new Lakehouse(tables.config().root()), o);
    layers.apply("WriteTables", commitEachFlush ? sink.committingEachFlush(tables.config()) : sink);
  }

  private static final String OUTPUT_TOPIC_STAGES =
      "--outputTopic forwards what a stage keeps to the next one: it is for the bronze and silver"
          + " stages";

  /**
   * {@code --outputTopic}: the bronze stage forwards its Bronze rows, the silver stage its readings
   * and heartbeats in the order it kept them, for the next stage to read.
   */
  private static void forward(PCollectionTuple layers, Stage stage, IotOptions o) {
    String servers = o.getBootstrapServers();
    String topic = o.getOutputTopic();
    switch (stage) {
      case BRONZE ->
          layers
              .get(IotMedallion.BRONZE)
              .apply(
                  "Forward",
                  ForwardToKafka.to(
                      servers, topic, BronzeEvent::getDeviceId, BronzeEvent::getReceivedAt));
      case SILVER ->
          layers
              .get(ValidateAndEnrich.KEPT)
              .apply("Forward", ForwardToKafka.silverRows(servers, topic));
      default -> throw new IllegalArgumentException(OUTPUT_TOPIC_STAGES);
    }
  }

  /** A layer's output with the dead letters of its Kafka read added to its own. */
  private static PCollectionTuple withDeadLetters(PCollectionTuple layer, PCollectionTuple read) {
    PCollection<DeadLetter> all =
        PCollectionList.of(layer.get(IotMedallion.DEAD_LETTERS))
            .and(read.get(IotMedallion.DEAD_LETTERS))
            .apply("WithReadDeadLetters", Flatten.pCollections());
    return withDeadLetters(layer, all);
  }

  /** {@code layer} with {@code deadLetters} as its dead letters. */
  private static PCollectionTuple withDeadLetters(
      PCollectionTuple layer, PCollection<DeadLetter> deadLetters) {
    PCollectionTuple out = PCollectionTuple.of(IotMedallion.DEAD_LETTERS, deadLetters);
    for (Map.Entry<TupleTag<?>, PCollection<?>> e : layer.getAll().entrySet()) {
      if (!e.getKey().equals(IotMedallion.DEAD_LETTERS)) {
        out = and(out, e.getKey(), e.getValue());
      }
    }
    return out;
  }

  /**
   * Gold's dead letters without the too-late records its quarantine holds already: a Gold stage
   * over Kafka reads again what a killed run read after its group's last commit.
   */
  private static final org.apache.beam.sdk.metrics.Counter TOO_LATE_BEFORE =
      org.apache.beam.sdk.metrics.Metrics.counter(
          dev.medallion.core.Rejections.NAMESPACE, "gold_too_late_judged_before");

  private static PCollectionTuple withoutJudged(PCollectionTuple gold, GoldSeed.Point point) {
    java.util.Set<String> judged = point.judged();
    PCollection<DeadLetter> fresh =
        gold.get(IotMedallion.DEAD_LETTERS)
            .apply(
                "NotJudgedBefore",
                org.apache.beam.sdk.transforms.Filter.by(
                    (DeadLetter d) -> {
                      boolean before =
                          d.getReason().equals("too_late") && judged.contains(d.getSource());
                      if (before) {
                        TOO_LATE_BEFORE.inc();
                      }
                      return !before;
                    }));
    return withDeadLetters(gold, fresh);
  }

  @SuppressWarnings("unchecked") // a tag and its collection, as the tuple held them
  private static <T> PCollectionTuple and(
      PCollectionTuple tuple, TupleTag<T> tag, PCollection<?> values) {
    return tuple.and(tag, (PCollection<T>) values);
  }

  /**
   * The wide Gold tables get the columns of this run's sensor catalog before anything is written:
   * created with them, or given those they lack (nullable; columns of types no longer in the
   * catalog stay, null from now on).
   */
  private static void declareGoldColumns(PCollectionTuple layers, LakeTables tables) {
    for (Map.Entry<TupleTag<Row>, String> gold :
        Map.of(
                IotMedallion.DEVICE_MINUTE, Lakehouse.GOLD_DEVICE_MINUTE,
                IotMedallion.SITE_MINUTE, Lakehouse.GOLD_SITE_MINUTE)
            .entrySet()) {
      if (layers.has(gold.getKey())) {
        tables.declare(
            Catalog.byPath(gold.getValue()).withSchema(layers.get(gold.getKey()).getSchema()));
      }
    }
  }

  /** A committed table of the previous layer, each record stamped with its event time. */
  private static <T> PCollection<T> read(
      Pipeline p,
      LakeTables tables,
      String table,
      Class<T> type,
      SerializableFunction<T, Instant> eventTs) {
    return read(p, table, tables.paths(Catalog.byPath(table)), type, eventTs);
  }

  private static <T> PCollection<T> read(
      Pipeline p,
      String table,
      List<String> files,
      Class<T> type,
      SerializableFunction<T, Instant> eventTs) {
    return p.apply("Read " + table, ReadTable.ofFiles(files, type))
        .apply("EventTime " + table, WithTimestamps.of(eventTs));
  }

  /**
   * What a Gold stage over Kafka reads, and the committed Silver rows of the windows a restart can
   * have left short ({@link GoldSeed}); as read when there are none.
   */
  private static PCollectionTuple seeded(
      Pipeline p, PCollectionTuple read, LakeTables tables, GoldSeed.Point point, IotOptions o) {
    List<String> readings = GoldSeed.silverFiles(tables, Lakehouse.SILVER_READINGS, point.from());
    List<String> heartbeats =
        GoldSeed.silverFiles(tables, Lakehouse.SILVER_HEARTBEATS, point.from());
    if (readings.isEmpty() && heartbeats.isEmpty()) {
      return read;
    }
    PCollectionTuple seed =
        p.apply(
            "SeedFromSilver",
            new SeedFromSilver(
                readings,
                heartbeats,
                point,
                Duration.standardSeconds(o.getAllowedLatenessSeconds()),
                Duration.standardSeconds(o.getDisorderSeconds())));
    return PCollectionTuple.of(
            IotMedallion.READINGS,
            withCommitted(read.get(IotMedallion.READINGS), seed.get(IotMedallion.READINGS)))
        .and(
            IotMedallion.HEARTBEATS,
            withCommitted(read.get(IotMedallion.HEARTBEATS), seed.get(IotMedallion.HEARTBEATS)));
  }

  /** A layer's new records and its committed ones, as one collection. */
  private static <T> PCollection<T> withCommitted(PCollection<T> fresh, PCollection<T> committed) {
    return PCollectionList.of(fresh)
        .and(committed)
        .apply("WithCommitted " + committed.getName(), Flatten.pCollections());
  }

  /**
   * A re-ingest ({@code run --reingest}): the files read through Bronze and Silver like new ones,
   * and Gold computed again from the whole of Silver, its committed rows (rewritten without the
   * changed files') and the new ones together.
   */
  private static PCollectionTuple reingested(
      Pipeline p, IotOptions o, List<String> files, LakeTables tables, IotReingest reingest) {
    Map<String, Device> registry = registry(o);
    PCollectionTuple bronze =
        source(p, o, files)
            .apply(
                "Bronze", IngestToBronze.create().withMapping(InputFiles.mapping(o.getMapping())));
    PCollectionTuple silver =
        bronze
            .get(IotMedallion.BRONZE)
            .apply(
                "Silver",
                ValidateAndEnrich.withRegistry(registry)
                    .withMaxAheadOfArrival(Duration.standardSeconds(o.getMaxFutureSeconds()))
                    .withCatalog(sensorCatalog(o)));
    PCollection<SensorReading> readings =
        withCommitted(
            silver.get(IotMedallion.READINGS),
            read(
                p,
                Lakehouse.SILVER_READINGS,
                reingest.readings().appliedTo(tables.paths(IotReingest.READINGS)),
                SensorReading.class,
                SensorReading::getEventTs));
    PCollection<Heartbeat> heartbeats =
        withCommitted(
            silver.get(IotMedallion.HEARTBEATS),
            read(
                p,
                Lakehouse.SILVER_HEARTBEATS,
                reingest.heartbeats().appliedTo(tables.paths(IotReingest.HEARTBEATS)),
                Heartbeat.class,
                Heartbeat::getEventTs));
    PCollectionTuple gold =
        PCollectionTuple.of(IotMedallion.READINGS, readings)
            .and(IotMedallion.HEARTBEATS, heartbeats)
            .apply(
                "Gold",
                forRunner(
                    o,
                    WindowedDeviceStats.of(
                            Duration.standardSeconds(o.getAllowedLatenessSeconds()),
                            Duration.standardSeconds(o.getWatermarkSlackSeconds()))
                        .withCatalog(sensorCatalog(o))
                        .withExpectedDevices(registry.size())));
    PCollection<DeadLetter> deadLetters =
        PCollectionList.of(bronze.get(IotMedallion.DEAD_LETTERS))
            .and(silver.get(IotMedallion.DEAD_LETTERS))
            .and(gold.get(IotMedallion.DEAD_LETTERS))
            .apply("AllDeadLetters", Flatten.pCollections());
    return PCollectionTuple.of(IotMedallion.BRONZE, bronze.get(IotMedallion.BRONZE))
        .and(IotMedallion.READINGS, silver.get(IotMedallion.READINGS))
        .and(IotMedallion.HEARTBEATS, silver.get(IotMedallion.HEARTBEATS))
        .and(IotMedallion.DEVICE_MINUTE, gold.get(IotMedallion.DEVICE_MINUTE))
        .and(IotMedallion.SITE_MINUTE, gold.get(IotMedallion.SITE_MINUTE))
        .and(IotMedallion.SENSOR_MINUTE, gold.get(IotMedallion.SENSOR_MINUTE))
        .and(IotMedallion.DEAD_LETTERS, deadLetters);
  }

  /**
   * Generated lines a DirectRunner reader hands on together, ten batches to a bundle. Generated
   * lines are small and at full speed all due, so a bundle holds up to 200,000: 1,047,471 lines
   * (500 devices at full speed) took 22.7 and 23.1 s from the first Bronze row to the last Gold
   * row, against 24.6 and 26.2 s in batches of 10,000 and 40.8 and 41.3 s in Kafka's 1,000
   * (2026-12-05), with the same current Gold and the same records too late.
   */
  static final int GENERATOR_BATCH = 20_000;

  /**
   * The given files, else the files of {@code --input}, else {@code --inputTopic} on Kafka, else
   * the built-in generator.
   */
  static PCollection<RawEvent> source(Pipeline p, IotOptions o, @Nullable List<String> files) {
    if (files == null && o.getInput().isEmpty() && !o.getInputTopic().isEmpty()) {
      return p.apply("Kafka", ReadKafkaLines.from(o));
    }
    if (files != null) {
      return p.apply(
          "ReadNdjson",
          ReadNdjsonLines.fromFiles(files)
              .withMaxParts(o.getMaxReadParts())
              .pausingAboveHeapShare(o.getPauseReadAboveHeapPct() / 100.0)
              .withFormat(InputFormat.of(o.getInputFormat())));
    }
    if (!o.getInput().isEmpty()) {
      try {
        Set<String> matching = InputFiles.matching(o.getInput());
        if (matching.isEmpty()) {
          throw new IllegalArgumentException("--input matches no file: " + o.getInput());
        }
        return p.apply(
            "ReadNdjson",
            ReadNdjsonLines.fromFiles(new ArrayList<>(matching))
                .withMaxParts(o.getMaxReadParts())
                .pausingAboveHeapShare(o.getPauseReadAboveHeapPct() / 100.0)
                .withFormat(InputFormat.of(o.getInputFormat())));
      } catch (IOException e) {
        throw new IllegalArgumentException(
            "cannot list --input " + o.getInput() + ": " + e.getMessage());
      }
    }
    GeneratorSource generator =
        new GeneratorSource(generatorConfig(o), o.getSpeedup())
            .withEndWatermark(StreamEnd.watermark(RunnerDefaults.isSpark(o)));
    // On the DirectRunner, read in batches of the lines that are due, as Kafka is read: the runner
    // takes at most ten records of an unbounded reader per bundle, and every bundle costs it the
    // same bookkeeping. Read plainly, 500 devices at full speed had given 40,000 lines after 600 s;
    // in batches, 96,700 lines took 81 s in all (2026-12-04). Spark reads the source for a share
    // of each micro-batch, and keeps the plain read.
    PTransform<PBegin, PCollection<RawEvent>> read =
        RunnerDefaults.isSpark(o)
            ? Read.from(generator)
            : ReadInBatches.of(generator, GENERATOR_BATCH);
    return PBegin.in(p).apply("Generator", read);
  }

  public static GeneratorConfig generatorConfig(IotOptions o) {
    if (o.getSpeedup() <= 0) {
      throw new IllegalArgumentException("--speedup must be positive, got " + o.getSpeedup());
    }
    Instant start;
    try {
      start = Instant.parse(o.getStart());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--start is not an ISO-8601 instant: " + o.getStart());
    }
    return GeneratorConfig.clean(
            o.getSeed(),
            o.getGeneratorDevices(),
            start,
            Duration.standardMinutes(o.getDurationMinutes()))
        .withKnobs(
            o.getMalformedRate(),
            o.getDuplicateRate(),
            o.getLateRate(),
            Duration.standardSeconds(o.getLateDelaySeconds()),
            o.getOutOfRangeRate(),
            o.getUnknownDeviceRate(),
            o.getMissingHeartbeatRate());
  }

  /** The sensor catalog of {@code --sensorCatalog}, else the built-in one. A clear error else. */
  static SensorCatalog sensorCatalog(IotOptions o) {
    if (o.getSensorCatalog().isBlank()) {
      return SensorCatalog.DEFAULT;
    }
    try {
      return SensorCatalog.load(o.getSensorCatalog());
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "cannot read the sensor catalog " + o.getSensorCatalog() + ": " + e.getMessage(), e);
    }
  }

  /**
   * Gold's grouping as suits the runner. Off Spark, Gold joins a stream's devices in groups ({@link
   * WindowedDeviceStats#withStreamsInGroups}). A Spark stream is joined device by device as before:
   * grouping needs a step with state, which Beam's Spark runner keeps in Spark's streaming state,
   * and that has not been tried with these stages (see bench/HISTORY.md, Streaming). On Spark a
   * bounded input's groups are keyed per minute ({@link WindowedDeviceStats#withKeysPerMinute}):
   * its runner holds a key's values of every window at once, and the DirectRunner pays per key.
   */
  static IotMedallion forRunner(IotOptions o, IotMedallion medallion) {
    return RunnerDefaults.isSpark(o)
        ? medallion.withKeysPerMinute()
        : medallion.withStreamsInGroups();
  }

  static WindowedDeviceStats forRunner(IotOptions o, WindowedDeviceStats gold) {
    return RunnerDefaults.isSpark(o) ? gold.withKeysPerMinute() : gold.withStreamsInGroups();
  }

  /**
   * The device registry: {@code --devices}; without it, the registry of the built-in generator's
   * devices ({@code --generatorDevices}). A replay of files ({@code --input}) needs its registry
   * named.
   */
  static Map<String, Device> registry(IotOptions o) {
    InputFormat.of(o.getInputFormat()); // a wrong --inputFormat fails before anything starts
    InputFiles.mapping(o.getMapping()); // and so does a mapping file that is wrong
    sensorCatalog(o); // or a sensor catalog
    if (o.getDevices().isEmpty()) {
      if (!o.getInput().isEmpty()) {
        throw new IllegalArgumentException(
            "--devices is required: the device registry CSV of the devices in the data"
                + " (device_id,site,zone; optional latitude,longitude,model,installed_at), e.g."
                + " --devices=testdata/devices.csv for the repository's sample");
      }
      return DeviceRegistry.parse(
          DeviceRegistryWriter.csv(o.getGeneratorDevices()), "the generator's registry");
    }
    try {
      return DeviceRegistry.load(o.getDevices(), DeviceRegistry.columns(o.getDeviceColumns()));
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "cannot read the device registry " + o.getDevices() + ": " + e.getMessage());
    }
  }
}
