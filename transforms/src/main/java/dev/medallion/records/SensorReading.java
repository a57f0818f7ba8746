package dev.medallion.records;

import com.google.auto.value.AutoValue;
import org.apache.beam.sdk.schemas.AutoValueSchema;
import org.apache.beam.sdk.schemas.annotations.DefaultSchema;
import org.apache.beam.sdk.schemas.annotations.SchemaCaseFormat;
import org.apache.beam.vendor.guava.v32_1_2_jre.com.google.common.base.CaseFormat;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * A row of {@code silver/sensor_readings}: a validated reading enriched with its device. {@code
 * value} is in the canonical unit of its type ({@code C}, {@code %}, {@code hPa}); the reading as
 * sent is kept in {@code original_value}/{@code original_unit}.
 */
@AutoValue
@DefaultSchema(AutoValueSchema.class)
@SchemaCaseFormat(CaseFormat.LOWER_UNDERSCORE)
public abstract class SensorReading {
  public abstract String getDeviceId();

  public abstract String getSite();

  public abstract String getZone();

  public abstract double getLatitude();

  public abstract double getLongitude();

  public abstract String getModel();

  public abstract String getSensorType();

  public abstract double getValue();

  public abstract String getUnit();

  public abstract double getOriginalValue();

  public abstract String getOriginalUnit();

  public abstract @Nullable Long getSeq();

  public abstract Instant getEventTs();

  public abstract String getDate();

  public abstract String getRawPayload();

  public abstract String getSource();

  public abstract String getSourceName();

  public abstract @Nullable Instant getReceivedAt();

  public abstract Instant getIngestTs();

  public static Builder builder() {
    return new AutoValue_SensorReading.Builder();
  }

  /** Builder. */
  @AutoValue.Builder
  public abstract static class Builder {
    public abstract Builder setDeviceId(String v);

    public abstract Builder setSite(String v);

    public abstract Builder setZone(String v);

    public abstract Builder setLatitude(double v);

    public abstract Builder setLongitude(double v);

    public abstract Builder setModel(String v);

    public abstract Builder setSensorType(String v);

    public abstract Builder setValue(double v);

    public abstract Builder setUnit(String v);

    public abstract Builder setOriginalValue(double v);

    public abstract Builder setOriginalUnit(String v);

    public abstract Builder setSeq(@Nullable Long v);

    public abstract Builder setEventTs(Instant v);

    public abstract Builder setDate(String v);

    public abstract Builder setRawPayload(String v);

    public abstract Builder setSource(String v);

    public abstract Builder setSourceName(String v);

    public abstract Builder setReceivedAt(@Nullable Instant v);

    public abstract Builder setIngestTs(Instant v);

    public abstract SensorReading build();
  }
}
