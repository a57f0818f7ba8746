package dev.medallion.records;

import com.google.auto.value.AutoValue;
import org.apache.beam.sdk.schemas.AutoValueSchema;
import org.apache.beam.sdk.schemas.annotations.DefaultSchema;
import org.apache.beam.sdk.schemas.annotations.SchemaCaseFormat;
import org.apache.beam.vendor.guava.v32_1_2_jre.com.google.common.base.CaseFormat;
import org.checkerframework.checker.nullness.qual.Nullable;
import dev.medallion.gold.MinuteStats;
import org.joda.time.Instant;

/**
 * A row of {@code gold/device_minute}: one device in one 1-minute event-time window, readings and
 * heartbeats joined (full outer: a side with no events gives counts of 0 and null aggregates).
 * Each firing of the window writes a row; {@code pane_index} grows with each firing and the row with
 * the highest {@code pane_index} of a device-minute replaces the earlier ones in what users read.
 */
@AutoValue
@DefaultSchema(AutoValueSchema.class)
@SchemaCaseFormat(CaseFormat.LOWER_UNDERSCORE)
public abstract class DeviceMinute {
  public abstract String deviceId();

  public abstract String site();

  public abstract String zone();

  public abstract Instant windowStart();

  public abstract Instant windowEnd();

  public abstract long readingCount();

  public abstract @Nullable Double temperatureAvg();

  public abstract @Nullable Double temperatureMin();

  public abstract @Nullable Double temperatureMax();

  public abstract @Nullable Double humidityAvg();

  public abstract @Nullable Double pressureAvg();

  public abstract long heartbeatCount();

  public abstract @Nullable Double batteryPctMin();

  public abstract @Nullable Double rssiDbmAvg();

  public abstract @Nullable String lastStatus();

  public abstract long paneIndex();

  /** {@code EARLY}, {@code ON_TIME} or {@code LATE}. */
  public abstract String paneTiming();

  public abstract String date();

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
        stats.readingCount(),
        stats.temperatureAvg(),
        stats.temperatureMin(),
        stats.temperatureMax(),
        stats.humidityAvg(),
        stats.pressureAvg(),
        stats.heartbeatCount(),
        stats.batteryPctMin(),
        stats.rssiDbmAvg(),
        stats.lastStatus(),
        paneIndex,
        paneTiming,
        dev.medallion.common.EventTimestamps.utcDate(windowStart));
  }
}
