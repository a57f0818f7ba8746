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
 * raw_line}, enriched with where and when it was ingested and, where the line has a valid one, its
 * event time and date. Key fields are not checked here (Silver does), so every JSON object is kept.
 * Partitioned by {@code ingest_date}: Bronze is append-only, one run's files at a time.
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

  public static UserEventBronze of(
      @Nullable String userId,
      @Nullable String eventType,
      @Nullable Instant eventTimestamp,
      RawEvent raw,
      Instant ingestTs) {
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
        SCHEMA_VERSION);
  }
}
