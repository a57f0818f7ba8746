package dev.medallion.users;

import com.google.auto.value.AutoValue;
import dev.medallion.core.RawEvent;
import org.apache.beam.sdk.schemas.AutoValueSchema;
import org.apache.beam.sdk.schemas.annotations.DefaultSchema;
import org.apache.beam.sdk.schemas.annotations.SchemaCaseFormat;
import org.apache.beam.sdk.schemas.annotations.SchemaFieldNumber;
import org.apache.beam.vendor.guava.v32_1_2_jre.com.google.common.base.CaseFormat;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * A row of {@code bronze/user_events}: one raw line that is a JSON object, kept verbatim in {@code
 * raw_line}, enriched with where and when it was ingested, its event time and date where valid, and
 * typed columns for the known fields (null when absent; when of the wrong JSON type, null and named
 * in {@code type_errors}). Key fields are not checked here (Silver does), so every JSON object is
 * kept. Partitioned by {@code ingest_date}: Bronze is append-only, one run's files at a time.
 */
@AutoValue
@DefaultSchema(AutoValueSchema.class)
@SchemaCaseFormat(CaseFormat.LOWER_UNDERSCORE)
public abstract class UserEventBronze {
  public static final int SCHEMA_VERSION = 1;

  @SchemaFieldNumber("0")
  public abstract @Nullable String getUserId();

  @SchemaFieldNumber("1")
  public abstract @Nullable String getEventType();

  @SchemaFieldNumber("2")
  public abstract @Nullable Instant getEventTimestamp();

  @SchemaFieldNumber("3")
  public abstract @Nullable String getEventDate();

  @SchemaFieldNumber("4")
  public abstract String getRawLine();

  @SchemaFieldNumber("5")
  public abstract String getSource();

  @SchemaFieldNumber("6")
  public abstract String getSourceFile();

  @SchemaFieldNumber("7")
  public abstract long getLineNumber();

  @SchemaFieldNumber("8")
  public abstract Instant getIngestTs();

  @SchemaFieldNumber("9")
  public abstract String getIngestDate();

  @SchemaFieldNumber("10")
  public abstract int getSchemaVersion();

  @SchemaFieldNumber("11")
  public abstract @Nullable String getEventId();

  @SchemaFieldNumber("12")
  public abstract @Nullable String getSessionId();

  @SchemaFieldNumber("13")
  public abstract @Nullable String getProductId();

  @SchemaFieldNumber("14")
  public abstract @Nullable Double getPrice();

  @SchemaFieldNumber("15")
  public abstract @Nullable String getDevice();

  @SchemaFieldNumber("16")
  public abstract @Nullable String getCountry();

  /**
   * {@code field:jsontype,…} of the fields of the wrong JSON type, {@code field:out_of_range} for a
   * number beyond a double (see {@code JsonFields}).
   */
  @SchemaFieldNumber("17")
  public abstract @Nullable String getTypeErrors();

  /**
   * The record's fields the rules do not know (ML fields such as {@code feature_hash}), as a JSON
   * object; null when it has none. Query it with DuckDB's {@code extra->>'feature_hash'}.
   */
  @SchemaFieldNumber("18")
  public abstract @Nullable String getExtra();

  /**
   * @param eventTimestamp the parsed {@code event_timestamp}, or null when it is absent or invalid
   *     (then {@code fields} has noted its type)
   */
  public static UserEventBronze of(
      dev.medallion.core.JsonFields fields,
      @Nullable Instant eventTimestamp,
      RawEvent raw,
      Instant ingestTs) {
    return of(Fields.of(fields), eventTimestamp, raw, ingestTs);
  }

  /** A row of the record's fields ({@link Fields}), however they were read. */
  static UserEventBronze of(
      Fields fields, @Nullable Instant eventTimestamp, RawEvent raw, Instant ingestTs) {
    return new AutoValue_UserEventBronze(
        fields.userId(),
        fields.eventType(),
        eventTimestamp,
        eventTimestamp == null ? null : dev.medallion.core.EventTimestamps.utcDate(eventTimestamp),
        raw.getPayload(),
        raw.lineId(),
        raw.getSourceName(),
        raw.getSourceOffset(),
        ingestTs,
        dev.medallion.core.EventTimestamps.utcDate(ingestTs),
        SCHEMA_VERSION,
        fields.eventId(),
        fields.sessionId(),
        fields.productId(),
        fields.price(),
        fields.device(),
        fields.country(),
        fields.typeErrors(),
        fields.extra());
  }

  /** The record's typed fields, its type errors and its {@code extra}. */
  record Fields(
      @Nullable String userId,
      @Nullable String eventType,
      @Nullable String eventId,
      @Nullable String sessionId,
      @Nullable String productId,
      @Nullable Double price,
      @Nullable String device,
      @Nullable String country,
      @Nullable String typeErrors,
      @Nullable String extra) {

    /**
     * The fields as read from the line's JSON tree, in this order (the order of the type errors it
     * notes).
     */
    static Fields of(dev.medallion.core.JsonFields fields) {
      return new Fields(
          fields.text("user_id"),
          fields.text("event_type"),
          fields.text("event_id"),
          fields.text("session_id"),
          fields.text("product_id"),
          fields.number("price"),
          fields.text("device"),
          fields.text("country"),
          fields.typeErrors(),
          fields.extra("event_timestamp"));
    }
  }
}
