package dev.medallion.iot;

import com.google.auto.value.AutoValue;
import dev.medallion.core.JsonFields;
import dev.medallion.core.RawEvent;
import org.apache.beam.sdk.schemas.AutoValueSchema;
import org.apache.beam.sdk.schemas.annotations.DefaultSchema;
import org.apache.beam.sdk.schemas.annotations.SchemaCaseFormat;
import org.apache.beam.sdk.schemas.annotations.SchemaFieldNumber;
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
  @SchemaFieldNumber("0")
  public abstract String getEventKind();

  @SchemaFieldNumber("1")
  public abstract String getDeviceId();

  @SchemaFieldNumber("2")
  public abstract Instant getEventTs();

  @SchemaFieldNumber("3")
  public abstract String getRawPayload();

  @SchemaFieldNumber("4")
  public abstract String getSource();

  @SchemaFieldNumber("5")
  public abstract String getSourceKind();

  @SchemaFieldNumber("6")
  public abstract String getSourceName();

  @SchemaFieldNumber("7")
  public abstract @Nullable Integer getSourcePartition();

  @SchemaFieldNumber("8")
  public abstract long getSourceOffset();

  @SchemaFieldNumber("9")
  public abstract @Nullable Instant getReceivedAt();

  @SchemaFieldNumber("10")
  public abstract Instant getIngestTs();

  @SchemaFieldNumber("11")
  public abstract int getSchemaVersion();

  @SchemaFieldNumber("12")
  public abstract String getDate();

  @SchemaFieldNumber("13")
  public abstract int getHour();

  @SchemaFieldNumber("14")
  public abstract @Nullable String getSensorType();

  @SchemaFieldNumber("15")
  public abstract @Nullable Double getValue();

  @SchemaFieldNumber("16")
  public abstract @Nullable String getUnit();

  @SchemaFieldNumber("17")
  public abstract @Nullable Long getSeq();

  @SchemaFieldNumber("18")
  public abstract @Nullable Double getBatteryPct();

  @SchemaFieldNumber("19")
  public abstract @Nullable Long getRssiDbm();

  @SchemaFieldNumber("20")
  public abstract @Nullable String getStatus();

  /**
   * {@code field:jsontype,…} of the fields of the wrong JSON type, {@code field:out_of_range} for a
   * number beyond a double (see {@code JsonFields}).
   */
  @SchemaFieldNumber("21")
  public abstract @Nullable String getTypeErrors();

  /**
   * The record's fields the rules do not know, as a JSON object ({@code {"firmware":"1.2"}}); null
   * when it has none. Query it with DuckDB's {@code extra->>'firmware'}.
   */
  @SchemaFieldNumber("22")
  public abstract @Nullable String getExtra();

  /** A row of a line's known fields ({@link Fields}), however they were read. */
  static BronzeEvent of(
      String eventKind,
      String deviceId,
      Instant eventTs,
      String rawPayload,
      RawEvent raw,
      Instant ingestTs,
      Fields fields) {
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
        dev.medallion.core.EventTimestamps.utcDate(eventTs),
        dev.medallion.core.EventTimestamps.utcHour(eventTs),
        fields.sensorType(),
        fields.value(),
        fields.unit(),
        fields.seq(),
        fields.batteryPct(),
        fields.rssiDbm(),
        fields.status(),
        fields.typeErrors(),
        fields.extra());
  }

  /** The typed columns of a row, its type errors and its {@code extra}, in the columns' order. */
  record Fields(
      @Nullable String sensorType,
      @Nullable Double value,
      @Nullable String unit,
      @Nullable Long seq,
      @Nullable Double batteryPct,
      @Nullable Long rssiDbm,
      @Nullable String status,
      @Nullable String typeErrors,
      @Nullable String extra) {

    /** The fields as read from the line's JSON tree. */
    static Fields of(JsonFields fields) {
      return new Fields(
          fields.text("sensor_type"),
          fields.number("value"),
          fields.text("unit"),
          fields.integer("seq"),
          fields.number("battery_pct"),
          fields.integer("rssi_dbm"),
          fields.text("status"),
          fields.typeErrors(),
          fields.extra("device_id", "ts"));
    }
  }
}
