package dev.medallion.records;

import com.google.auto.value.AutoValue;
import org.apache.beam.sdk.schemas.AutoValueSchema;
import org.apache.beam.sdk.schemas.annotations.DefaultSchema;
import org.apache.beam.sdk.schemas.annotations.SchemaCaseFormat;
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

  public abstract @Nullable String getUserId();

  public abstract @Nullable String getEventType();

  public abstract @Nullable Instant getEventTimestamp();

  public abstract @Nullable String getEventDate();

  public abstract String getRawLine();

  public abstract String getSource();

  public abstract String getSourceFile();

  public abstract long getLineNumber();

  public abstract Instant getIngestTs();

  public abstract String getIngestDate();

  public abstract int getSchemaVersion();

  public abstract @Nullable String getEventId();

  public abstract @Nullable String getSessionId();

  public abstract @Nullable String getProductId();

  public abstract @Nullable Double getPrice();

  public abstract @Nullable String getDevice();

  public abstract @Nullable String getCountry();

  /**
   * {@code field:jsontype,…} of the fields of the wrong JSON type, {@code field:out_of_range} for a
   * number beyond a double (see {@code JsonFields}).
   */
  public abstract @Nullable String getTypeErrors();

  /**
   * @param eventTimestamp the parsed {@code event_timestamp}, or null when it is absent or invalid
   *     (then {@code fields} has noted its type)
   */
  public static UserEventBronze of(
      dev.medallion.common.JsonFields fields,
      @Nullable Instant eventTimestamp,
      RawEvent raw,
      Instant ingestTs) {
    String userId = fields.text("user_id");
    String eventType = fields.text("event_type");
    String eventId = fields.text("event_id");
    String sessionId = fields.text("session_id");
    String productId = fields.text("product_id");
    Double price = fields.number("price");
    String device = fields.text("device");
    String country = fields.text("country");
    return new AutoValue_UserEventBronze(
        userId,
        eventType,
        eventTimestamp,
        eventTimestamp == null
            ? null
            : dev.medallion.common.EventTimestamps.utcDate(eventTimestamp),
        raw.getPayload(),
        raw.lineId(),
        raw.getSourceName(),
        raw.getSourceOffset(),
        ingestTs,
        dev.medallion.common.EventTimestamps.utcDate(ingestTs),
        SCHEMA_VERSION,
        eventId,
        sessionId,
        productId,
        price,
        device,
        country,
        fields.typeErrors());
  }
}
