package dev.medallion.pipelines;

import dev.medallion.bronze.IngestToBronze;
import dev.medallion.generator.GeneratorConfig;
import dev.medallion.generator.GeneratorSource;
import dev.medallion.gold.WindowedDeviceStats;
import dev.medallion.io.ReadNdjsonLines;
import dev.medallion.io.ReadTable;
import dev.medallion.records.BronzeEvent;
import dev.medallion.records.Device;
import dev.medallion.records.Heartbeat;
import dev.medallion.records.RawEvent;
import dev.medallion.records.SensorReading;
import dev.medallion.silver.DeviceRegistry;
import dev.medallion.silver.ValidateAndEnrich;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.io.FileSystems;
import org.apache.beam.sdk.io.Read;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.transforms.WithTimestamps;
import org.apache.beam.sdk.values.PBegin;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.joda.time.Duration;
import org.joda.time.Instant;

/** Builds and runs the IoT pipeline, whole or one stage, from command-line flags. */
public final class IotJob {
  private IotJob() {}

  /** Which layers a run executes. */
  public enum Stage {
    ALL,
    BRONZE,
    SILVER,
    GOLD
  }

  static int run(Stage stage, String[] args) throws IOException {
    PipelineOptionsFactory.register(IotOptions.class);
    S3Support.register();
    IotOptions options =
        PipelineOptionsFactory.fromArgs(RunnerDefaults.apply(args))
            .withValidation()
            .as(IotOptions.class);
    FileSystems.setDefaultPipelineOptions(options);
    try {
      Catalog.register(options.getLakehouse());
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "cannot write the catalog of " + options.getLakehouse() + ": " + e.getMessage());
    }
    String name = "medallion " + (stage == Stage.ALL ? "run" : stage.name().toLowerCase());
    String runId = options.getRunId();
    Lakehouse lake = new Lakehouse(options.getLakehouse());
    List<String> files = replayFiles(stage, options, lake, name);
    if (files != null && files.isEmpty()) {
      return 0;
    }
    RunIds.claim(lake, runId);
    String manifests = lake.table(Lakehouse.MANIFEST_IOT);
    if (files != null) {
      IngestManifest.begin(manifests, runId, files);
    }
    // Silver and Gold alone are recomputed from the whole previous layer: staged, then they
    // replace their tables, so a rerun gives the same tables instead of a second copy.
    boolean replaces = stage == Stage.SILVER || stage == Stage.GOLD;
    String staging = lake.table("_staging/" + runId);
    Pipeline p = Pipeline.create(options);
    build(p, stage, options, files, lake, replaces ? new Lakehouse(staging) : lake);
    System.err.println(
        name
            + ": run "
            + runId
            + " -> "
            + options.getLakehouse()
            + (options.getInput().isEmpty() && stage != Stage.SILVER && stage != Stage.GOLD
                ? " (generator: "
                    + options.getDurationMinutes()
                    + " min of event time at "
                    + options.getSpeedup()
                    + "x)"
                : ""));
    PipelineResult result;
    PipelineResult.State state;
    Progress progress = null;
    try {
      result = p.run();
      progress = Progress.start(result);
      state = result.waitUntilFinish();
    } catch (RuntimeException e) {
      if (progress != null) {
        progress.stop();
        progress = null;
      }
      System.err.println(name + ": the pipeline failed: " + Failures.oneLine(e));
      undo(lake, runId, files, replaces, staging);
      return 1;
    } finally {
      if (progress != null) {
        progress.stop();
      }
    }
    if (state != PipelineResult.State.DONE) {
      undo(lake, runId, files, replaces, staging);
    } else if (files != null) {
      IngestManifest.commit(manifests, runId);
    } else if (replaces) {
      publish(stage, new Lakehouse(staging), lake);
      TablePublisher.cleanUp(staging);
    }
    Report.print(result, options, stage);
    return state == PipelineResult.State.DONE ? 0 : 1;
  }

  /**
   * The files a replay ingests: those of {@code --input} no earlier replay ingested (null when the
   * stage reads the generator or a table). A replay that died is undone first, so a rerun of the
   * same input ingests every line once; an empty list means there is nothing new, said on stderr.
   */
  private static List<String> replayFiles(
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
      Lakehouse lake, String runId, List<String> files, boolean replaces, String staging)
      throws IOException {
    if (files != null) {
      IngestManifest.undo(lake, lake.table(Lakehouse.MANIFEST_IOT), runId, Lakehouse.IOT_TABLES);
    }
    if (replaces) {
      TablePublisher.discard(staging);
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

  /** Wires {@code stage} on {@code p}; tests call this with their own options. */
  public static PCollectionTuple build(Pipeline p, Stage stage, IotOptions options) {
    Lakehouse lake = new Lakehouse(options.getLakehouse());
    return build(p, stage, options, null, lake, lake);
  }

  /**
   * Wires {@code stage}: reads {@code files} (or {@code --input}, or the generator) and the tables
   * of {@code readFrom}, writes to {@code lake}.
   */
  static PCollectionTuple build(
      Pipeline p,
      Stage stage,
      IotOptions options,
      List<String> files,
      Lakehouse readFrom,
      Lakehouse lake) {
    return switch (stage) {
      case ALL -> IotMedallion.build(p, options, source(p, options, files), registry(options));
      case BRONZE -> {
        PCollectionTuple bronze = IotMedallion.bronze(source(p, options, files), lake, options);
        bronze
            .get(IngestToBronze.DEAD_LETTERS)
            .apply("WriteQuarantine", IotMedallion.quarantineWriter(lake, options));
        yield bronze;
      }
      case SILVER -> {
        PCollection<BronzeEvent> bronze =
            read(
                p,
                "Bronze",
                readFrom.table(Lakehouse.BRONZE_IOT),
                BronzeEvent.class,
                BronzeEvent::getEventTs);
        PCollectionTuple silver = IotMedallion.silver(bronze, registry(options), lake, options);
        silver
            .get(ValidateAndEnrich.QUARANTINE)
            .apply("WriteQuarantine", IotMedallion.quarantineWriter(lake, options));
        yield silver;
      }
      case GOLD -> {
        PCollection<SensorReading> readings =
            read(
                p,
                "Readings",
                readFrom.table(Lakehouse.SILVER_READINGS),
                SensorReading.class,
                SensorReading::getEventTs);
        PCollection<Heartbeat> heartbeats =
            read(
                p,
                "Heartbeats",
                readFrom.table(Lakehouse.SILVER_HEARTBEATS),
                Heartbeat.class,
                Heartbeat::getEventTs);
        PCollectionTuple gold =
            IotMedallion.gold(
                PCollectionTuple.of(ValidateAndEnrich.READINGS, readings)
                    .and(ValidateAndEnrich.HEARTBEATS, heartbeats),
                lake,
                options);
        gold.get(WindowedDeviceStats.TOO_LATE)
            .apply("WriteQuarantine", IotMedallion.quarantineWriter(lake, options));
        yield gold;
      }
    };
  }

  /** A table of the previous layer, each record stamped with its event time. */
  private static <T> PCollection<T> read(
      Pipeline p,
      String name,
      String table,
      Class<T> type,
      SerializableFunction<T, Instant> eventTs) {
    return p.apply("Read" + name, ReadTable.of(table, type))
        .apply(name + "EventTime", WithTimestamps.of(eventTs));
  }

  /** The given files, else the files of {@code --input}, else the built-in generator. */
  static PCollection<RawEvent> source(Pipeline p, IotOptions o, List<String> files) {
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

  static GeneratorConfig generatorConfig(IotOptions o) {
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

  static Map<String, Device> registry(IotOptions o) {
    try {
      return DeviceRegistry.load(o.getDevices());
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "cannot read the device registry " + o.getDevices() + ": " + e.getMessage());
    }
  }
}
