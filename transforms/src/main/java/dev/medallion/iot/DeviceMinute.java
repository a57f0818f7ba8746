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
 * A row of {@code gold/device_minute}: one device in one 1-minute event-time window, readings and
 * heartbeats joined (full outer: a side with no events gives counts of 0 and null aggregates). Each
 * firing of the window writes a row; {@code pane_index} grows with each firing and the row with the
 * highest {@code pane_index} of a device-minute replaces the earlier ones in what users read.
 *
 * <p>These are the columns every device minute has; the sensor catalog adds its aggregates after
 * {@code reading_count} ({@link GoldColumns}), so the table's rows are Beam {@code Row}s of {@link
 * GoldColumns#deviceMinute}.
 */
@AutoValue
@DefaultSchema(AutoValueSchema.class)
@SchemaCaseFormat(CaseFormat.LOWER_UNDERSCORE)
public abstract class DeviceMinute {
  @SchemaFieldNumber("0")
  public abstract String getDeviceId();

  @SchemaFieldNumber("1")
  public abstract String getSite();

  @SchemaFieldNumber("2")
  public abstract String getZone();

  @SchemaFieldNumber("3")
  public abstract Instant getWindowStart();

  @SchemaFieldNumber("4")
  public abstract Instant getWindowEnd();

  @SchemaFieldNumber("5")
  public abstract long getReadingCount();

  @SchemaFieldNumber("6")
  public abstract long getHeartbeatCount();

  @SchemaFieldNumber("7")
  public abstract @Nullable Double getBatteryPctMin();

  @SchemaFieldNumber("8")
  public abstract @Nullable Double getRssiDbmAvg();

  @SchemaFieldNumber("9")
  public abstract @Nullable String getLastStatus();

  @SchemaFieldNumber("10")
  public abstract long getPaneIndex();

  /** {@code EARLY}, {@code ON_TIME} or {@code LATE}. */
  @SchemaFieldNumber("11")
  public abstract String getPaneTiming();

  @SchemaFieldNumber("12")
  public abstract String getDate();

  /**
   * When this row was computed (processing time). A restarted job or a rerun stage numbers its
   * panes from 0 again, so the newest row of a window is the latest written, not the highest pane
   * index. Null in files written before the column existed.
   */
  @SchemaFieldNumber("13")
  public abstract @Nullable Instant getWrittenAt();

  public static DeviceMinute of(
      String deviceId,
      String site,
      String zone,
      Instant windowStart,
      Instant windowEnd,
      MinuteStats stats,
      long paneIndex,
      String paneTiming,
      Instant writtenAt) {
    return new AutoValue_DeviceMinute(
        deviceId,
        site,
        zone,
        windowStart,
        windowEnd,
        stats.getReadingCount(),
        stats.getHeartbeatCount(),
        stats.getBatteryPctMin(),
        stats.getRssiDbmAvg(),
        stats.getLastStatus(),
        paneIndex,
        paneTiming,
        dev.medallion.core.EventTimestamps.utcDate(windowStart),
        writtenAt);
  }
}
