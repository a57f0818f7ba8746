package dev.medallion.iot;

import com.google.auto.value.AutoValue;
import org.apache.beam.sdk.schemas.AutoValueSchema;
import org.apache.beam.sdk.schemas.annotations.DefaultSchema;
import org.apache.beam.sdk.schemas.annotations.SchemaCaseFormat;
import org.apache.beam.sdk.schemas.annotations.SchemaFieldNumber;
import org.apache.beam.vendor.guava.v32_1_2_jre.com.google.common.base.CaseFormat;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/** A row of {@code silver/device_heartbeats}: a validated heartbeat enriched with its device. */
@AutoValue
@DefaultSchema(AutoValueSchema.class)
@SchemaCaseFormat(CaseFormat.LOWER_UNDERSCORE)
public abstract class Heartbeat {
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
  public abstract double getBatteryPct();

  @SchemaFieldNumber("7")
  public abstract long getRssiDbm();

  @SchemaFieldNumber("8")
  public abstract String getStatus();

  @SchemaFieldNumber("9")
  public abstract Instant getEventTs();

  @SchemaFieldNumber("10")
  public abstract String getDate();

  @SchemaFieldNumber("11")
  public abstract String getRawPayload();

  @SchemaFieldNumber("12")
  public abstract String getSource();

  @SchemaFieldNumber("13")
  public abstract String getSourceName();

  @SchemaFieldNumber("14")
  public abstract @Nullable Instant getReceivedAt();

  @SchemaFieldNumber("15")
  public abstract Instant getIngestTs();

  /** The event's fields the rules do not know, as in Bronze ({@link BronzeEvent#getExtra}). */
  @SchemaFieldNumber("16")
  public abstract @Nullable String getExtra();

  public static Builder builder() {
    return new AutoValue_Heartbeat.Builder();
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

    public abstract Builder setBatteryPct(double v);

    public abstract Builder setRssiDbm(long v);

    public abstract Builder setStatus(String v);

    public abstract Builder setEventTs(Instant v);

    public abstract Builder setDate(String v);

    public abstract Builder setRawPayload(String v);

    public abstract Builder setSource(String v);

    public abstract Builder setSourceName(String v);

    public abstract Builder setReceivedAt(@Nullable Instant v);

    public abstract Builder setIngestTs(Instant v);

    public abstract Builder setExtra(@Nullable String v);

    public abstract Heartbeat build();
  }
}
