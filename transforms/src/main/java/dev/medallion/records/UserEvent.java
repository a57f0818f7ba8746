package dev.medallion.records;

import com.google.auto.value.AutoValue;
import org.apache.beam.sdk.schemas.AutoValueSchema;
import org.apache.beam.sdk.schemas.annotations.DefaultSchema;
import org.apache.beam.sdk.schemas.annotations.SchemaCaseFormat;
import org.apache.beam.vendor.guava.v32_1_2_jre.com.google.common.base.CaseFormat;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * A row of {@code silver/user_events}: a user event whose key fields ({@code user_id}, {@code
 * event_type}, {@code event_timestamp}) are valid, one per {@code (user_id, event_timestamp)}
 * instant. A non-key field of the wrong type is null here and named in {@code invalid_fields}
 * (comma-separated, null when none). Partitioned by {@code event_date} (UTC).
 */
@AutoValue
@DefaultSchema(AutoValueSchema.class)
@SchemaCaseFormat(CaseFormat.LOWER_UNDERSCORE)
public abstract class UserEvent {
  public abstract @Nullable String getEventId();

  public abstract String getUserId();

  public abstract String getEventType();

  public abstract Instant getEventTimestamp();

  public abstract String getEventDate();

  public abstract @Nullable String getSessionId();

  public abstract @Nullable String getProductId();

  public abstract @Nullable Double getPrice();

  public abstract @Nullable String getDevice();

  public abstract @Nullable String getCountry();

  public abstract @Nullable String getInvalidFields();

  /** The line as it arrived, verbatim (as in Bronze). */
  public abstract String getRawLine();

  public abstract String getSource();

  public abstract String getSourceFile();

  public abstract long getLineNumber();

  public abstract Instant getIngestTs();

  public static Builder builder() {
    return new AutoValue_UserEvent.Builder();
  }

  /** Builder. */
  @AutoValue.Builder
  public abstract static class Builder {
    public abstract Builder setEventId(@Nullable String v);

    public abstract Builder setUserId(String v);

    public abstract Builder setEventType(String v);

    public abstract Builder setEventTimestamp(Instant v);

    public abstract Builder setEventDate(String v);

    public abstract Builder setSessionId(@Nullable String v);

    public abstract Builder setProductId(@Nullable String v);

    public abstract Builder setPrice(@Nullable Double v);

    public abstract Builder setDevice(@Nullable String v);

    public abstract Builder setCountry(@Nullable String v);

    public abstract Builder setInvalidFields(@Nullable String v);

    public abstract Builder setRawLine(String v);

    public abstract Builder setSource(String v);

    public abstract Builder setSourceFile(String v);

    public abstract Builder setLineNumber(long v);

    public abstract Builder setIngestTs(Instant v);

    public abstract UserEvent build();
  }
}
