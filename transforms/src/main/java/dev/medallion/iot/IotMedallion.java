package dev.medallion.iot;

import dev.medallion.core.DeadLetter;
import dev.medallion.core.FieldMapping;
import dev.medallion.core.RawEvent;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.display.DisplayData;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.Row;
import org.apache.beam.sdk.values.TupleTag;
import org.joda.time.Duration;

/**
 * The streaming IoT medallion as one composite: raw lines → Bronze ({@link IngestToBronze}) →
 * Silver ({@link ValidateAndEnrich}) → Gold ({@link WindowedDeviceStats}). It returns every layer
 * and all dead letters as a tuple and writes nothing: the caller applies the sinks (lakehouse
 * tables, Kafka topics, {@code PAssert}), so the whole run, each stage alone and the tests compose
 * the same pieces. Each layer composite is also a stage on its own, and each puts its rejected
 * records under the same tag, {@link #DEAD_LETTERS}.
 *
 * <pre>{@code
 * PCollectionTuple layers = raw.apply(IotMedallion.withRegistry(devices).withLateness(allowed, slack));
 * layers.get(IotMedallion.DEVICE_MINUTE) ...
 * }</pre>
 */
public final class IotMedallion extends PTransform<PCollection<RawEvent>, PCollectionTuple> {
  public static final TupleTag<BronzeEvent> BRONZE = IngestToBronze.EVENTS;
  public static final TupleTag<SensorReading> READINGS = ValidateAndEnrich.READINGS;
  public static final TupleTag<Heartbeat> HEARTBEATS = ValidateAndEnrich.HEARTBEATS;
  public static final TupleTag<Row> DEVICE_MINUTE = WindowedDeviceStats.DEVICE_MINUTE;
  public static final TupleTag<Row> SITE_MINUTE = WindowedDeviceStats.SITE_MINUTE;
  public static final TupleTag<SensorMinute> SENSOR_MINUTE = WindowedDeviceStats.SENSOR_MINUTE;

  /** Bronze's, Silver's and Gold's dead letters together (their {@code stage} says which). */
  public static final TupleTag<DeadLetter> DEAD_LETTERS = DeadLetter.TAG;

  /** The defaults of the command line: 2 minutes of allowed lateness, 5 of watermark slack. */
  public static final Duration ALLOWED_LATENESS = Duration.standardMinutes(2);

  public static final Duration WATERMARK_SLACK = Duration.standardMinutes(5);

  private final HashMap<String, Device> registry;
  private final Duration allowedLateness;
  private final Duration watermarkSlack;
  private final Duration maxAheadOfArrival;
  private final FieldMapping mapping;
  private final SensorCatalog catalog;
  // How Gold groups, as the runner suits: withStreamsInGroups, withKeysPerMinute.
  private final EnumSet<GoldGrouping> grouping;

  /** See {@link WindowedDeviceStats#withStreamsInGroups} and its {@code withKeysPerMinute}. */
  private enum GoldGrouping {
    STREAMS_IN_GROUPS,
    KEYS_PER_MINUTE
  }

  private IotMedallion(
      Map<String, Device> registry,
      Duration allowedLateness,
      Duration watermarkSlack,
      Duration maxAheadOfArrival,
      FieldMapping mapping,
      SensorCatalog catalog,
      Set<GoldGrouping> grouping) {
    this.registry = new HashMap<>(registry);
    this.allowedLateness = allowedLateness;
    this.watermarkSlack = watermarkSlack;
    this.maxAheadOfArrival = maxAheadOfArrival;
    this.mapping = mapping;
    this.catalog = catalog;
    this.grouping = EnumSet.noneOf(GoldGrouping.class);
    this.grouping.addAll(grouping);
  }

  /** The medallion enriching with {@code registry} (device id → device). */
  public static IotMedallion withRegistry(Map<String, Device> registry) {
    return new IotMedallion(
        registry,
        ALLOWED_LATENESS,
        WATERMARK_SLACK,
        ValidateAndEnrich.MAX_AHEAD_OF_ARRIVAL,
        FieldMapping.NONE,
        SensorCatalog.DEFAULT,
        Set.of());
  }

  /** See {@link WindowedDeviceStats#of}. */
  public IotMedallion withLateness(Duration allowedLateness, Duration watermarkSlack) {
    return new IotMedallion(
        registry, allowedLateness, watermarkSlack, maxAheadOfArrival, mapping, catalog, grouping);
  }

  /** See {@link ValidateAndEnrich#withMaxAheadOfArrival}. */
  public IotMedallion withMaxAheadOfArrival(Duration max) {
    return new IotMedallion(
        registry, allowedLateness, watermarkSlack, max, mapping, catalog, grouping);
  }

  /** See {@link IngestToBronze#withMapping}. */
  public IotMedallion withMapping(FieldMapping mapping) {
    return new IotMedallion(
        registry, allowedLateness, watermarkSlack, maxAheadOfArrival, mapping, catalog, grouping);
  }

  /** See {@link ValidateAndEnrich#withCatalog} and {@link WindowedDeviceStats#withCatalog}. */
  public IotMedallion withCatalog(SensorCatalog catalog) {
    return new IotMedallion(
        registry, allowedLateness, watermarkSlack, maxAheadOfArrival, mapping, catalog, grouping);
  }

  /** See {@link WindowedDeviceStats#withStreamsInGroups}. */
  public IotMedallion withStreamsInGroups() {
    return with(GoldGrouping.STREAMS_IN_GROUPS);
  }

  /** See {@link WindowedDeviceStats#withKeysPerMinute}. */
  public IotMedallion withKeysPerMinute() {
    return with(GoldGrouping.KEYS_PER_MINUTE);
  }

  private IotMedallion with(GoldGrouping option) {
    EnumSet<GoldGrouping> more = EnumSet.of(option);
    more.addAll(grouping);
    return new IotMedallion(
        registry, allowedLateness, watermarkSlack, maxAheadOfArrival, mapping, catalog, more);
  }

  /** What the job's graph shows of the medallion: its devices, lateness and Gold's grouping. */
  @Override
  public void populateDisplayData(DisplayData.Builder builder) {
    super.populateDisplayData(builder);
    builder
        .add(DisplayData.item("devices", registry.size()).withLabel("Devices in the registry"))
        .add(DisplayData.item("allowedLateness", allowedLateness).withLabel("Allowed lateness"))
        .add(DisplayData.item("watermarkSlack", watermarkSlack).withLabel("Watermark slack"))
        .add(DisplayData.item("goldGrouping", grouping.toString()).withLabel("Gold's grouping"));
  }

  @Override
  public PCollectionTuple expand(PCollection<RawEvent> raw) {
    PCollectionTuple bronze = raw.apply("Bronze", IngestToBronze.create().withMapping(mapping));
    PCollectionTuple silver =
        bronze
            .get(BRONZE)
            .apply(
                "Silver",
                ValidateAndEnrich.withRegistry(registry)
                    .withMaxAheadOfArrival(maxAheadOfArrival)
                    .withCatalog(catalog));
    WindowedDeviceStats windowed =
        WindowedDeviceStats.of(allowedLateness, watermarkSlack)
            .withCatalog(catalog)
            .withExpectedDevices(registry.size());
    if (grouping.contains(GoldGrouping.STREAMS_IN_GROUPS)) {
      windowed = windowed.withStreamsInGroups();
    }
    if (grouping.contains(GoldGrouping.KEYS_PER_MINUTE)) {
      windowed = windowed.withKeysPerMinute();
    }
    PCollectionTuple gold = silver.apply("Gold", windowed);
    PCollection<DeadLetter> deadLetters =
        PCollectionList.of(bronze.get(DEAD_LETTERS))
            .and(silver.get(DEAD_LETTERS))
            .and(gold.get(DEAD_LETTERS))
            .apply("AllDeadLetters", Flatten.pCollections());
    return PCollectionTuple.of(BRONZE, bronze.get(BRONZE))
        .and(READINGS, silver.get(READINGS))
        .and(HEARTBEATS, silver.get(HEARTBEATS))
        .and(DEVICE_MINUTE, gold.get(DEVICE_MINUTE))
        .and(SITE_MINUTE, gold.get(SITE_MINUTE))
        .and(SENSOR_MINUTE, gold.get(SENSOR_MINUTE))
        .and(DEAD_LETTERS, deadLetters);
  }
}
