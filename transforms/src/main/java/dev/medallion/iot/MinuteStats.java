package dev.medallion.iot;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Collections;
import java.util.Comparator;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.beam.sdk.coders.CustomCoder;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * The aggregates of one window over a group of readings and heartbeats (one device, or one site).
 *
 * <p>Resent events count once. A reading is identified by {@code (device_id, sensor_type, ts
 * instant, seq)} when it has a {@code seq}, and by {@code (device_id, sensor_type, ts instant)}
 * when it has none: a resend repeats its {@code seq}, so two readings at one instant with different
 * {@code seq} both count, and a reading with a {@code seq} is never the same as one without. A
 * heartbeat (no {@code seq}) is identified by {@code (device_id, ts instant)}. Of two copies of a
 * reading the one with the smaller value is kept, of two copies of a heartbeat the one with the
 * smaller (battery, RSSI, status), so the result does not depend on arrival order. Values of an
 * absent kind are null, never 0. The reading count covers every sensor type Silver kept; {@link
 * #byType} has each type's aggregates.
 *
 * <p>The aggregates of disjoint groups add up ({@link #merge}): a site's are its devices' (a
 * reading's identity includes its device, so no resend spans two devices), which is how Gold rolls
 * sites up without grouping their records a second time. {@link #CODER} carries them between steps.
 */
public final class MinuteStats {
  private long readingCount;
  private long heartbeatCount;
  private final Set<String> devices = new TreeSet<>();
  private final Map<String, Avg> byType = new TreeMap<>();
  private final Map<String, String> units = new TreeMap<>();
  private final Avg battery = new Avg();
  private final Avg rssi = new Avg();
  // The latest heartbeat: its instant, device and status (all null without a heartbeat).
  private @Nullable Instant latestTs;
  private @Nullable String latestDevice;
  private @Nullable String latestStatus;

  // Of two copies, the one these order first is kept: by what Gold reads of them, as Gold's
  // batches carry nothing else (a reading's unit is its type's).
  private static final Comparator<SensorReading> READING_ORDER =
      Comparator.comparingDouble(SensorReading::getValue);
  private static final Comparator<Heartbeat> HEARTBEAT_ORDER =
      Comparator.comparingDouble(Heartbeat::getBatteryPct)
          .thenComparingLong(Heartbeat::getRssiDbm)
          .thenComparing(Heartbeat::getStatus);

  private MinuteStats() {}

  public static MinuteStats of(Iterable<SensorReading> readings, Iterable<Heartbeat> heartbeats) {
    Map<String, SensorReading> uniqueReadings = new TreeMap<>();
    for (SensorReading r : readings) {
      uniqueReadings.merge(identity(r), r, (a, b) -> READING_ORDER.compare(a, b) <= 0 ? a : b);
    }
    Map<String, Heartbeat> uniqueHeartbeats = new TreeMap<>();
    for (Heartbeat h : heartbeats) {
      String key = h.getDeviceId() + "|" + h.getEventTs().getMillis();
      uniqueHeartbeats.merge(key, h, (a, b) -> HEARTBEAT_ORDER.compare(a, b) <= 0 ? a : b);
    }
    MinuteStats s = new MinuteStats();
    for (SensorReading r : uniqueReadings.values()) {
      s.readingCount++;
      s.devices.add(r.getDeviceId());
      s.byType.computeIfAbsent(r.getSensorType(), t -> new Avg()).add(r.getValue());
      s.units.putIfAbsent(r.getSensorType(), r.getUnit());
    }
    for (Heartbeat h : uniqueHeartbeats.values()) {
      s.heartbeatCount++;
      s.devices.add(h.getDeviceId());
      s.battery.add(h.getBatteryPct());
      s.rssi.add(h.getRssiDbm());
      s.keepLatest(h.getEventTs(), h.getDeviceId(), h.getStatus());
    }
    return s;
  }

  /**
   * The aggregates of the union of disjoint groups (no reading or heartbeat in two of them, as with
   * the groups of different devices): counts and sums added, minima and maxima of both, the latest
   * heartbeat of all. Averages may differ from {@link #of} over the union in the last bits (another
   * order of addition).
   */
  public static MinuteStats merge(Iterable<MinuteStats> parts) {
    MinuteStats s = new MinuteStats();
    for (MinuteStats p : parts) {
      s.readingCount += p.readingCount;
      s.heartbeatCount += p.heartbeatCount;
      s.devices.addAll(p.devices);
      p.byType.forEach((type, a) -> s.byType.computeIfAbsent(type, t -> new Avg()).add(a));
      p.units.forEach(s.units::putIfAbsent);
      s.battery.add(p.battery);
      s.rssi.add(p.rssi);
      if (p.latestTs != null) {
        s.keepLatest(p.latestTs, p.latestDevice, p.latestStatus);
      }
    }
    return s;
  }

  /** Later event time wins; at the same instant (two devices of a site) the larger device id. */
  private void keepLatest(Instant ts, String device, String status) {
    int c = latestTs == null ? 1 : ts.compareTo(latestTs);
    if (c > 0 || (c == 0 && device.compareTo(latestDevice) > 0)) {
      latestTs = ts;
      latestDevice = device;
      latestStatus = status;
    }
  }

  /** The identity of a reading: with its {@code seq} when it has one (see the class comment). */
  private static String identity(SensorReading r) {
    Long seq = r.getSeq();
    return r.getDeviceId()
        + "|"
        + r.getSensorType()
        + "|"
        + r.getEventTs().getMillis()
        + (seq == null ? "" : "|" + seq);
  }

  public long getReadingCount() {
    return readingCount;
  }

  public long getHeartbeatCount() {
    return heartbeatCount;
  }

  public long getDeviceCount() {
    return devices.size();
  }

  /** The readings of one sensor type: count, average, minimum, maximum, in its kept unit. */
  public record TypeStats(long count, double avg, double min, double max, String unit) {}

  /** Each sensor type with readings here, by name. */
  public Map<String, TypeStats> byType() {
    Map<String, TypeStats> out = new TreeMap<>();
    byType.forEach(
        (type, a) -> out.put(type, new TypeStats(a.n, a.sum / a.n, a.min, a.max, units.get(type))));
    return out;
  }

  public @Nullable Double getBatteryPctMin() {
    return battery.min();
  }

  public @Nullable Double getRssiDbmAvg() {
    return rssi.avg();
  }

  public @Nullable String getLastStatus() {
    return latestStatus;
  }

  /** The devices with a reading or a heartbeat here. */
  public Set<String> getDevices() {
    return Collections.unmodifiableSet(devices);
  }

  /** Count, sum, min and max of a series; null aggregates when empty. */
  private static final class Avg {
    private long n;
    private double sum;
    private double min = Double.POSITIVE_INFINITY;
    private double max = Double.NEGATIVE_INFINITY;

    void add(double v) {
      n++;
      sum += v;
      min = Math.min(min, v);
      max = Math.max(max, v);
    }

    void add(Avg other) {
      n += other.n;
      sum += other.sum;
      min = Math.min(min, other.min);
      max = Math.max(max, other.max);
    }

    void write(DataOutputStream out) throws IOException {
      out.writeLong(n);
      out.writeDouble(sum);
      out.writeDouble(min);
      out.writeDouble(max);
    }

    static Avg read(DataInputStream in) throws IOException {
      Avg a = new Avg();
      a.n = in.readLong();
      a.sum = in.readDouble();
      a.min = in.readDouble();
      a.max = in.readDouble();
      return a;
    }

    @Nullable Double avg() {
      return n == 0 ? null : sum / n;
    }

    @Nullable Double min() {
      return n == 0 ? null : min;
    }
  }

  /**
   * Encodes every aggregate (not the records), so {@link #merge} gives the same after a shuffle.
   */
  public static final CustomCoder<MinuteStats> CODER = new StatsCoder();

  private static final class StatsCoder extends CustomCoder<MinuteStats> {
    private static final long serialVersionUID = 1L;

    @Override
    public void encode(MinuteStats s, OutputStream os) throws IOException {
      DataOutputStream out = new DataOutputStream(os);
      out.writeLong(s.readingCount);
      out.writeLong(s.heartbeatCount);
      out.writeInt(s.devices.size());
      for (String d : s.devices) {
        out.writeUTF(d);
      }
      out.writeInt(s.byType.size());
      for (Map.Entry<String, Avg> e : s.byType.entrySet()) {
        out.writeUTF(e.getKey());
        out.writeUTF(s.units.get(e.getKey()));
        e.getValue().write(out);
      }
      s.battery.write(out);
      s.rssi.write(out);
      out.writeBoolean(s.latestTs != null);
      if (s.latestTs != null) {
        out.writeLong(s.latestTs.getMillis());
        out.writeUTF(s.latestDevice);
        out.writeUTF(s.latestStatus);
      }
      out.flush();
    }

    @Override
    public MinuteStats decode(InputStream is) throws IOException {
      DataInputStream in = new DataInputStream(is);
      MinuteStats s = new MinuteStats();
      s.readingCount = in.readLong();
      s.heartbeatCount = in.readLong();
      for (int i = in.readInt(); i > 0; i--) {
        s.devices.add(in.readUTF());
      }
      for (int i = in.readInt(); i > 0; i--) {
        String type = in.readUTF();
        s.units.put(type, in.readUTF());
        s.byType.put(type, Avg.read(in));
      }
      s.battery.add(Avg.read(in));
      s.rssi.add(Avg.read(in));
      if (in.readBoolean()) {
        s.latestTs = new Instant(in.readLong());
        s.latestDevice = in.readUTF();
        s.latestStatus = in.readUTF();
      }
      return s;
    }

    @Override
    public void verifyDeterministic() {}
  }
}
