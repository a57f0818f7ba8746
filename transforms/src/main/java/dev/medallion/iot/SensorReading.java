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
 * A row of {@code silver/sensor_readings}: a validated reading enriched with its device. {@code
 * value} is in the canonical unit of its type ({@code C}, {@code %}, {@code hPa}); the reading as
 * sent is kept in {@code original_value}/{@code original_unit}.
 */
@AutoValue
@DefaultSchema(AutoValueSchema.class)
@SchemaCaseFormat(CaseFormat.LOWER_UNDERSCORE)
public abstract class SensorReading {
  @SchemaFieldNumber("0")
  public abstract String getDeviceId();

  @SchemaFieldNumber("1")
  public abstract String getSite();

  @SchemaFieldNumber("2")
  public abstract String getZone();

  @SchemaFieldNumber("3")
  public abstract @Nullable Double getLatitude();

  @SchemaFieldNumber("4")
  public abstract @Nullable Double getLongitude();

  @SchemaFieldNumber("5")
  public abstract @Nullable String getModel();

  @SchemaFieldNumber("6")
  public abstract String getSensorType();

  @SchemaFieldNumber("7")
  public abstract double getValue();

  @SchemaFieldNumber("8")
  public abstract String getUnit();

  @SchemaFieldNumber("9")
  public abstract double getOriginalValue();

  @SchemaFieldNumber("10")
  public abstract String getOriginalUnit();

  @SchemaFieldNumber("11")
  public abstract @Nullable Long getSeq();

  @SchemaFieldNumber("12")
  public abstract Instant getEventTs();

  @SchemaFieldNumber("13")
  public abstract String getDate();

  @SchemaFieldNumber("14")
  public abstract String getRawPayload();

  @SchemaFieldNumber("15")
  public abstract String getSource();

  @SchemaFieldNumber("16")
  public abstract String getSourceName();

  @SchemaFieldNumber("17")
  public abstract @Nullable Instant getReceivedAt();

  @SchemaFieldNumber("18")
  public abstract Instant getIngestTs();

  /** The event's fields the rules do not know, as in Bronze ({@link BronzeEvent#getExtra}). */
  @SchemaFieldNumber("19")
  public abstract @Nullable String getExtra();

  public static Builder builder() {
    return new AutoValue_SensorReading.Builder();
  }

  /** Builder. */
  @AutoValue.Builder
  public abstract static class Builder {
    public abstract Builder setDeviceId(String v);

    public abstract Builder setSite(String v);

    public abstract Builder setZone(String v);

    public abstract Builder setLatitude(@Nullable Double v);

    public abstract Builder setLongitude(@Nullable Double v);

    public abstract Builder setModel(@Nullable String v);

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

    public abstract Builder setExtra(@Nullable String v);

    public abstract SensorReading build();
  }
}
