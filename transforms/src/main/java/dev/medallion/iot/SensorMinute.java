package dev.medallion.iot;

import com.google.auto.value.AutoValue;
import org.apache.beam.sdk.schemas.AutoValueSchema;
import org.apache.beam.sdk.schemas.annotations.DefaultSchema;
import org.apache.beam.sdk.schemas.annotations.SchemaCaseFormat;
import org.apache.beam.sdk.schemas.annotations.SchemaFieldNumber;
import org.apache.beam.vendor.guava.v32_1_2_jre.com.google.common.base.CaseFormat;
import org.joda.time.Instant;

/**
 * A row of {@code gold/sensor_minute}: one sensor type of one device in one 1-minute event-time
 * window, for every type of the sensor catalog (the wide {@link DeviceMinute} has columns for the
 * built-in types only). Readings counted as in {@link MinuteStats} (a resent reading once), values
 * in the type's kept unit. A type with no reading in the window has no row. Panes as in {@link
 * DeviceMinute}: the row with the latest {@code written_at} of a device, type and minute is
 * current.
 */
@AutoValue
@DefaultSchema(AutoValueSchema.class)
@SchemaCaseFormat(CaseFormat.LOWER_UNDERSCORE)
public abstract class SensorMinute {
  @SchemaFieldNumber("0")
  public abstract String getDeviceId();

  @SchemaFieldNumber("1")
  public abstract String getSite();

  @SchemaFieldNumber("2")
  public abstract String getZone();

  @SchemaFieldNumber("3")
  public abstract String getSensorType();

  @SchemaFieldNumber("4")
  public abstract String getUnit();

  @SchemaFieldNumber("5")
  public abstract Instant getWindowStart();

  @SchemaFieldNumber("6")
  public abstract Instant getWindowEnd();

  @SchemaFieldNumber("7")
  public abstract long getReadingCount();

  @SchemaFieldNumber("8")
  public abstract double getValueAvg();

  @SchemaFieldNumber("9")
  public abstract double getValueMin();

  @SchemaFieldNumber("10")
  public abstract double getValueMax();

  @SchemaFieldNumber("11")
  public abstract long getPaneIndex();

  /** {@code EARLY}, {@code ON_TIME} or {@code LATE}. */
  @SchemaFieldNumber("12")
  public abstract String getPaneTiming();

  @SchemaFieldNumber("13")
  public abstract String getDate();

  /** When this row was computed (processing time); see {@link DeviceMinute#getWrittenAt}. */
  @SchemaFieldNumber("14")
  public abstract Instant getWrittenAt();

  static SensorMinute of(DeviceMinute device, String sensorType, MinuteStats.TypeStats stats) {
    return new AutoValue_SensorMinute(
        device.getDeviceId(),
        device.getSite(),
        device.getZone(),
        sensorType,
        stats.unit(),
        device.getWindowStart(),
        device.getWindowEnd(),
        stats.count(),
        stats.avg(),
        stats.min(),
        stats.max(),
        device.getPaneIndex(),
        device.getPaneTiming(),
        device.getDate(),
        device.getWrittenAt());
  }
}
