package dev.medallion.iot;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.medallion.core.CountsPerBundle;
import dev.medallion.core.DeadLetter;
import dev.medallion.core.Failsafe;
import dev.medallion.core.InvalidRecordException;
import dev.medallion.core.Json;
import dev.medallion.core.KeyedBatches;
import dev.medallion.core.Rejections;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.MapCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.state.StateSpec;
import org.apache.beam.sdk.state.StateSpecs;
import org.apache.beam.sdk.state.ValueState;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.DoFn.MultiOutputReceiver;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.transforms.WithKeys;
import org.apache.beam.sdk.transforms.display.DisplayData;
import org.apache.beam.sdk.transforms.join.CoGbkResult;
import org.apache.beam.sdk.transforms.join.CoGroupByKey;
import org.apache.beam.sdk.transforms.join.KeyedPCollectionTuple;
import org.apache.beam.sdk.transforms.windowing.AfterProcessingTime;
import org.apache.beam.sdk.transforms.windowing.AfterWatermark;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.DefaultTrigger;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.GlobalWindows;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.Row;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.TupleTagList;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * Gold: 1-minute fixed event-time windows (aligned on the minute; an event at 10:16:00.000 is in
 * the 10:16 window) over Silver readings and heartbeats, joined per device with {@link
 * CoGroupByKey} as a full outer join ({@link #DEVICE_MINUTE}; a bounded input's devices are grouped
 * per key, see {@link #withExpectedDevices}, and a stream's on request, see {@link
 * #withStreamsInGroups}) and rolled up per site ({@link #SITE_MINUTE}) from the devices' aggregates
 * (only the device join holds records), both with the sensor catalog's aggregates as columns
 * ({@link GoldColumns}); per device and sensor type of the catalog ({@link #SENSOR_MINUTE}).
 *
 * <p>The window fires when the watermark passes its end, then for late records within the allowed
 * lateness once more {@link #LATE_FIRING_DELAY} (processing time) after the first of them; panes
 * accumulate, so each firing carries the whole window and its row replaces the earlier one. A
 * record later than that goes to {@link #TOO_LATE} (see {@link Lateness}). Resent events count
 * once: readings with the same device, sensor type, instant and {@code seq}, or, without {@code
 * seq}, the same device, sensor type and instant; heartbeats with the same device and instant (see
 * {@link MinuteStats}). No timers are used, so the SparkRunner runs it in streaming too; state only
 * when a stream is joined in groups.
 *
 * <p>Input: a tuple with {@link ValidateAndEnrich#READINGS} and {@link
 * ValidateAndEnrich#HEARTBEATS}.
 */
public class WindowedDeviceStats extends PTransform<PCollectionTuple, PCollectionTuple> {
  /** Rows of {@link GoldColumns#deviceMinute}. */
  public static final TupleTag<Row> DEVICE_MINUTE = new TupleTag<>() {};

  /** Rows of {@link GoldColumns#siteMinute}. */
  public static final TupleTag<Row> SITE_MINUTE = new TupleTag<>() {};

  public static final TupleTag<SensorMinute> SENSOR_MINUTE = new TupleTag<>() {};
  public static final TupleTag<DeadLetter> TOO_LATE = DeadLetter.TAG;

  /** Gold's window: one minute of event time. */
  public static final Duration WINDOW = Duration.standardMinutes(1);

  /**
   * Late records of a window are gathered for this long (processing time) into one late pane,
   * rather than one pane per late record.
   */
  static final Duration LATE_FIRING_DELAY = Duration.standardSeconds(5);

  private static final Counter DEVICE_ROWS =
      Metrics.counter(Rejections.NAMESPACE, "gold_device_minute_rows");
  private static final Counter SITE_ROWS =
      Metrics.counter(Rejections.NAMESPACE, "gold_site_minute_rows");
  private static final Counter SENSOR_ROWS =
      Metrics.counter(Rejections.NAMESPACE, "gold_sensor_minute_rows");

  /**
   * A bounded input's devices are grouped this many to a key ({@link #withExpectedDevices}): the
   * DirectRunner hands each key and window of a grouping on as a bundle of its own, and every
   * bundle costs it the same bookkeeping in each step after the grouping (translating the step,
   * metrics, timers, a file per table write), whatever it holds.
   */
  static final int DEVICES_PER_GROUP = 64;

  /**
   * The number of groups of a stream's devices when the number of devices is not known ({@link
   * #withStreamsInGroups}).
   */
  static final int STREAM_GROUPS = 16;

  private final Duration allowedLateness;
  private final Duration watermarkSlack;

  private final SensorCatalog catalog;
  private final int expectedDevices;
  private final boolean streamsInGroups;
  private final boolean keysPerMinute;

  private WindowedDeviceStats(
      Duration allowedLateness,
      Duration watermarkSlack,
      SensorCatalog catalog,
      int expectedDevices,
      boolean streamsInGroups,
      boolean keysPerMinute) {
    this.allowedLateness = allowedLateness;
    this.watermarkSlack = watermarkSlack;
    this.catalog = catalog;
    this.expectedDevices = expectedDevices;
    this.streamsInGroups = streamsInGroups;
    this.keysPerMinute = keysPerMinute;
  }

  /**
   * @param allowedLateness how late (against the source's arrival clock) a record may be and still
   *     update its window
   * @param watermarkSlack extra lateness given to the runner only, so that a record Medallion kept
   *     is not dropped because the watermark moved on while it was in flight; it never lets a
   *     too-late record in
   */
  public static WindowedDeviceStats of(Duration allowedLateness, Duration watermarkSlack) {
    return new WindowedDeviceStats(
        allowedLateness, watermarkSlack, SensorCatalog.DEFAULT, 0, false, false);
  }

  /** Gold's aggregate columns are those {@code catalog} asks for (its {@code gold} lists). */
  public WindowedDeviceStats withCatalog(SensorCatalog catalog) {
    return new WindowedDeviceStats(
        allowedLateness, watermarkSlack, catalog, expectedDevices, streamsInGroups, keysPerMinute);
  }

  /**
   * A bounded input of about {@code devices} devices (the registry's size) is joined in groups of
   * about {@link #DEVICES_PER_GROUP} devices per key and window instead of device by device; each
   * device still gets its own row, from its own records. Its records reach the join in batches, a
   * bundle's records of one group and window encoded together ({@link KeyedBatches}): the
   * DirectRunner's grouping then sets timers and copies state per batch instead of per record (see
   * bench/HISTORY.md). In a bounded input every window fires once, when the input ends, so a
   * group's pane is each of its devices' pane. An unbounded input is joined device by device,
   * unless {@link #withStreamsInGroups}.
   */
  public WindowedDeviceStats withExpectedDevices(int devices) {
    return new WindowedDeviceStats(
        allowedLateness, watermarkSlack, catalog, devices, streamsInGroups, keysPerMinute);
  }

  /**
   * An unbounded input (a stream) is joined in groups of devices too: about {@link
   * #DEVICES_PER_GROUP} devices per key and window when the number of devices is known ({@link
   * #withExpectedDevices}), {@link #STREAM_GROUPS} groups when not. A stream's window fires again
   * for late records, and a group's late pane holds every record of its devices (panes accumulate),
   * so a step with state per group and window ({@link StreamDeviceMinuteFn}) writes again only the
   * rows of the devices with records the group's earlier panes did not hold, each with the index of
   * its own pane: a late record rewrites its device's row only, as device by device. Late records
   * of one group arriving within {@link #LATE_FIRING_DELAY} of each other share a late pane; device
   * by device, only those of one device do.
   *
   * <p>For runners that keep a step's state between a grouping's panes (the DirectRunner, whose
   * cost per key and per bundle this saves: see bench/HISTORY.md).
   */
  public WindowedDeviceStats withStreamsInGroups() {
    return new WindowedDeviceStats(
        allowedLateness, watermarkSlack, catalog, expectedDevices, true, keysPerMinute);
  }

  /**
   * A bounded input's groups of devices ({@link #withExpectedDevices}) are keyed per minute too
   * ({@link KeyedBatches#keyedPerWindow}), so that a key of the join holds one minute of its
   * devices' records. For runners that hold every value of a key, of all its windows, in memory
   * while they group a bounded input: Beam's Spark runner does so for a {@code CoGroupByKey}, and a
   * key per group alone held all of its devices' minutes there (a replay of 488 minutes per device
   * ran out of memory with {@code -Xmx2g}; see bench/HISTORY.md). The DirectRunner, which pays per
   * key and holds a bounded input's windows until it ends anyway, keeps a key per group (the IoT
   * replay of 1M on it took 20.35 s with keys per minute against 14.07 s without). Gold's rows are
   * the same either way.
   */
  public WindowedDeviceStats withKeysPerMinute() {
    return new WindowedDeviceStats(
        allowedLateness, watermarkSlack, catalog, expectedDevices, streamsInGroups, true);
  }

  /**
   * The number of device groups: when every input is bounded, from {@link #withExpectedDevices}; a
   * stream's, with {@link #withStreamsInGroups} only; 0 (device by device) for inputs not in the
   * global window.
   */
  int deviceGroups(PCollection<?>... inputs) {
    for (PCollection<?> input : inputs) {
      if (!(input.getWindowingStrategy().getWindowFn() instanceof GlobalWindows)) {
        return 0;
      }
    }
    if (isStream(inputs)) {
      if (!streamsInGroups) {
        return 0;
      }
      return expectedDevices <= 0 ? STREAM_GROUPS : groupsOf(expectedDevices);
    }
    return expectedDevices <= 0 ? 0 : groupsOf(expectedDevices);
  }

  private static int groupsOf(int devices) {
    return (devices + DEVICES_PER_GROUP - 1) / DEVICES_PER_GROUP;
  }

  private static boolean isStream(PCollection<?>... inputs) {
    for (PCollection<?> input : inputs) {
      if (input.isBounded() != PCollection.IsBounded.BOUNDED) {
        return true;
      }
    }
    return false;
  }

  /** The join key of a device: the device itself, or its group of {@code groups}. */
  static String joinKey(String deviceId, int groups) {
    return groups == 0 ? deviceId : "group-" + Math.floorMod(deviceId.hashCode(), groups);
  }

  /**
   * What the job's graph shows of this step: its lateness, the devices it expects, and how it
   * groups ({@link #withStreamsInGroups}, {@link #withKeysPerMinute}), the runner's choice.
   */
  @Override
  public void populateDisplayData(DisplayData.Builder builder) {
    super.populateDisplayData(builder);
    builder
        .add(DisplayData.item("allowedLateness", allowedLateness).withLabel("Allowed lateness"))
        .add(DisplayData.item("watermarkSlack", watermarkSlack).withLabel("Watermark slack"))
        .add(DisplayData.item("expectedDevices", expectedDevices).withLabel("Expected devices"))
        .add(
            DisplayData.item("streamsInGroups", streamsInGroups)
                .withLabel("A stream's devices joined in groups"))
        .add(
            DisplayData.item("keysPerMinute", keysPerMinute)
                .withLabel("A bounded input's groups keyed per minute"));
  }

  @Override
  public PCollectionTuple expand(PCollectionTuple silver) {
    PCollection<SensorReading> silverReadings = silver.get(ValidateAndEnrich.READINGS);
    PCollection<Heartbeat> silverHeartbeats = silver.get(ValidateAndEnrich.HEARTBEATS);
    int groups = deviceGroups(silverReadings, silverHeartbeats);
    TooLate<SensorReading> lateReading =
        new TooLate<>(
            allowedLateness,
            SensorReading::getEventTs,
            SensorReading::getReceivedAt,
            r ->
                tooLate(
                    r.getEventTs(),
                    r.getReceivedAt(),
                    r.getRawPayload(),
                    r.getSource(),
                    r.getSourceName()));
    TooLate<Heartbeat> lateHeartbeat =
        new TooLate<>(
            allowedLateness,
            Heartbeat::getEventTs,
            Heartbeat::getReceivedAt,
            h ->
                tooLate(
                    h.getEventTs(),
                    h.getReceivedAt(),
                    h.getRawPayload(),
                    h.getSource(),
                    h.getSourceName()));
    PCollectionTuple join =
        joinPerDevice(silverReadings, silverHeartbeats, lateReading, lateHeartbeat, groups);
    PCollection<KV<String, CoGbkResult>> joined = join.get(JOINED);
    TupleTagList otherRows = TupleTagList.of(TOO_LATE).and(SENSOR_MINUTE).and(SITE_PARTS);
    PCollectionTuple deviceMinute;
    if (groups > 0 && isStream(silverReadings, silverHeartbeats)) {
      deviceMinute = streamDeviceMinute(joined);
    } else {
      DeviceMinuteFn toDeviceMinute =
          groups == 0 ? new DeviceMinuteFn(catalog) : new DeviceMinuteFn(catalog).inBatches();
      deviceMinute =
          joined.apply(
              "ToDeviceMinute", ParDo.of(toDeviceMinute).withOutputTags(DEVICE_MINUTE, otherRows));
    }
    deviceMinute.get(DEVICE_MINUTE).setRowSchema(GoldColumns.deviceMinute(catalog));
    PCollectionTuple siteMinute =
        deviceMinute
            .get(SITE_PARTS)
            .setCoder(SITE_PARTS_CODER)
            .apply("GroupDevicesPerSitePart", GroupByKey.create())
            .apply("MergeSitePart", ParDo.of(new MergeSitePartFn()))
            .setCoder(SITE_PARTS_CODER)
            .apply("GroupPartsPerSite", GroupByKey.create())
            .apply(
                "ToSiteMinute",
                ParDo.of(new SiteMinuteFn(catalog))
                    .withOutputTags(SITE_MINUTE, TupleTagList.of(TOO_LATE)));
    siteMinute.get(SITE_MINUTE).setRowSchema(GoldColumns.siteMinute(catalog));

    PCollection<DeadLetter> deadLetters =
        PCollectionList.of(join.get(READINGS_TOO_LATE))
            .and(join.get(HEARTBEATS_TOO_LATE))
            .and(outOfWindows("Device", deviceMinute.get(TOO_LATE)))
            .and(outOfWindows("Site", siteMinute.get(TOO_LATE)))
            .apply("FlattenDeadLetters", Flatten.pCollections());
    return PCollectionTuple.of(DEVICE_MINUTE, deviceMinute.get(DEVICE_MINUTE))
        .and(SITE_MINUTE, siteMinute.get(SITE_MINUTE))
        .and(SENSOR_MINUTE, deviceMinute.get(SENSOR_MINUTE))
        .and(TOO_LATE, deadLetters);
  }

  /**
   * The device rows of a stream's groups ({@link #withStreamsInGroups}) from a step with state per
   * group and window ({@link StreamDeviceMinuteFn}), and the devices' aggregates for their sites
   * from a step without ({@link StreamSitePartsFn}). A step with state in a window holds the
   * watermark of every step after it at the window's end until the window expires: the sites' panes
   * would wait for the allowed lateness. The tables are written on processing time and do not wait.
   */
  private PCollectionTuple streamDeviceMinute(PCollection<KV<String, CoGbkResult>> joined) {
    PCollectionTuple rows =
        joined.apply(
            "ToDeviceMinute",
            ParDo.of(new StreamDeviceMinuteFn(catalog))
                .withOutputTags(DEVICE_MINUTE, TupleTagList.of(TOO_LATE).and(SENSOR_MINUTE)));
    PCollection<KV<String, KV<Long, MinuteStats>>> siteParts =
        joined.apply("ToSiteParts", ParDo.of(new StreamSitePartsFn(catalog)));
    return PCollectionTuple.of(DEVICE_MINUTE, rows.get(DEVICE_MINUTE))
        .and(SENSOR_MINUTE, rows.get(SENSOR_MINUTE))
        .and(TOO_LATE, rows.get(TOO_LATE))
        .and(SITE_PARTS, siteParts);
  }

  private static final TupleTag<SensorReading> ONTIME_READINGS = new TupleTag<>() {};
  private static final TupleTag<Heartbeat> ONTIME_HEARTBEATS = new TupleTag<>() {};
  private static final TupleTag<KV<String, CoGbkResult>> JOINED = new TupleTag<>() {};
  private static final TupleTag<DeadLetter> READINGS_TOO_LATE = new TupleTag<>() {};
  private static final TupleTag<DeadLetter> HEARTBEATS_TOO_LATE = new TupleTag<>() {};
  static final TupleTag<SensorReading> READINGS_SIDE = new TupleTag<>() {};
  static final TupleTag<Heartbeat> HEARTBEATS_SIDE = new TupleTag<>() {};
  static final TupleTag<byte[]> READING_BATCHES_SIDE = new TupleTag<>() {};
  static final TupleTag<byte[]> HEARTBEAT_BATCHES_SIDE = new TupleTag<>() {};

  /**
   * A device's aggregates of a window with the index of the device's pane, keyed by its site part
   * ({@link #sitePart}): panes accumulate, so of one device's parts the one of the highest pane
   * holds all the others do.
   */
  static final TupleTag<KV<String, KV<Long, MinuteStats>>> SITE_PARTS = new TupleTag<>() {};

  /**
   * A site's devices are added up in this many parts first, then the parts per site. A grouping
   * step of the DirectRunner copies a key's values for every bundle that reaches it, and the device
   * step hands on each device's row in a bundle of its own: with the site as the only key, a site
   * of 250 devices copied 250 × 250 / 2 device aggregates per window.
   */
  static final int SITE_PARTS_PER_SITE = 16;

  /** The key of a device's site part: {@code <site>#<0..15>}, from its device id. */
  static String sitePart(String site, String deviceId) {
    return site + "#" + partOf(deviceId);
  }

  private static int partOf(String deviceId) {
    return Math.floorMod(deviceId.hashCode(), SITE_PARTS_PER_SITE);
  }

  private static final Coder<KV<String, KV<Long, MinuteStats>>> SITE_PARTS_CODER =
      KvCoder.of(StringUtf8Coder.of(), KvCoder.of(VarLongCoder.of(), MinuteStats.CODER));

  private <T> Window<T> minuteWindows() {
    return Window.<T>into(FixedWindows.of(WINDOW))
        .triggering(
            AfterWatermark.pastEndOfWindow()
                .withLateFirings(
                    AfterProcessingTime.pastFirstElementInPane().plusDelayOf(LATE_FIRING_DELAY)))
        .withAllowedLateness(allowedLateness.plus(watermarkSlack))
        .accumulatingFiredPanes();
  }

  /** Dead letters of the windowed steps, back in the global window of the others. */
  private static PCollection<DeadLetter> outOfWindows(String name, PCollection<DeadLetter> failed) {
    return failed.apply(
        "DeadLettersOutOfWindows" + name,
        Window.<DeadLetter>into(new GlobalWindows())
            .triggering(DefaultTrigger.of())
            .withAllowedLateness(Duration.ZERO)
            .discardingFiredPanes());
  }

  /**
   * The Failsafe of a device row: when a device's row cannot be computed, each of its records
   * becomes a Gold dead letter ({@code unexpected_error} with the stack trace) instead of failing
   * the bundle. A record that came in a batch, which carries no raw payload ({@link
   * IotRecordCoders#READING_BATCH}), has the fields Gold read of it as its payload ({@link
   * #goldFields}); its line is in Bronze, at its source.
   */
  static void quarantineDevice(
      DeviceRecords device, RuntimeException thrown, MultiOutputReceiver out) {
    InvalidRecordException e = Failsafe.rejection(thrown);
    Instant now = Instant.now();
    List<DeadLetter> letters = new ArrayList<>();
    for (SensorReading r : device.readings) {
      String payload = r.getRawPayload().isEmpty() ? goldFields(r) : r.getRawPayload();
      letters.add(failed(e, payload, r.getSource(), r.getSourceName(), r.getEventTs(), now));
    }
    for (Heartbeat h : device.heartbeats) {
      String payload = h.getRawPayload().isEmpty() ? goldFields(h) : h.getRawPayload();
      letters.add(failed(e, payload, h.getSource(), h.getSourceName(), h.getEventTs(), now));
    }
    for (DeadLetter d : letters) {
      Rejections.count(DeadLetter.GOLD, e.getReason());
      out.get(TOO_LATE).output(d);
    }
  }

  /**
   * A reading as Gold read it, as a JSON object: its device, sensor type, value and unit (after
   * Silver's conversion), instant and {@code seq}.
   */
  static String goldFields(SensorReading r) {
    ObjectNode o = Json.mapper().createObjectNode();
    o.put("device_id", r.getDeviceId())
        .put("sensor_type", r.getSensorType())
        .put("value", r.getValue())
        .put("unit", r.getUnit())
        .put("ts", r.getEventTs().toString());
    if (r.getSeq() != null) {
      o.put("seq", r.getSeq());
    }
    return o.toString();
  }

  /** A heartbeat as Gold read it, as a JSON object: its device, battery, RSSI, status, instant. */
  static String goldFields(Heartbeat h) {
    return Json.mapper()
        .createObjectNode()
        .put("device_id", h.getDeviceId())
        .put("battery_pct", h.getBatteryPct())
        .put("rssi_dbm", h.getRssiDbm())
        .put("status", h.getStatus())
        .put("ts", h.getEventTs().toString())
        .toString();
  }

  /** One device's readings and heartbeats of a joined group. */
  static final class DeviceRecords {
    final String deviceId;
    final List<SensorReading> readings = new ArrayList<>();
    final List<Heartbeat> heartbeats = new ArrayList<>();

    private DeviceRecords(String deviceId) {
      this.deviceId = deviceId;
    }

    /** A group's records by device, in the order of the devices' ids. */
    static Collection<DeviceRecords> of(CoGbkResult group) {
      return of(group.getAll(READINGS_SIDE), group.getAll(HEARTBEATS_SIDE));
    }

    /** A group's records by device, from its batches ({@link KeyedBatches}). */
    static Collection<DeviceRecords> ofBatches(CoGbkResult group) {
      List<SensorReading> readings = new ArrayList<>();
      for (byte[] batch : group.getAll(READING_BATCHES_SIDE)) {
        readings.addAll(KeyedBatches.decodeBatch(batch, IotRecordCoders.READING_BATCH));
      }
      List<Heartbeat> heartbeats = new ArrayList<>();
      for (byte[] batch : group.getAll(HEARTBEAT_BATCHES_SIDE)) {
        heartbeats.addAll(KeyedBatches.decodeBatch(batch, IotRecordCoders.HEARTBEAT_BATCH));
      }
      return of(readings, heartbeats);
    }

    private static Collection<DeviceRecords> of(
        Iterable<SensorReading> readings, Iterable<Heartbeat> heartbeats) {
      Map<String, DeviceRecords> devices = new TreeMap<>();
      for (SensorReading r : readings) {
        devices.computeIfAbsent(r.getDeviceId(), DeviceRecords::new).readings.add(r);
      }
      for (Heartbeat h : heartbeats) {
        devices.computeIfAbsent(h.getDeviceId(), DeviceRecords::new).heartbeats.add(h);
      }
      return devices.values();
    }
  }

  private static DeadLetter failed(
      InvalidRecordException e,
      String payload,
      String source,
      String sourceName,
      @Nullable Instant eventTs,
      Instant now) {
    return DeadLetter.of(
        DeadLetter.GOLD, e.getReason(), e.getMessage(), payload, source, sourceName, eventTs, now);
  }

  /**
   * The on-time records in minute windows, joined per device ({@code groups} 0) or per group of
   * devices, in batches ({@link KeyedBatches}: the batches, not the records, are windowed), as
   * {@link #JOINED}; the records too late for their windows as dead letters, {@link
   * #READINGS_TOO_LATE} and {@link #HEARTBEATS_TOO_LATE}. In batches, the step that batches the
   * records also turns the late ones away: on Spark a step of its own to split them off is kept on
   * disk, every on-time record encoded and decoded once more.
   */
  private PCollectionTuple joinPerDevice(
      PCollection<SensorReading> readings,
      PCollection<Heartbeat> heartbeats,
      TooLate<SensorReading> lateReading,
      TooLate<Heartbeat> lateHeartbeat,
      int groups) {
    SerializableFunction<SensorReading, String> readingKey = r -> joinKey(r.getDeviceId(), groups);
    SerializableFunction<Heartbeat, String> heartbeatKey = h -> joinKey(h.getDeviceId(), groups);
    if (groups > 0) {
      boolean perMinute = keysPerMinute && !isStream(readings, heartbeats);
      PCollectionTuple r =
          readings.apply(
              "BatchReadingsByDevice",
              batchesPerMinute(readingKey, perMinute)
                  .withBatchCoder(IotRecordCoders.READING_BATCH)
                  .rejecting(READINGS_TOO_LATE, lateReading));
      PCollectionTuple h =
          heartbeats.apply(
              "BatchHeartbeatsByDevice",
              batchesPerMinute(heartbeatKey, perMinute)
                  .withBatchCoder(IotRecordCoders.HEARTBEAT_BATCH)
                  .rejecting(HEARTBEATS_TOO_LATE, lateHeartbeat));
      PCollection<KV<String, CoGbkResult>> joined =
          KeyedPCollectionTuple.of(READING_BATCHES_SIDE, r.get(KeyedBatches.BATCHES))
              .and(HEARTBEAT_BATCHES_SIDE, h.get(KeyedBatches.BATCHES))
              .apply("JoinPerDevice", CoGroupByKey.create());
      return PCollectionTuple.of(JOINED, joined)
          .and(READINGS_TOO_LATE, r.get(READINGS_TOO_LATE))
          .and(HEARTBEATS_TOO_LATE, h.get(HEARTBEATS_TOO_LATE));
    }
    PCollectionTuple onTimeReadings =
        splitTooLate("Readings", readings, ONTIME_READINGS, READINGS_TOO_LATE, lateReading);
    PCollectionTuple onTimeHeartbeats =
        splitTooLate(
            "Heartbeats", heartbeats, ONTIME_HEARTBEATS, HEARTBEATS_TOO_LATE, lateHeartbeat);
    PCollection<KV<String, SensorReading>> r =
        onTimeReadings
            .get(ONTIME_READINGS)
            .apply("MinuteWindowsReadings", minuteWindows())
            .apply(
                "KeyReadingsByDevice",
                WithKeys.of(readingKey).withKeyType(TypeDescriptors.strings()));
    PCollection<KV<String, Heartbeat>> h =
        onTimeHeartbeats
            .get(ONTIME_HEARTBEATS)
            .apply("MinuteWindowsHeartbeats", minuteWindows())
            .apply(
                "KeyHeartbeatsByDevice",
                WithKeys.of(heartbeatKey).withKeyType(TypeDescriptors.strings()));
    PCollection<KV<String, CoGbkResult>> joined =
        KeyedPCollectionTuple.of(READINGS_SIDE, r)
            .and(HEARTBEATS_SIDE, h)
            .apply("JoinPerDevice", CoGroupByKey.create());
    return PCollectionTuple.of(JOINED, joined)
        .and(READINGS_TOO_LATE, onTimeReadings.get(READINGS_TOO_LATE))
        .and(HEARTBEATS_TOO_LATE, onTimeHeartbeats.get(HEARTBEATS_TOO_LATE));
  }

  /**
   * A group's records in batches per minute, keyed by group, or by group and minute ({@link
   * #withKeysPerMinute}).
   */
  private <T> KeyedBatches<T> batchesPerMinute(
      SerializableFunction<T, String> key, boolean perMinute) {
    KeyedBatches<T> batches = KeyedBatches.into(key, this.<KV<String, byte[]>>minuteWindows());
    return perMinute ? batches.keyedPerWindow() : batches;
  }

  private <T> PCollectionTuple splitTooLate(
      String name,
      PCollection<T> records,
      TupleTag<T> onTime,
      TupleTag<DeadLetter> late,
      TooLate<T> tooLate) {
    PCollectionTuple split =
        records.apply(
            "SplitTooLate" + name,
            ParDo.of(new SplitTooLateFn<>(tooLate, onTime, late))
                .withOutputTags(onTime, TupleTagList.of(late)));
    split.get(onTime).setCoder(records.getCoder());
    return split;
  }

  private static DeadLetter tooLate(
      Instant eventTs, Instant receivedAt, String payload, String source, String sourceName) {
    return DeadLetter.of(
        DeadLetter.GOLD,
        "too_late",
        "event at "
            + eventTs
            + " arrived at "
            + receivedAt
            + ", after its window closed and its allowed lateness ran out",
        payload,
        source,
        sourceName,
        eventTs,
        Instant.now());
  }

  /**
   * A record's dead letter when it is later than the allowed lateness (against its arrival),
   * counted as a rejection (reported when the bundle ends, {@link #flush}); null when it is on
   * time.
   */
  static final class TooLate<T>
      implements SerializableFunction<T, @Nullable DeadLetter>, CountsPerBundle {
    private final Duration allowedLateness;
    private final SerializableFunction<T, Instant> eventTs;
    private final SerializableFunction<T, Instant> receivedAt;
    private final SerializableFunction<T, DeadLetter> toDeadLetter;
    private final Rejections.Examples rejections = new Rejections.Examples();

    TooLate(
        Duration allowedLateness,
        SerializableFunction<T, Instant> eventTs,
        SerializableFunction<T, Instant> receivedAt,
        SerializableFunction<T, DeadLetter> toDeadLetter) {
      this.allowedLateness = allowedLateness;
      this.eventTs = eventTs;
      this.receivedAt = receivedAt;
      this.toDeadLetter = toDeadLetter;
    }

    @Override
    public @Nullable DeadLetter apply(T record) {
      if (!Lateness.isTooLate(
          eventTs.apply(record), receivedAt.apply(record), WINDOW, allowedLateness)) {
        return null;
      }
      DeadLetter letter = toDeadLetter.apply(record);
      rejections.count(DeadLetter.GOLD, letter);
      return letter;
    }

    @Override
    public void flush() {
      rejections.flush();
    }
  }

  /** Routes records later than the allowed lateness ({@link TooLate}) to {@code late}. */
  static class SplitTooLateFn<T> extends DoFn<T, T> {
    private final TooLate<T> tooLate;
    private final TupleTag<T> onTime;
    private final TupleTag<DeadLetter> late;

    SplitTooLateFn(TooLate<T> tooLate, TupleTag<T> onTime, TupleTag<DeadLetter> late) {
      this.tooLate = tooLate;
      this.onTime = onTime;
      this.late = late;
    }

    @ProcessElement
    public void process(@Element T record, MultiOutputReceiver out) {
      DeadLetter letter = tooLate.apply(record);
      if (letter != null) {
        out.get(late).output(letter);
      } else {
        out.get(onTime).output(record);
      }
    }

    @FinishBundle
    public void finishBundle() {
      tooLate.flush();
    }
  }

  /**
   * The rows of a joined group's devices (one device, or a group of a bounded input's devices):
   * each device's row from its own records, and its aggregates for its site and its sensor types.
   */
  static class DeviceMinuteFn extends DoFn<KV<String, CoGbkResult>, Row> {
    private final GoldColumns.Widen<DeviceMinute> widen;
    // Whether the records come in batches (a bounded input) or one by one.
    private final boolean batches;

    DeviceMinuteFn(SensorCatalog catalog) {
      this(widen(catalog), false);
    }

    /** The device row's wide form: the catalog's aggregates as columns ({@link GoldColumns}). */
    static GoldColumns.Widen<DeviceMinute> widen(SensorCatalog catalog) {
      return GoldColumns.Widen.of(DeviceMinute.class, GoldColumns.deviceMinute(catalog), catalog);
    }

    private DeviceMinuteFn(GoldColumns.Widen<DeviceMinute> widen, boolean batches) {
      this.widen = widen;
      this.batches = batches;
    }

    /** The same step over groups of batches of records ({@link DeviceRecords#ofBatches}). */
    DeviceMinuteFn inBatches() {
      return new DeviceMinuteFn(widen, true);
    }

    @ProcessElement
    public void process(
        @Element KV<String, CoGbkResult> e,
        BoundedWindow w,
        PaneInfo pane,
        MultiOutputReceiver out) {
      Collection<DeviceRecords> devices =
          batches ? DeviceRecords.ofBatches(e.getValue()) : DeviceRecords.of(e.getValue());
      for (DeviceRecords device : devices) {
        output(widen, device, w, pane.getIndex(), pane.getTiming(), true, out);
      }
    }

    /**
     * A device's row of pane {@code index}, its aggregates for its sensor types and (when {@code
     * siteParts}) for its site; or, when its row cannot be computed, its records as dead letters.
     */
    static void output(
        GoldColumns.Widen<DeviceMinute> widen,
        DeviceRecords device,
        BoundedWindow window,
        long index,
        PaneInfo.Timing timing,
        boolean siteParts,
        MultiOutputReceiver out) {
      DeviceRow computed;
      try {
        computed = DeviceRow.of(widen, device, window, index, timing);
      } catch (RuntimeException thrown) {
        quarantineDevice(device, thrown, out);
        return;
      }
      DeviceMinute row = computed.row;
      DEVICE_ROWS.inc();
      out.get(DEVICE_MINUTE).output(computed.wide);
      if (siteParts) {
        out.get(SITE_PARTS).output(computed.sitePart());
      }
      computed.types.forEach(
          (type, typeStats) -> {
            SENSOR_ROWS.inc();
            out.get(SENSOR_MINUTE).output(SensorMinute.of(row, type, typeStats));
          });
    }

    /**
     * A device's row, wide row, aggregates and aggregates by sensor type, of pane {@code index}.
     */
    static final class DeviceRow {
      final DeviceMinute row;
      final Row wide;
      final MinuteStats stats;
      final Map<String, MinuteStats.TypeStats> types;

      private DeviceRow(
          DeviceMinute row, Row wide, MinuteStats stats, Map<String, MinuteStats.TypeStats> types) {
        this.row = row;
        this.wide = wide;
        this.stats = stats;
        this.types = types;
      }

      /** Throws what computing the row threw: its records are then quarantined. */
      static DeviceRow of(
          GoldColumns.Widen<DeviceMinute> widen,
          DeviceRecords device,
          BoundedWindow window,
          long index,
          PaneInfo.Timing timing) {
        MinuteStats stats = MinuteStats.of(device.readings, device.heartbeats);
        DeviceMinute row = row(device, (IntervalWindow) window, index, timing, stats);
        Map<String, MinuteStats.TypeStats> types = stats.byType();
        return new DeviceRow(row, widen.apply(row, types), stats, types);
      }

      /** The device's aggregates for its site part, with the index of its pane. */
      KV<String, KV<Long, MinuteStats>> sitePart() {
        return KV.of(
            WindowedDeviceStats.sitePart(row.getSite(), row.getDeviceId()),
            KV.of(row.getPaneIndex(), stats));
      }
    }

    static DeviceMinute row(
        DeviceRecords device,
        IntervalWindow window,
        long index,
        PaneInfo.Timing timing,
        MinuteStats stats) {
      String site;
      String zone;
      if (!device.readings.isEmpty()) {
        SensorReading any = device.readings.get(0);
        site = any.getSite();
        zone = any.getZone();
      } else {
        Heartbeat any = device.heartbeats.get(0);
        site = any.getSite();
        zone = any.getZone();
      }
      return DeviceMinute.of(
          device.deviceId,
          site,
          zone,
          window.start(),
          window.end(),
          stats,
          index,
          timing.name(),
          Instant.now());
    }
  }

  /**
   * The rows of a stream's group of devices ({@link #withStreamsInGroups}): of each pane of the
   * group (which holds every record of its devices in the window so far), the devices with more
   * records than the group's earlier panes held, each with the index of its own pane (how many of
   * those earlier panes had records of it) and the group's pane's timing. Kept per group and
   * window: each device's records and panes so far. Its sites' aggregates come from {@link
   * StreamSitePartsFn}.
   */
  static class StreamDeviceMinuteFn extends DoFn<KV<String, CoGbkResult>, Row> {
    private static final String DEVICES = "devices";

    @StateId(DEVICES)
    private final StateSpec<ValueState<Map<String, KV<Long, Long>>>> devices =
        StateSpecs.value(
            MapCoder.of(StringUtf8Coder.of(), KvCoder.of(VarLongCoder.of(), VarLongCoder.of())));

    private final GoldColumns.Widen<DeviceMinute> widen;

    StreamDeviceMinuteFn(SensorCatalog catalog) {
      this.widen = DeviceMinuteFn.widen(catalog);
    }

    @ProcessElement
    public void process(
        @Element KV<String, CoGbkResult> e,
        BoundedWindow w,
        PaneInfo pane,
        @StateId(DEVICES) ValueState<Map<String, KV<Long, Long>>> state,
        MultiOutputReceiver out) {
      Map<String, KV<Long, Long>> read = state.read();
      Map<String, KV<Long, Long>> seen = read == null ? new HashMap<>() : new HashMap<>(read);
      for (DeviceRecords device : DeviceRecords.ofBatches(e.getValue())) {
        long records = device.readings.size() + device.heartbeats.size();
        KV<Long, Long> earlier = seen.get(device.deviceId);
        if (earlier != null && earlier.getKey() == records) {
          continue; // nothing new of this device: its row stands
        }
        long index = earlier == null ? 0 : earlier.getValue() + 1;
        seen.put(device.deviceId, KV.of(records, index));
        DeviceMinuteFn.output(widen, device, w, index, pane.getTiming(), false, out);
      }
      state.write(seen);
    }
  }

  /**
   * The aggregates of every device of a stream's group's pane for its site part, with the index of
   * the group's pane: of each device, the part of the latest pane holds all its records. A device
   * whose row cannot be computed has none, as device by device: its records are dead letters of
   * {@link StreamDeviceMinuteFn}, which computes the same row from the same records.
   */
  static class StreamSitePartsFn
      extends DoFn<KV<String, CoGbkResult>, KV<String, KV<Long, MinuteStats>>> {
    private final GoldColumns.Widen<DeviceMinute> widen;

    StreamSitePartsFn(SensorCatalog catalog) {
      this.widen = DeviceMinuteFn.widen(catalog);
    }

    @ProcessElement
    public void process(
        @Element KV<String, CoGbkResult> e,
        BoundedWindow w,
        PaneInfo pane,
        OutputReceiver<KV<String, KV<Long, MinuteStats>>> out) {
      for (DeviceRecords device : DeviceRecords.ofBatches(e.getValue())) {
        DeviceMinuteFn.DeviceRow computed;
        try {
          computed =
              DeviceMinuteFn.DeviceRow.of(widen, device, w, pane.getIndex(), pane.getTiming());
        } catch (RuntimeException thrown) {
          continue;
        }
        out.output(computed.sitePart());
      }
    }
  }

  /**
   * Of each group's parts (all the parts of one group come from one grouping key, whose panes
   * accumulate), the part of the highest pane. A part's group is that of any of its devices.
   */
  static Collection<MinuteStats> latest(
      Iterable<KV<Long, MinuteStats>> parts, SerializableFunction<String, String> groupOfDevice) {
    Map<String, KV<Long, MinuteStats>> latest = new TreeMap<>();
    for (KV<Long, MinuteStats> part : parts) {
      String group = groupOfDevice.apply(part.getValue().getDevices().iterator().next());
      latest.merge(group, part, (a, b) -> a.getKey() >= b.getKey() ? a : b);
    }
    return latest.values().stream().map(KV::getValue).toList();
  }

  /**
   * A site part's devices added up, each device's part of its latest pane: keyed by the site, with
   * the index of the part's pane.
   */
  static class MergeSitePartFn
      extends DoFn<KV<String, Iterable<KV<Long, MinuteStats>>>, KV<String, KV<Long, MinuteStats>>> {
    @ProcessElement
    public void process(
        @Element KV<String, Iterable<KV<Long, MinuteStats>>> e,
        PaneInfo pane,
        OutputReceiver<KV<String, KV<Long, MinuteStats>>> out) {
      String site = e.getKey().substring(0, e.getKey().lastIndexOf('#'));
      MinuteStats merged = MinuteStats.merge(latest(e.getValue(), device -> device));
      out.output(KV.of(site, KV.of(pane.getIndex(), merged)));
    }
  }

  /**
   * A site's row from its parts' aggregates ({@link MergeSitePartFn}), of each part those of its
   * latest pane, merged ({@link MinuteStats#merge}): a device's late pane reaches the site in a
   * late pane of its part, which replaces the part's earlier one, so nothing counts twice.
   */
  static class SiteMinuteFn extends DoFn<KV<String, Iterable<KV<Long, MinuteStats>>>, Row> {
    private final GoldColumns.Widen<SiteMinute> widen;

    SiteMinuteFn(SensorCatalog catalog) {
      this.widen = GoldColumns.Widen.of(SiteMinute.class, GoldColumns.siteMinute(catalog), catalog);
    }

    @ProcessElement
    public void process(
        @Element KV<String, Iterable<KV<Long, MinuteStats>>> e,
        BoundedWindow w,
        PaneInfo pane,
        MultiOutputReceiver out) {
      Row row;
      try {
        IntervalWindow window = (IntervalWindow) w;
        MinuteStats stats =
            MinuteStats.merge(latest(e.getValue(), device -> String.valueOf(partOf(device))));
        SiteMinute site =
            SiteMinute.of(
                e.getKey(),
                window.start(),
                window.end(),
                stats,
                pane.getIndex(),
                pane.getTiming().name(),
                Instant.now());
        row = widen.apply(site, stats.byType());
      } catch (RuntimeException thrown) {
        quarantineSite(e, w, thrown, out);
        return;
      }
      SITE_ROWS.inc();
      out.get(SITE_MINUTE).output(row);
    }

    /**
     * The site's records are in its devices' rows already; a site row that cannot be computed
     * becomes one Gold dead letter ({@code unexpected_error}) naming the site, window and devices.
     */
    private static void quarantineSite(
        KV<String, Iterable<KV<Long, MinuteStats>>> e,
        BoundedWindow w,
        RuntimeException thrown,
        MultiOutputReceiver out) {
      InvalidRecordException x = Failsafe.rejection(thrown);
      Set<String> devices = new TreeSet<>();
      for (KV<Long, MinuteStats> part : e.getValue()) {
        devices.addAll(part.getValue().getDevices());
      }
      Rejections.count(DeadLetter.GOLD, x.getReason());
      String payload = "site_minute of " + e.getKey() + " in " + w + " from devices " + devices;
      out.get(TOO_LATE).output(failed(x, payload, "gold", "site_minute", null, Instant.now()));
    }
  }
}
