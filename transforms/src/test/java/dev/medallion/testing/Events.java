package dev.medallion.testing;

import dev.medallion.core.EventTimestamps;
import dev.medallion.iot.Device;
import dev.medallion.iot.Heartbeat;
import dev.medallion.iot.SensorReading;
import java.util.Map;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/** Small builders of Silver records for tests. */
public final class Events {
  private Events() {}

  public static final Map<String, Device> DEVICES =
      Map.of(
          "dev-0001", Device.of("dev-0001", "berlin", "z1", 52.5, 13.4, "TH-100", "2025-01-01"),
          "dev-0002", Device.of("dev-0002", "berlin", "z2", 52.5, 13.4, "TH-100", "2025-01-01"),
          "dev-0003", Device.of("dev-0003", "paris", "z1", 48.8, 2.3, "TH-200", "2025-02-01"));

  public static Instant at(String iso) {
    return Instant.parse(iso);
  }

  public static SensorReading reading(
      String device, String type, double value, String ts, @Nullable String receivedAt) {
    return reading(device, type, value, ts, receivedAt, null);
  }

  /** A reading with its {@code seq}, which is then also in its raw payload. */
  public static SensorReading reading(
      String device,
      String type,
      double value,
      String ts,
      @Nullable String receivedAt,
      @Nullable Long seq) {
    Device d = DEVICES.get(device);
    Instant t = at(ts);
    String payload =
        "{\"device_id\":\""
            + device
            + "\",\"sensor_type\":\""
            + type
            + "\",\"value\":"
            + value
            + ",\"ts\":\""
            + ts
            + "\""
            + (seq == null ? "" : ",\"seq\":" + seq)
            + "}";
    return SensorReading.builder()
        .setDeviceId(device)
        .setSite(d.getSite())
        .setZone(d.getZone())
        .setLatitude(d.getLatitude())
        .setLongitude(d.getLongitude())
        .setModel(d.getModel())
        .setSensorType(type)
        .setValue(value)
        .setUnit(unitOf(type))
        .setOriginalValue(value)
        .setOriginalUnit(unitOf(type))
        .setSeq(seq)
        .setEventTs(t)
        .setDate(EventTimestamps.utcDate(t))
        .setRawPayload(payload)
        .setSource("test:" + payload.hashCode() + (receivedAt == null ? "" : "@" + receivedAt))
        .setSourceName("test")
        .setReceivedAt(receivedAt == null ? null : at(receivedAt))
        .setIngestTs(t)
        .build();
  }

  public static Heartbeat heartbeat(
      String device,
      double battery,
      long rssi,
      String status,
      String ts,
      @Nullable String receivedAt) {
    Device d = DEVICES.get(device);
    Instant t = at(ts);
    String payload =
        "{\"device_id\":\""
            + device
            + "\",\"battery_pct\":"
            + battery
            + ",\"rssi_dbm\":"
            + rssi
            + ",\"status\":\""
            + status
            + "\",\"ts\":\""
            + ts
            + "\"}";
    return Heartbeat.builder()
        .setDeviceId(device)
        .setSite(d.getSite())
        .setZone(d.getZone())
        .setLatitude(d.getLatitude())
        .setLongitude(d.getLongitude())
        .setModel(d.getModel())
        .setBatteryPct(battery)
        .setRssiDbm(rssi)
        .setStatus(status)
        .setEventTs(t)
        .setDate(EventTimestamps.utcDate(t))
        .setRawPayload(payload)
        .setSource("test:" + payload.hashCode())
        .setSourceName("test")
        .setReceivedAt(receivedAt == null ? null : at(receivedAt))
        .setIngestTs(t)
        .build();
  }

  private static String unitOf(String type) {
    return switch (type) {
      case "temperature" -> "C";
      case "humidity" -> "%";
      default -> "hPa";
    };
  }
}
