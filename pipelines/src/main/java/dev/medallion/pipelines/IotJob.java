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
import java.util.Arrays;
import java.util.Map;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.io.FileSystems;
import org.apache.beam.sdk.io.Read;
import org.apache.beam.sdk.io.fs.EmptyMatchTreatment;
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

  static int run(Stage stage, String[] args) {
    PipelineOptionsFactory.register(IotOptions.class);
    S3Support.register();
    IotOptions options =
        PipelineOptionsFactory.fromArgs(args).withValidation().as(IotOptions.class);
    if (options.getRunner().getSimpleName().equals("DirectRunner")
        && Arrays.stream(args).noneMatch(a -> a.startsWith("--blockOnRun"))) {
      // The DirectRunner's run() would otherwise block to the end: no live progress line.
      String[] withFlag = Arrays.copyOf(args, args.length + 1);
      withFlag[args.length] = "--blockOnRun=false";
      options = PipelineOptionsFactory.fromArgs(withFlag).withValidation().as(IotOptions.class);
    }
    FileSystems.setDefaultPipelineOptions(options);
    try {
      Catalog.register(options.getLakehouse());
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "cannot write the catalog of " + options.getLakehouse() + ": " + e.getMessage());
    }
    Pipeline p = Pipeline.create(options);
    build(p, stage, options);
    System.out.println(
        "medallion "
            + stage.name().toLowerCase()
            + ": run "
            + options.getRunId()
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
    } catch (Pipeline.PipelineExecutionException e) {
      Throwable cause = e;
      while (cause.getCause() != null) {
        cause = cause.getCause();
      }
      System.err.println("medallion: the pipeline failed: " + cause);
      return 1;
    } finally {
      if (progress != null) {
        progress.stop();
      }
    }
    Report.print(result, options, stage);
    return state == PipelineResult.State.DONE ? 0 : 1;
  }

  /** Wires {@code stage} on {@code p}; tests call this with their own options. */
  public static PCollectionTuple build(Pipeline p, Stage stage, IotOptions options) {
    Lakehouse lake = new Lakehouse(options.getLakehouse());
    return switch (stage) {
      case ALL -> IotMedallion.build(p, options, source(p, options), registry(options));
      case BRONZE -> {
        PCollectionTuple bronze = IotMedallion.bronze(source(p, options), lake, options);
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
                lake.table(Lakehouse.BRONZE_IOT),
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
                lake.table(Lakehouse.SILVER_READINGS),
                SensorReading.class,
                SensorReading::getEventTs);
        PCollection<Heartbeat> heartbeats =
            read(
                p,
                "Heartbeats",
                lake.table(Lakehouse.SILVER_HEARTBEATS),
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

  /** NDJSON files when {@code --input} is set, else the built-in generator. */
  static PCollection<RawEvent> source(Pipeline p, IotOptions o) {
    if (!o.getInput().isEmpty()) {
      requireFiles(o.getInput());
      return p.apply("ReadNdjson", ReadNdjsonLines.from(o.getInput()));
    }
    return PBegin.in(p)
        .apply("Generator", Read.from(new GeneratorSource(generatorConfig(o), o.getSpeedup())));
  }

  private static void requireFiles(String pattern) {
    try {
      if (FileSystems.match(pattern, EmptyMatchTreatment.ALLOW).metadata().isEmpty()) {
        throw new IllegalArgumentException("--input matches no file: " + pattern);
      }
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot list --input " + pattern + ": " + e.getMessage());
    }
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
