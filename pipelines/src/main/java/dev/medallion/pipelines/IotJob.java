package dev.medallion.pipelines;

import dev.medallion.core.Failures;
import dev.medallion.core.MedallionException;
import dev.medallion.core.RawEvent;
import dev.medallion.core.ReadNdjsonLines;
import dev.medallion.core.ReadTable;
import dev.medallion.generator.DeviceRegistryWriter;
import dev.medallion.generator.GeneratorConfig;
import dev.medallion.generator.GeneratorSource;
import dev.medallion.iot.BronzeEvent;
import dev.medallion.iot.Device;
import dev.medallion.iot.DeviceRegistry;
import dev.medallion.iot.Heartbeat;
import dev.medallion.iot.IngestToBronze;
import dev.medallion.iot.IotMedallion;
import dev.medallion.iot.SensorReading;
import dev.medallion.iot.ValidateAndEnrich;
import dev.medallion.iot.WindowedDeviceStats;
import dev.medallion.lakehouse.Catalog;
import dev.medallion.lakehouse.CrashPoints;
import dev.medallion.lakehouse.IngestManifest;
import dev.medallion.lakehouse.Lakehouse;
import dev.medallion.lakehouse.LakehouseLock;
import dev.medallion.lakehouse.RunIds;
import dev.medallion.lakehouse.TablePublisher;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.io.Read;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.transforms.WithTimestamps;
import org.apache.beam.sdk.values.PBegin;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * Runs the IoT pipeline, whole or one stage: {@link #build} composes a source, the layer composites
 * ({@link IotMedallion}, or one layer) and the lakehouse sink ({@link WriteIotTables}); {@link
 * #run} adds the table protocol around the Beam job (run id, manifest of replayed files, staging of
 * a rerun stage, undo after a failure).
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
   * Runs {@code stage} and waits for it. Returns the finished job, or null when a replay found no
   * file that an earlier run had not ingested (said on stderr). A job that fails leaves nothing
   * half-done and throws a {@link MedallionException} saying why in one line.
   */
  public static @Nullable PipelineResult run(Stage stage, IotOptions options) throws IOException {
    try (LakehouseLock lock = LakehouseLock.acquire(options.getLakehouse(), options.getRunId())) {
      return runLocked(stage, options);
    }
  }

  private static @Nullable PipelineResult runLocked(Stage stage, IotOptions options)
      throws IOException {
    try {
      Catalog.register(options.getLakehouse());
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "cannot write the catalog of " + options.getLakehouse() + ": " + e.getMessage());
    }
    String name = "medallion " + (stage == Stage.ALL ? "run" : stage.name().toLowerCase());
    String runId = options.getRunId();
    Lakehouse lake = new Lakehouse(options.getLakehouse());
    List<String> abandoned = TablePublisher.discardAbandonedStaging(lake);
    if (!abandoned.isEmpty()) {
      System.err.println(name + ": removed the staging of killed run(s) " + abandoned);
    }
    List<String> files = replayFiles(stage, options, lake, name);
    if (files != null && files.isEmpty()) {
      return null;
    }
    // Silver and Gold alone are recomputed from the whole previous layer: staged, then they
    // replace their tables, so a rerun gives the same tables instead of a second copy.
    boolean replaces = stage == Stage.SILVER || stage == Stage.GOLD;
    Lakehouse staged = new Lakehouse(lake.table(Lakehouse.STAGING + "/" + runId));
    Pipeline p = Pipeline.create(options);
    // Built before anything is written: a bad flag or registry leaves the lakehouse untouched.
    build(p, stage, options, files, lake, replaces ? staged : lake);
    RunIds.claim(lake, runId);
    String manifests = lake.table(Lakehouse.MANIFEST_IOT);
    if (files != null) {
      IngestManifest.begin(manifests, runId, files);
    }
    System.err.println(
        name + ": run " + runId + " -> " + options.getLakehouse() + source(stage, options));
    PipelineResult result;
    try {
      result = Progress.runAndWait(p);
    } catch (RuntimeException e) {
      undo(lake, runId, files, replaces, staged);
      throw new MedallionException("the pipeline failed: " + Failures.oneLine(e), e);
    }
    if (result.getState() != PipelineResult.State.DONE) {
      undo(lake, runId, files, replaces, staged);
    } else if (files != null) {
      CrashPoints.reached(CrashPoints.BEFORE_COMMIT);
      IngestManifest.commit(manifests, runId);
    } else if (replaces) {
      publish(stage, staged, lake);
      TablePublisher.cleanUp(staged.root());
    }
    return result;
  }

  private static String source(Stage stage, IotOptions o) {
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
   * The files a replay ingests: those of {@code --input} no earlier replay ingested (null when the
   * stage reads the generator or a table). A replay that died is undone first, so a rerun of the
   * same input ingests every line once; an empty list means there is nothing new, said on stderr.
   */
  private static @Nullable List<String> replayFiles(
      Stage stage, IotOptions options, Lakehouse lake, String name) throws IOException {
    if (options.getInput().isEmpty() || stage == Stage.SILVER || stage == Stage.GOLD) {
      return null;
    }
    IngestManifest.Plan plan =
        IngestManifest.plan(
            lake, lake.table(Lakehouse.MANIFEST_IOT), Lakehouse.IOT_TABLES, options.getInput());
    if (!plan.undone().isEmpty()) {
      System.err.println(
          name
              + ": undid the unfinished run(s) "
              + plan.undone()
              + "; their files are ingested again");
    }
    if (plan.fresh().isEmpty()) {
      System.err.println(
          name + ": every --input file was already ingested by an earlier run; nothing to do");
    } else if (plan.fresh().size() < plan.matched()) {
      System.err.println(
          name
              + ": "
              + (plan.matched() - plan.fresh().size())
              + " of "
              + plan.matched()
              + " --input file(s) were already ingested by an earlier run; reading the others");
    }
    return plan.fresh();
  }

  /** After a failed run: nothing it wrote stays (its replay files are ingested again later). */
  private static void undo(
      Lakehouse lake,
      String runId,
      @Nullable List<String> files,
      boolean replaces,
      Lakehouse staged)
      throws IOException {
    if (files != null) {
      IngestManifest.undo(lake, lake.table(Lakehouse.MANIFEST_IOT), runId, Lakehouse.IOT_TABLES);
    }
    if (replaces) {
      TablePublisher.discard(staged.root());
    }
  }

  /** A Silver or Gold stage's staged tables replace the lakehouse's. */
  private static void publish(Stage stage, Lakehouse staged, Lakehouse lake) throws IOException {
    List<String> tables =
        stage == Stage.SILVER
            ? List.of(
                Lakehouse.SILVER_READINGS,
                Lakehouse.SILVER_HEARTBEATS,
                Lakehouse.QUARANTINE_IOT + "/stage=silver")
            : List.of(
                Lakehouse.GOLD_DEVICE_MINUTE,
                Lakehouse.GOLD_SITE_MINUTE,
                Lakehouse.QUARANTINE_IOT + "/stage=gold");
    for (String table : tables) {
      TablePublisher.replaceTable(staged.table(table), lake.table(table));
    }
  }

  /** Wires {@code stage} on {@code p}, reading and writing {@code --lakehouse}; for tests. */
  public static void build(Pipeline p, Stage stage, IotOptions options) {
    Lakehouse lake = new Lakehouse(options.getLakehouse());
    build(p, stage, options, null, lake, lake);
  }

  /**
   * The job's story: a source ({@code files}, else {@code --input}, else the generator; or the
   * previous layer's tables in {@code readFrom}), then the whole medallion or one layer, then every
   * table the layers produced, written to {@code writeTo}.
   */
  static void build(
      Pipeline p,
      Stage stage,
      IotOptions o,
      @Nullable List<String> files,
      Lakehouse readFrom,
      Lakehouse writeTo) {
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
              source(p, o, files)
                  .apply(
                      "IotMedallion",
                      IotMedallion.withRegistry(registry(o))
                          .withLateness(allowed, slack)
                          .withMaxAheadOfArrival(maxAhead));
          case BRONZE -> source(p, o, files).apply("Bronze", IngestToBronze.create());
          case SILVER ->
              read(p, readFrom, Lakehouse.BRONZE_IOT, BronzeEvent.class, BronzeEvent::getEventTs)
                  .apply(
                      "Silver",
                      ValidateAndEnrich.withRegistry(registry(o)).withMaxAheadOfArrival(maxAhead));
          case GOLD ->
              PCollectionTuple.of(
                      IotMedallion.READINGS,
                      read(
                          p,
                          readFrom,
                          Lakehouse.SILVER_READINGS,
                          SensorReading.class,
                          SensorReading::getEventTs))
                  .and(
                      IotMedallion.HEARTBEATS,
                      read(
                          p,
                          readFrom,
                          Lakehouse.SILVER_HEARTBEATS,
                          Heartbeat.class,
                          Heartbeat::getEventTs))
                  .apply("Gold", WindowedDeviceStats.of(allowed, slack));
        };
    layers.apply("WriteTables", WriteIotTables.to(writeTo, o));
  }

  /** A table of the previous layer, each record stamped with its event time. */
  private static <T> PCollection<T> read(
      Pipeline p,
      Lakehouse lake,
      String table,
      Class<T> type,
      SerializableFunction<T, Instant> eventTs) {
    return p.apply("Read " + table, ReadTable.of(lake.table(table), type))
        .apply("EventTime " + table, WithTimestamps.of(eventTs));
  }

  /** The given files, else the files of {@code --input}, else the built-in generator. */
  static PCollection<RawEvent> source(Pipeline p, IotOptions o, @Nullable List<String> files) {
    if (files != null) {
      return p.apply("ReadNdjson", ReadNdjsonLines.fromFiles(files));
    }
    if (!o.getInput().isEmpty()) {
      try {
        Set<String> matching = IngestManifest.matching(o.getInput());
        if (matching.isEmpty()) {
          throw new IllegalArgumentException("--input matches no file: " + o.getInput());
        }
        return p.apply("ReadNdjson", ReadNdjsonLines.fromFiles(new ArrayList<>(matching)));
      } catch (IOException e) {
        throw new IllegalArgumentException(
            "cannot list --input " + o.getInput() + ": " + e.getMessage());
      }
    }
    return PBegin.in(p)
        .apply("Generator", Read.from(new GeneratorSource(generatorConfig(o), o.getSpeedup())));
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

  /**
   * The device registry: {@code --devices}; without it, the registry of the built-in generator's
   * devices ({@code --generatorDevices}). A replay of files ({@code --input}) needs its registry
   * named.
   */
  static Map<String, Device> registry(IotOptions o) {
    if (o.getDevices().isEmpty()) {
      if (!o.getInput().isEmpty()) {
        throw new IllegalArgumentException(
            "--devices is required: the device registry CSV of the devices in the data"
                + " (device_id,site,zone,latitude,longitude,model,installed_at), e.g."
                + " --devices=testdata/devices.csv for the repository's sample");
      }
      return DeviceRegistry.parse(
          DeviceRegistryWriter.csv(o.getGeneratorDevices()), "the generator's registry");
    }
    try {
      return DeviceRegistry.load(o.getDevices());
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "cannot read the device registry " + o.getDevices() + ": " + e.getMessage());
    }
  }
}
