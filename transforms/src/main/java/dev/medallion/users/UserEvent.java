package dev.medallion.users;

import com.google.auto.value.AutoValue;
import org.apache.beam.sdk.schemas.AutoValueSchema;
import org.apache.beam.sdk.schemas.annotations.DefaultSchema;
import org.apache.beam.sdk.schemas.annotations.SchemaCaseFormat;
import org.apache.beam.sdk.schemas.annotations.SchemaFieldNumber;
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
  @SchemaFieldNumber("0")
  public abstract @Nullable String getEventId();

  @SchemaFieldNumber("1")
  public abstract String getUserId();

  @SchemaFieldNumber("2")
  public abstract String getEventType();

  @SchemaFieldNumber("3")
  public abstract Instant getEventTimestamp();

  @SchemaFieldNumber("4")
  public abstract String getEventDate();

  @SchemaFieldNumber("5")
  public abstract @Nullable String getSessionId();

  @SchemaFieldNumber("6")
  public abstract @Nullable String getProductId();

  @SchemaFieldNumber("7")
  public abstract @Nullable Double getPrice();

  @SchemaFieldNumber("8")
  public abstract @Nullable String getDevice();

  @SchemaFieldNumber("9")
  public abstract @Nullable String getCountry();

  @SchemaFieldNumber("10")
  public abstract @Nullable String getInvalidFields();

  /** The line as it arrived, verbatim (as in Bronze). */
  @SchemaFieldNumber("11")
  public abstract String getRawLine();

  @SchemaFieldNumber("12")
  public abstract String getSource();

  @SchemaFieldNumber("13")
  public abstract String getSourceFile();

  @SchemaFieldNumber("14")
  public abstract long getLineNumber();

  @SchemaFieldNumber("15")
  public abstract Instant getIngestTs();

  /** The event's fields the rules do not know, as in Bronze ({@link UserEventBronze#getExtra}). */
  @SchemaFieldNumber("16")
  public abstract @Nullable String getExtra();

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

    public abstract Builder setExtra(@Nullable String v);

    public abstract UserEvent build();
  }
}
