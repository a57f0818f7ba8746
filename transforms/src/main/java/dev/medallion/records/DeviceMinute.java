package dev.medallion.records;

import com.google.auto.value.AutoValue;
import dev.medallion.gold.MinuteStats;
import org.apache.beam.sdk.schemas.AutoValueSchema;
import org.apache.beam.sdk.schemas.annotations.DefaultSchema;
import org.apache.beam.sdk.schemas.annotations.SchemaCaseFormat;
import org.apache.beam.vendor.guava.v32_1_2_jre.com.google.common.base.CaseFormat;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * A row of {@code gold/device_minute}: one device in one 1-minute event-time window, readings and
 * heartbeats joined (full outer: a side with no events gives counts of 0 and null aggregates). Each
 * firing of the window writes a row; {@code pane_index} grows with each firing and the row with the
 * highest {@code pane_index} of a device-minute replaces the earlier ones in what users read.
 */
@AutoValue
@DefaultSchema(AutoValueSchema.class)
@SchemaCaseFormat(CaseFormat.LOWER_UNDERSCORE)
public abstract class DeviceMinute {
  public abstract String getDeviceId();

  public abstract String getSite();

  public abstract String getZone();

  public abstract Instant getWindowStart();

  public abstract Instant getWindowEnd();

  public abstract long getReadingCount();

  public abstract @Nullable Double getTemperatureAvg();

  public abstract @Nullable Double getTemperatureMin();

  public abstract @Nullable Double getTemperatureMax();

  public abstract @Nullable Double getHumidityAvg();

  public abstract @Nullable Double getPressureAvg();

  public abstract long getHeartbeatCount();

  public abstract @Nullable Double getBatteryPctMin();

  public abstract @Nullable Double getRssiDbmAvg();

  public abstract @Nullable String getLastStatus();

  public abstract long getPaneIndex();

  /** {@code EARLY}, {@code ON_TIME} or {@code LATE}. */
  public abstract String getPaneTiming();

  public abstract String getDate();

  public static DeviceMinute of(
      String deviceId,
      String site,
      String zone,
      Instant windowStart,
      Instant windowEnd,
      MinuteStats stats,
      long paneIndex,
      String paneTiming) {
    return new AutoValue_DeviceMinute(
        deviceId,
        site,
        zone,
        windowStart,
        windowEnd,
        stats.getReadingCount(),
        stats.getTemperatureAvg(),
        stats.getTemperatureMin(),
        stats.getTemperatureMax(),
        stats.getHumidityAvg(),
        stats.getPressureAvg(),
        stats.getHeartbeatCount(),
        stats.getBatteryPctMin(),
        stats.getRssiDbmAvg(),
        stats.getLastStatus(),
        paneIndex,
        paneTiming,
        dev.medallion.common.EventTimestamps.utcDate(windowStart));
  }
}
