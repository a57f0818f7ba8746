package dev.medallion.pipelines;

import dev.medallion.bronze.IngestToBronze;
import dev.medallion.gold.WindowedDeviceStats;
import dev.medallion.io.WriteTable;
import dev.medallion.records.BronzeEvent;
import dev.medallion.records.DeadLetter;
import dev.medallion.records.Device;
import dev.medallion.records.DeviceMinute;
import dev.medallion.records.Heartbeat;
import dev.medallion.records.RawEvent;
import dev.medallion.records.SensorReading;
import dev.medallion.records.SiteMinute;
import dev.medallion.silver.ValidateAndEnrich;
import java.util.Map;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.schemas.NoSuchSchemaException;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.transforms.View;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.PCollectionView;
import org.joda.time.Duration;

/**
 * The streaming IoT medallion, assembled from the layer transforms. {@link #build} wires the whole
 * graph on any source of raw lines (the generator, NDJSON files, Kafka, or {@code Create} in a
 * test); {@link #bronze}, {@link #silver} and {@link #gold} are its three layers, each of which
 * also runs on its own reading the previous layer's table.
 */
public final class IotMedallion {
  private IotMedallion() {}

  /**
   * Steps: 1) Bronze: parse and keep raw lines; 2) Silver: validate and enrich with the registry;
   * 3) Gold: 1-minute windows per device and per site; 4) every layer's table, and one quarantine
   * table for the dead letters of all three.
   */
  public static PCollectionTuple build(
      Pipeline p, IotOptions options, PCollection<RawEvent> raw, Map<String, Device> registry) {
    Lakehouse lake = new Lakehouse(options.getLakehouse());
    PCollectionTuple bronze = bronze(raw, lake, options);
    PCollectionTuple silver = silver(bronze.get(IngestToBronze.EVENTS), registry, lake, options);
    PCollectionTuple gold = gold(silver, lake, options);
    PCollectionList.of(bronze.get(IngestToBronze.DEAD_LETTERS))
        .and(silver.get(ValidateAndEnrich.QUARANTINE))
        .and(gold.get(WindowedDeviceStats.TOO_LATE))
        .apply("AllDeadLetters", Flatten.pCollections())
        .apply("WriteQuarantine", quarantineWriter(lake, options));
    return PCollectionTuple.of(IngestToBronze.EVENTS, bronze.get(IngestToBronze.EVENTS))
        .and(IngestToBronze.DEAD_LETTERS, bronze.get(IngestToBronze.DEAD_LETTERS))
        .and(ValidateAndEnrich.READINGS, silver.get(ValidateAndEnrich.READINGS))
        .and(ValidateAndEnrich.HEARTBEATS, silver.get(ValidateAndEnrich.HEARTBEATS))
        .and(ValidateAndEnrich.QUARANTINE, silver.get(ValidateAndEnrich.QUARANTINE))
        .and(WindowedDeviceStats.DEVICE_MINUTE, gold.get(WindowedDeviceStats.DEVICE_MINUTE))
        .and(WindowedDeviceStats.SITE_MINUTE, gold.get(WindowedDeviceStats.SITE_MINUTE))
        .and(WindowedDeviceStats.TOO_LATE, gold.get(WindowedDeviceStats.TOO_LATE));
  }

  /** Bronze without writing its dead letters (the caller writes them with the others). */
  public static PCollectionTuple bronze(PCollection<RawEvent> raw, Lakehouse lake, IotOptions o) {
    PCollectionTuple bronze = raw.apply("Bronze", IngestToBronze.create());
    bronze
        .get(IngestToBronze.EVENTS)
        .apply(
            "WriteBronze",
            IotMedallion.<BronzeEvent>table(
                lake.table(Lakehouse.BRONZE_IOT),
                e -> "date=" + e.getDate() + "/hour=" + String.format("%02d", e.getHour()),
                o));
    return bronze;
  }

  public static PCollectionTuple silver(
      PCollection<BronzeEvent> bronze, Map<String, Device> registry, Lakehouse lake, IotOptions o) {
    Pipeline p = bronze.getPipeline();
    PCollectionView<Map<String, Device>> devices =
        p.apply(
                "DeviceRegistry",
                Create.of(registry)
                    .withCoder(KvCoder.of(StringUtf8Coder.of(), schemaCoder(p, Device.class))))
            .apply("AsMap", View.asMap());
    PCollectionTuple silver = bronze.apply("Silver", ValidateAndEnrich.withDevices(devices));
    silver
        .get(ValidateAndEnrich.READINGS)
        .apply(
            "WriteSilverReadings",
            IotMedallion.<SensorReading>table(
                lake.table(Lakehouse.SILVER_READINGS), r -> "date=" + r.getDate(), o));
    silver
        .get(ValidateAndEnrich.HEARTBEATS)
        .apply(
            "WriteSilverHeartbeats",
            IotMedallion.<Heartbeat>table(
                lake.table(Lakehouse.SILVER_HEARTBEATS), h -> "date=" + h.getDate(), o));
    return silver;
  }

  public static PCollectionTuple gold(PCollectionTuple silver, Lakehouse lake, IotOptions o) {
    PCollectionTuple gold =
        silver.apply(
            "Gold",
            WindowedDeviceStats.of(
                Duration.standardSeconds(o.getAllowedLatenessSeconds()),
                Duration.standardSeconds(o.getWatermarkSlackSeconds())));
    gold.get(WindowedDeviceStats.DEVICE_MINUTE)
        .apply(
            "WriteDeviceMinute",
            IotMedallion.<DeviceMinute>table(
                lake.table(Lakehouse.GOLD_DEVICE_MINUTE), m -> "date=" + m.getDate(), o));
    gold.get(WindowedDeviceStats.SITE_MINUTE)
        .apply(
            "WriteSiteMinute",
            IotMedallion.<SiteMinute>table(
                lake.table(Lakehouse.GOLD_SITE_MINUTE), m -> "date=" + m.getDate(), o));
    return gold;
  }

  /** The one writer of dead letters: {@code quarantine/iot_events/stage=…/date=…}. */
  public static WriteTable<DeadLetter> quarantineWriter(Lakehouse lake, IotOptions o) {
    return IotMedallion.<DeadLetter>table(
        lake.table(Lakehouse.QUARANTINE_IOT),
        d -> "stage=" + d.getStage() + "/date=" + d.getDate(),
        o);
  }

  /** A table writer with this run's id, shard count and flush interval. */
  static <T> WriteTable<T> table(
      String path, SerializableFunction<T, String> partition, IotOptions o) {
    return WriteTable.<T>to(path, partition, o.getRunId())
        .withNumShards(o.getNumShards())
        .withFlushEvery(Duration.standardSeconds(o.getFlushSeconds()));
  }

  static <T> org.apache.beam.sdk.coders.Coder<T> schemaCoder(Pipeline p, Class<T> type) {
    try {
      return p.getSchemaRegistry().getSchemaCoder(type);
    } catch (NoSuchSchemaException e) {
      throw new IllegalStateException(type + " has no schema", e);
    }
  }
}
