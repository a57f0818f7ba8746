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
 * A row of {@code gold/site_minute}: every device of one site in one 1-minute window, computed from
 * the same Silver events as {@link DeviceMinute} (not by summing device rows, so a late pane of one
 * device never counts twice). {@code device_count} counts devices with a reading or a heartbeat.
 */
@AutoValue
@DefaultSchema(AutoValueSchema.class)
@SchemaCaseFormat(CaseFormat.LOWER_UNDERSCORE)
public abstract class SiteMinute {
  public abstract String site();

  public abstract Instant windowStart();

  public abstract Instant windowEnd();

  public abstract long deviceCount();

  public abstract long readingCount();

  public abstract @Nullable Double temperatureAvg();

  public abstract @Nullable Double temperatureMin();

  public abstract @Nullable Double temperatureMax();

  public abstract @Nullable Double humidityAvg();

  public abstract @Nullable Double pressureAvg();

  public abstract long heartbeatCount();

  public abstract @Nullable Double batteryPctMin();

  public abstract @Nullable Double rssiDbmAvg();

  public abstract long paneIndex();

  public abstract String paneTiming();

  public abstract String date();

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
        stats.deviceCount(),
        stats.readingCount(),
        stats.temperatureAvg(),
        stats.temperatureMin(),
        stats.temperatureMax(),
        stats.humidityAvg(),
        stats.pressureAvg(),
        stats.heartbeatCount(),
        stats.batteryPctMin(),
        stats.rssiDbmAvg(),
        paneIndex,
        paneTiming,
        dev.medallion.common.EventTimestamps.utcDate(windowStart));
  }
}
