package dev.medallion.records;

import com.google.auto.value.AutoValue;
import org.apache.beam.sdk.schemas.AutoValueSchema;
import org.apache.beam.sdk.schemas.annotations.DefaultSchema;
import org.apache.beam.sdk.schemas.annotations.SchemaCaseFormat;
import org.apache.beam.vendor.guava.v32_1_2_jre.com.google.common.base.CaseFormat;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * A row of {@code bronze/iot_events}: one raw line that parsed as a sensor reading or a heartbeat,
 * kept verbatim in {@code raw_payload}, with the ingest metadata, the two fields every event must
 * have ({@code device_id}, {@code event_ts}), and typed columns for the other known fields of
 * either kind (null when absent; when of the wrong JSON type, null and named in {@code
 * type_errors}). Values are not checked here: that is Silver's work. Partitioned by {@code
 * date=YYYY-MM-DD/hour=HH} of {@code event_ts} in UTC.
 */
@AutoValue
@DefaultSchema(AutoValueSchema.class)
@SchemaCaseFormat(CaseFormat.LOWER_UNDERSCORE)
public abstract class BronzeEvent {
  public static final int SCHEMA_VERSION = 1;

  /** {@code reading} or {@code heartbeat}. */
  public abstract String getEventKind();

  public abstract String getDeviceId();

  public abstract Instant getEventTs();

  public abstract String getRawPayload();

  public abstract String getSource();

  public abstract String getSourceKind();

  public abstract String getSourceName();

  public abstract @Nullable Integer getSourcePartition();

  public abstract long getSourceOffset();

  public abstract @Nullable Instant getReceivedAt();

  public abstract Instant getIngestTs();

  public abstract int getSchemaVersion();

  public abstract String getDate();

  public abstract int getHour();

  public abstract @Nullable String getSensorType();

  public abstract @Nullable Double getValue();

  public abstract @Nullable String getUnit();

  public abstract @Nullable Long getSeq();

  public abstract @Nullable Double getBatteryPct();

  public abstract @Nullable Long getRssiDbm();

  public abstract @Nullable String getStatus();

  /**
   * {@code field:jsontype,…} of the fields of the wrong JSON type, {@code field:out_of_range} for a
   * number beyond a double (see {@code JsonFields}).
   */
  public abstract @Nullable String getTypeErrors();

  public static BronzeEvent of(
      String eventKind,
      String deviceId,
      Instant eventTs,
      String rawPayload,
      RawEvent raw,
      Instant ingestTs,
      dev.medallion.common.JsonFields fields) {
    return new AutoValue_BronzeEvent(
        eventKind,
        deviceId,
        eventTs,
        rawPayload,
        raw.lineId(),
        raw.getSourceKind(),
        raw.getSourceName(),
        raw.getSourcePartition(),
        raw.getSourceOffset(),
        raw.getReceivedAt(),
        ingestTs,
        SCHEMA_VERSION,
        dev.medallion.common.EventTimestamps.utcDate(eventTs),
        dev.medallion.common.EventTimestamps.utcHour(eventTs),
        fields.text("sensor_type"),
        fields.number("value"),
        fields.text("unit"),
        fields.integer("seq"),
        fields.number("battery_pct"),
        fields.integer("rssi_dbm"),
        fields.text("status"),
        fields.typeErrors());
  }
}
