package dev.medallion.iot;

import dev.medallion.core.DeadLetter;
import dev.medallion.core.Failsafe;
import dev.medallion.core.InvalidRecordException;
import dev.medallion.core.JsonFields;
import dev.medallion.core.Rejections;
import java.io.Serializable;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.CoderException;
import org.apache.beam.sdk.coders.MapCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.schemas.NoSuchSchemaException;
import org.apache.beam.sdk.schemas.SchemaRegistry;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.join.RawUnionValue;
import org.apache.beam.sdk.transforms.join.UnionCoder;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.PCollectionView;
import org.apache.beam.sdk.values.Row;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.TupleTagList;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * Silver: validates each Bronze event record by record, from Bronze's typed columns (the line is
 * parsed once, in Bronze), and enriches it with its device from the registry (loaded before the
 * job, or a side input the caller built). Readings go to {@link #READINGS} in their type's unit (by
 * the {@link SensorCatalog}), heartbeats to {@link #HEARTBEATS}, and every rejected record to
 * {@link #QUARANTINE} with stage {@code silver}, its reason and its original payload. Reasons:
 * {@code missing_<field>}, {@code wrong_type:<field>}, {@code invalid_sensor_type}, {@code
 * invalid_unit}, {@code out_of_range:<field>} (outside the field's range, or a number beyond the
 * range of a double), {@code invalid_status}, {@code unknown_device}.
 */
public class ValidateAndEnrich extends PTransform<PCollection<BronzeEvent>, PCollectionTuple> {
  public static final TupleTag<SensorReading> READINGS = new TupleTag<>() {};
  public static final TupleTag<Heartbeat> HEARTBEATS = new TupleTag<>() {};
  public static final TupleTag<DeadLetter> QUARANTINE = DeadLetter.TAG;

  /** Readings and heartbeats kept, in their Bronze records' order ({@link #withKeptInOrder}). */
  public static final TupleTag<RawUnionValue> KEPT = new TupleTag<>() {};

  public static final int KEPT_READING = 0;
  public static final int KEPT_HEARTBEAT = 1;

  static final Set<String> STATUSES = Set.of("ok", "degraded", "error");

  /** How far an event's time may be ahead of its arrival ({@code received_at}) by default. */
  public static final Duration MAX_AHEAD_OF_ARRIVAL = Duration.standardHours(1);

  private final @Nullable PCollectionView<Map<String, Device>> devices;
  private final @Nullable FixedRegistry registry;
  private final Duration maxAheadOfArrival;
  private final SensorCatalog catalog;
  private final boolean keptInOrder;

  private ValidateAndEnrich(
      @Nullable PCollectionView<Map<String, Device>> devices,
      @Nullable FixedRegistry registry,
      Duration maxAheadOfArrival,
      SensorCatalog catalog,
      boolean keptInOrder) {
    this.devices = devices;
    this.registry = registry;
    this.maxAheadOfArrival = maxAheadOfArrival;
    this.catalog = catalog;
    this.keptInOrder = keptInOrder;
  }

  /** Silver with the registry as a side input the caller built (it may change while streaming). */
  public static ValidateAndEnrich withDevices(PCollectionView<Map<String, Device>> devices) {
    return new ValidateAndEnrich(devices, null, MAX_AHEAD_OF_ARRIVAL, SensorCatalog.DEFAULT, false);
  }

  /** Silver with a registry loaded before the job: it travels with the validating function. */
  public static ValidateAndEnrich withRegistry(Map<String, Device> registry) {
    return new ValidateAndEnrich(
        null, FixedRegistry.of(registry), MAX_AHEAD_OF_ARRIVAL, SensorCatalog.DEFAULT, false);
  }

  /**
   * Quarantines as {@code future_ts} an event whose time is more than {@code max} ahead of its
   * arrival on its source's clock: a device clock gone wrong would otherwise open windows far in
   * the future and hold their state. Records without an arrival time (file replays) are not
   * checked.
   */
  public ValidateAndEnrich withMaxAheadOfArrival(Duration max) {
    return new ValidateAndEnrich(devices, registry, max, catalog, keptInOrder);
  }

  /** Sensor types, units and ranges from {@code catalog} instead of the built-in one. */
  public ValidateAndEnrich withCatalog(SensorCatalog catalog) {
    return new ValidateAndEnrich(devices, registry, maxAheadOfArrival, catalog, keptInOrder);
  }

  /**
   * Also every kept record, reading or heartbeat, to {@link #KEPT} as Silver keeps them, in the
   * order of their Bronze records (union tag {@link #KEPT_READING} or {@link #KEPT_HEARTBEAT}): for
   * a caller that must pass both kinds on in that order (the silver stage forwarding them to
   * Kafka). From the two outputs, each kind by steps of its own, the heartbeats reached the next
   * stage's topic seconds behind the readings under a backlog, and Gold's runner dropped them.
   */
  public ValidateAndEnrich withKeptInOrder() {
    return new ValidateAndEnrich(devices, registry, maxAheadOfArrival, catalog, true);
  }

  /** A kept record of {@link #KEPT} as its Silver table's row. */
  public static Row keptRow(RawUnionValue kept) {
    return kept.getUnionTag() == KEPT_READING
        ? IotRecordCoders.READING.getToRowFunction().apply((SensorReading) kept.getValue())
        : IotRecordCoders.HEARTBEAT.getToRowFunction().apply((Heartbeat) kept.getValue());
  }

  /** The reading or heartbeat Silver keeps of {@code e}; throws when it rejects it. */
  static Object decide(
      BronzeEvent e,
      Map<String, Device> registry,
      Duration maxAheadOfArrival,
      SensorCatalog catalog) {
    requireNotAheadOfArrival(e, maxAheadOfArrival);
    return "reading".equals(e.getEventKind())
        ? toReading(e, registry, catalog)
        : toHeartbeat(e, registry);
  }

  @Override
  public PCollectionTuple expand(PCollection<BronzeEvent> bronze) {
    ParDo.SingleOutput<BronzeEvent, SensorReading> validate =
        devices != null
            ? ParDo.of(ValidateFn.fromView(devices, maxAheadOfArrival, catalog, keptInOrder))
                .withSideInputs(devices)
            : ParDo.of(
                ValidateFn.fromRegistry(
                    Objects.requireNonNull(registry), maxAheadOfArrival, catalog, keptInOrder));
    TupleTagList others = TupleTagList.of(HEARTBEATS).and(QUARANTINE);
    PCollectionTuple checked =
        bronze.apply(
            "ValidateRecord",
            validate.withOutputTags(READINGS, keptInOrder ? others.and(KEPT) : others));
    checked.get(READINGS).setCoder(IotRecordCoders.READING);
    checked.get(HEARTBEATS).setCoder(IotRecordCoders.HEARTBEAT);
    if (keptInOrder) {
      checked
          .get(KEPT)
          .setCoder(UnionCoder.of(List.of(IotRecordCoders.READING, IotRecordCoders.HEARTBEAT)));
    }
    return checked;
  }

  static class ValidateFn extends DoFn<BronzeEvent, SensorReading> {
    private final Rejections.Accepted accepted = new Rejections.Accepted(DeadLetter.SILVER);

    /** The registry as a side input, or null when it was loaded before the job ({@link #fixed}). */
    private final @Nullable PCollectionView<Map<String, Device>> devices;

    /**
     * A registry loaded before the job travels with the function instead of as a side input: the
     * DirectRunner holds back every element of a step until its side inputs are ready, and went
     * through the held-back elements again and again while Bronze ran (8 s of both cores in a
     * replay of 1M events, 2026-12-04).
     */
    private final @Nullable FixedRegistry fixed;

    private final Duration maxAheadOfArrival;
    private final SensorCatalog catalog;
    private final boolean keptInOrder;
    private final Rejections.Examples rejections = new Rejections.Examples();

    /**
     * The registry read for {@link #registryWindow} in this bundle: the DirectRunner builds a map
     * side input anew on every {@code sideInput()} call, which cost most of a replay's time.
     */
    private transient @Nullable Map<String, Device> registry;

    private transient @Nullable BoundedWindow registryWindow;

    private ValidateFn(
        @Nullable PCollectionView<Map<String, Device>> devices,
        @Nullable FixedRegistry fixed,
        Duration maxAheadOfArrival,
        SensorCatalog catalog,
        boolean keptInOrder) {
      this.devices = devices;
      this.fixed = fixed;
      this.maxAheadOfArrival = maxAheadOfArrival;
      this.catalog = catalog;
      this.keptInOrder = keptInOrder;
    }

    static ValidateFn fromView(
        PCollectionView<Map<String, Device>> devices,
        Duration maxAheadOfArrival,
        SensorCatalog catalog,
        boolean keptInOrder) {
      return new ValidateFn(devices, null, maxAheadOfArrival, catalog, keptInOrder);
    }

    static ValidateFn fromRegistry(
        FixedRegistry registry,
        Duration maxAheadOfArrival,
        SensorCatalog catalog,
        boolean keptInOrder) {
      return new ValidateFn(null, registry, maxAheadOfArrival, catalog, keptInOrder);
    }

    @StartBundle
    public void startBundle() {
      // the registry loaded before the job; a streamed one is read again in each bundle, as it
      // may have changed since the last
      registry = fixed == null ? null : fixed.devices();
      registryWindow = null;
    }

    @ProcessElement
    public void process(
        @Element BronzeEvent e, BoundedWindow window, ProcessContext c, MultiOutputReceiver out) {
      if (devices != null && (registry == null || !window.equals(registryWindow))) {
        registry = c.sideInput(devices);
        registryWindow = window;
      }
      Map<String, Device> registry = Objects.requireNonNull(this.registry);
      Object kept;
      try {
        kept = decide(e, registry, maxAheadOfArrival, catalog);
      } catch (RuntimeException thrown) {
        InvalidRecordException ex = Failsafe.rejection(thrown);
        DeadLetter letter =
            DeadLetter.of(
                DeadLetter.SILVER,
                ex.getReason(),
                ex.getMessage(),
                e.getRawPayload(),
                e.getSource(),
                e.getSourceName(),
                e.getEventTs(),
                Instant.now());
        rejections.count(DeadLetter.SILVER, letter);
        out.get(QUARANTINE).output(letter);
        return;
      }
      accepted.add();
      if (kept instanceof SensorReading reading) {
        out.get(READINGS).output(reading);
      } else {
        out.get(HEARTBEATS).output((Heartbeat) kept);
      }
      if (keptInOrder) {
        out.get(KEPT)
            .output(
                new RawUnionValue(
                    kept instanceof SensorReading ? KEPT_READING : KEPT_HEARTBEAT, kept));
      }
    }

    @FinishBundle
    public void finishBundle() {
      accepted.flush();
      rejections.flush();
    }
  }

  /**
   * A registry loaded before the job, as it travels with the validating function: its devices
   * encoded once into bytes, decoded once by each copy of the function. The DirectRunner translates
   * a step to its portable form again for every bundle, and a stream comes in many small bundles: a
   * map of devices, serialized object by object each time, was 18 % of the CPU samples of a run
   * from the generator of 500 devices at full speed (JFR, 2026-12-04).
   */
  static final class FixedRegistry implements Serializable {
    private static final Coder<Map<String, Device>> CODER =
        MapCoder.of(StringUtf8Coder.of(), deviceCoder());

    private final byte[] encoded;
    private transient @Nullable Map<String, Device> devices;

    private FixedRegistry(byte[] encoded) {
      this.encoded = encoded;
    }

    static FixedRegistry of(Map<String, Device> devices) {
      try {
        return new FixedRegistry(CoderUtils.encodeToByteArray(CODER, devices));
      } catch (CoderException e) {
        throw new IllegalArgumentException("the device registry cannot be encoded", e);
      }
    }

    Map<String, Device> devices() {
      Map<String, Device> decoded = devices;
      if (decoded == null) {
        try {
          decoded = CoderUtils.decodeFromByteArray(CODER, encoded);
        } catch (CoderException e) {
          throw new IllegalStateException("the device registry cannot be decoded", e);
        }
        devices = decoded;
      }
      return decoded;
    }

    private static Coder<Device> deviceCoder() {
      try {
        return SchemaRegistry.createDefault().getSchemaCoder(Device.class);
      } catch (NoSuchSchemaException e) {
        throw new IllegalStateException("Device has no schema", e);
      }
    }
  }

  /**
   * @throws InvalidRecordException {@code future_ts} when the event's time is more than {@code max}
   *     after its {@code received_at}
   */
  public static void requireNotAheadOfArrival(BronzeEvent e, Duration max) {
    Instant arrival = e.getReceivedAt();
    if (arrival != null && e.getEventTs().isAfter(arrival.plus(max))) {
      throw new InvalidRecordException(
          "future_ts",
          "event at "
              + e.getEventTs()
              + " is more than "
              + max.getStandardSeconds()
              + " s ahead of its arrival at "
              + arrival
              + " (--maxFutureSeconds)");
    }
  }

  /**
   * The Silver rule for a reading, by {@code catalog}: a reading sent without a unit is taken in
   * its type's {@code default_unit} when the catalog gives one.
   */
  public static SensorReading toReading(
      BronzeEvent e, Map<String, Device> registry, SensorCatalog catalog) {
    String errors = e.getTypeErrors();
    String type = JsonFields.requireText(e.getSensorType(), "sensor_type", errors);
    double value = JsonFields.requireNumber(e.getValue(), "value", errors, e.getRawPayload());
    String sent = e.getUnit();
    String fallback = catalog.defaultUnit(type);
    String unit =
        sent == null && fallback != null && JsonFields.wrongTypeOf(errors, "unit") == null
            ? fallback
            : JsonFields.requireText(sent, "unit", errors);
    JsonFields.checkType("seq", errors, "a JSON integer");
    Long seq = e.getSeq();
    SensorCatalog.Canonical canonical = catalog.canonical(type, value, unit);
    Device device = knownDevice(e.getDeviceId(), registry);
    return SensorReading.builder()
        .setDeviceId(e.getDeviceId())
        .setSite(device.getSite())
        .setZone(device.getZone())
        .setLatitude(device.getLatitude())
        .setLongitude(device.getLongitude())
        .setModel(device.getModel())
        .setSensorType(type)
        .setValue(canonical.value())
        .setUnit(canonical.unit())
        .setOriginalValue(value)
        .setOriginalUnit(unit)
        .setSeq(seq)
        .setEventTs(e.getEventTs())
        .setDate(e.getDate())
        .setRawPayload(e.getRawPayload())
        .setSource(e.getSource())
        .setSourceName(e.getSourceName())
        .setReceivedAt(e.getReceivedAt())
        .setIngestTs(e.getIngestTs())
        .setExtra(e.getExtra())
        .build();
  }

  /** The Silver rule for a heartbeat. */
  public static Heartbeat toHeartbeat(BronzeEvent e, Map<String, Device> registry) {
    String errors = e.getTypeErrors();
    double battery =
        JsonFields.requireNumber(e.getBatteryPct(), "battery_pct", errors, e.getRawPayload());
    long rssi = JsonFields.requireInteger(e.getRssiDbm(), "rssi_dbm", errors);
    String status = JsonFields.requireText(e.getStatus(), "status", errors);
    if (battery < 0 || battery > 100) {
      throw new InvalidRecordException(
          "out_of_range:battery_pct", "battery_pct " + battery + " is outside 0..100");
    }
    if (!STATUSES.contains(status)) {
      throw new InvalidRecordException(
          "invalid_status", "status \"" + status + "\" is not one of ok, degraded, error");
    }
    Device device = knownDevice(e.getDeviceId(), registry);
    return Heartbeat.builder()
        .setDeviceId(e.getDeviceId())
        .setSite(device.getSite())
        .setZone(device.getZone())
        .setLatitude(device.getLatitude())
        .setLongitude(device.getLongitude())
        .setModel(device.getModel())
        .setBatteryPct(battery)
        .setRssiDbm(rssi)
        .setStatus(status)
        .setEventTs(e.getEventTs())
        .setDate(e.getDate())
        .setRawPayload(e.getRawPayload())
        .setSource(e.getSource())
        .setSourceName(e.getSourceName())
        .setReceivedAt(e.getReceivedAt())
        .setIngestTs(e.getIngestTs())
        .setExtra(e.getExtra())
        .build();
  }

  private static Device knownDevice(String deviceId, Map<String, Device> registry) {
    Device d = registry.get(deviceId);
    if (d == null) {
      throw new InvalidRecordException(
          "unknown_device", "device " + deviceId + " is not in the device registry");
    }
    return d;
  }
}
