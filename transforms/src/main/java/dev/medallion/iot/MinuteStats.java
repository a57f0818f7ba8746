package dev.medallion.iot;

import java.util.Comparator;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * The aggregates of one window over a group of readings and heartbeats (one device, or one site).
 *
 * <p>Resent events count once. A reading is identified by {@code (device_id, sensor_type, ts
 * instant, seq)} when it has a {@code seq}, and by {@code (device_id, sensor_type, ts instant)}
 * when it has none: a resend repeats its {@code seq}, so two readings at one instant with different
 * {@code seq} both count, and a reading with a {@code seq} is never the same as one without. A
 * heartbeat (no {@code seq}) is identified by {@code (device_id, ts instant)}. Of two copies with
 * one identity the one with the smaller (value, raw payload) is kept, so the result does not depend
 * on arrival order. Values of an absent kind are null, never 0. The reading count covers every
 * sensor type Silver kept; {@link #byType} has each type's aggregates.
 */
public final class MinuteStats {
  private long readingCount;
  private long heartbeatCount;
  private final Set<String> devices = new HashSet<>();
  private final Map<String, Avg> byType = new TreeMap<>();
  private final Map<String, String> units = new TreeMap<>();
  private final Avg battery = new Avg();
  private final Avg rssi = new Avg();
  private @Nullable Heartbeat latestHeartbeat;

  private static final Comparator<SensorReading> READING_ORDER =
      Comparator.comparingDouble(SensorReading::getValue)
          .thenComparing(SensorReading::getRawPayload);
  private static final Comparator<Heartbeat> HEARTBEAT_ORDER =
      Comparator.comparing(Heartbeat::getRawPayload);

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
      if (s.latestHeartbeat == null || isLater(h, s.latestHeartbeat)) {
        s.latestHeartbeat = h;
      }
    }
    return s;
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

  /** Later event time wins; at the same instant (two devices of a site) the larger device id. */
  private static boolean isLater(Heartbeat a, Heartbeat b) {
    int c = a.getEventTs().compareTo(b.getEventTs());
    return c > 0 || (c == 0 && a.getDeviceId().compareTo(b.getDeviceId()) > 0);
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
    return latestHeartbeat == null ? null : latestHeartbeat.getStatus();
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

    @Nullable Double avg() {
      return n == 0 ? null : sum / n;
    }

    @Nullable Double min() {
      return n == 0 ? null : min;
    }
  }
}
