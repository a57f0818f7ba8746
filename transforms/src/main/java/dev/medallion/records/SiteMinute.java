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
 * A row of {@code gold/site_minute}: every device of one site in one 1-minute window, computed from
 * the same Silver events as {@link DeviceMinute} (not by summing device rows, so a late pane of one
 * device never counts twice). {@code device_count} counts devices with a reading or a heartbeat.
 */
@AutoValue
@DefaultSchema(AutoValueSchema.class)
@SchemaCaseFormat(CaseFormat.LOWER_UNDERSCORE)
public abstract class SiteMinute {
  public abstract String getSite();

  public abstract Instant getWindowStart();

  public abstract Instant getWindowEnd();

  public abstract long getDeviceCount();

  public abstract long getReadingCount();

  public abstract @Nullable Double getTemperatureAvg();

  public abstract @Nullable Double getTemperatureMin();

  public abstract @Nullable Double getTemperatureMax();

  public abstract @Nullable Double getHumidityAvg();

  public abstract @Nullable Double getPressureAvg();

  public abstract long getHeartbeatCount();

  public abstract @Nullable Double getBatteryPctMin();

  public abstract @Nullable Double getRssiDbmAvg();

  public abstract long getPaneIndex();

  public abstract String getPaneTiming();

  public abstract String getDate();

  public static SiteMinute of(
      String site,
      Instant windowStart,
      Instant windowEnd,
      MinuteStats stats,
      long paneIndex,
      String paneTiming) {
    return new AutoValue_SiteMinute(
        site,
        windowStart,
        windowEnd,
        stats.getDeviceCount(),
        stats.getReadingCount(),
        stats.getTemperatureAvg(),
        stats.getTemperatureMin(),
        stats.getTemperatureMax(),
        stats.getHumidityAvg(),
        stats.getPressureAvg(),
        stats.getHeartbeatCount(),
        stats.getBatteryPctMin(),
        stats.getRssiDbmAvg(),
        paneIndex,
        paneTiming,
        dev.medallion.common.EventTimestamps.utcDate(windowStart));
  }
}
