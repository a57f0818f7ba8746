package dev.medallion.iot;

import com.google.auto.value.AutoValue;
import org.apache.beam.sdk.schemas.AutoValueSchema;
import org.apache.beam.sdk.schemas.annotations.DefaultSchema;
import org.apache.beam.sdk.schemas.annotations.SchemaCaseFormat;
import org.apache.beam.sdk.schemas.annotations.SchemaFieldNumber;
import org.apache.beam.vendor.guava.v32_1_2_jre.com.google.common.base.CaseFormat;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * A row of {@code gold/site_minute}: every device of one site in one 1-minute window, the sum of
 * its devices' aggregates ({@link MinuteStats#merge}), each device's taken from its latest pane
 * only, so a late pane of one device replaces its earlier one and never counts twice. {@code
 * device_count} counts devices with a reading or a heartbeat. The sensor catalog's aggregates
 * follow {@code reading_count}, as in {@link DeviceMinute} ({@link GoldColumns#siteMinute}).
 */
@AutoValue
@DefaultSchema(AutoValueSchema.class)
@SchemaCaseFormat(CaseFormat.LOWER_UNDERSCORE)
public abstract class SiteMinute {
  @SchemaFieldNumber("0")
  public abstract String getSite();

  @SchemaFieldNumber("1")
  public abstract Instant getWindowStart();

  @SchemaFieldNumber("2")
  public abstract Instant getWindowEnd();

  @SchemaFieldNumber("3")
  public abstract long getDeviceCount();

  @SchemaFieldNumber("4")
  public abstract long getReadingCount();

  @SchemaFieldNumber("5")
  public abstract long getHeartbeatCount();

  @SchemaFieldNumber("6")
  public abstract @Nullable Double getBatteryPctMin();

  @SchemaFieldNumber("7")
  public abstract @Nullable Double getRssiDbmAvg();

  @SchemaFieldNumber("8")
  public abstract long getPaneIndex();

  @SchemaFieldNumber("9")
  public abstract String getPaneTiming();

  @SchemaFieldNumber("10")
  public abstract String getDate();

  /**
   * When this row was computed (processing time). A restarted job or a rerun stage numbers its
   * panes from 0 again, so the newest row of a window is the latest written, not the highest pane
   * index. Null in files written before the column existed.
   */
  @SchemaFieldNumber("11")
  public abstract @Nullable Instant getWrittenAt();

  public static SiteMinute of(
      String site,
      Instant windowStart,
      Instant windowEnd,
      MinuteStats stats,
      long paneIndex,
      String paneTiming,
      Instant writtenAt) {
    return new AutoValue_SiteMinute(
        site,
        windowStart,
        windowEnd,
        stats.getDeviceCount(),
        stats.getReadingCount(),
        stats.getHeartbeatCount(),
        stats.getBatteryPctMin(),
        stats.getRssiDbmAvg(),
        paneIndex,
        paneTiming,
        dev.medallion.core.EventTimestamps.utcDate(windowStart),
        writtenAt);
  }
}
