package dev.medallion.records;

import com.google.auto.value.AutoValue;
import org.apache.beam.sdk.schemas.AutoValueSchema;
import org.apache.beam.sdk.schemas.annotations.DefaultSchema;
import org.apache.beam.sdk.schemas.annotations.SchemaCaseFormat;
import org.apache.beam.vendor.guava.v32_1_2_jre.com.google.common.base.CaseFormat;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/** A row of {@code silver/device_heartbeats}: a validated heartbeat enriched with its device. */
@AutoValue
@DefaultSchema(AutoValueSchema.class)
@SchemaCaseFormat(CaseFormat.LOWER_UNDERSCORE)
public abstract class Heartbeat {
  public abstract String getDeviceId();

  public abstract String getSite();

  public abstract String getZone();

  public abstract double getLatitude();

  public abstract double getLongitude();

  public abstract String getModel();

  public abstract double getBatteryPct();

  public abstract long getRssiDbm();

  public abstract String getStatus();

  public abstract Instant getEventTs();

  public abstract String getDate();

  public abstract String getRawPayload();

  public abstract String getSource();

  public abstract String getSourceName();

  public abstract @Nullable Instant getReceivedAt();

  public abstract Instant getIngestTs();

  public static Builder builder() {
    return new AutoValue_Heartbeat.Builder();
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

    public abstract Heartbeat build();
  }
}
