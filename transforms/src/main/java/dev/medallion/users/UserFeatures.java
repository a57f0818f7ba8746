package dev.medallion.users;

import com.google.auto.value.AutoValue;
import org.apache.beam.sdk.schemas.AutoValueSchema;
import org.apache.beam.sdk.schemas.annotations.DefaultSchema;
import org.apache.beam.sdk.schemas.annotations.SchemaCaseFormat;
import org.apache.beam.sdk.schemas.annotations.SchemaFieldNumber;
import org.apache.beam.vendor.guava.v32_1_2_jre.com.google.common.base.CaseFormat;
import org.joda.time.Instant;

/**
 * A row of {@code gold/user_features}: one user's features as of a snapshot date, for ML.
 * Partitioned by {@code as_of_date}; only events on or before that date count. {@code
 * last_feature_hash} is the lowercase hex SHA-256 of the UTF-8 string {@code
 * user_id|click_count|purchase_count|last_event_type|last_event_timestamp}, the timestamp as {@code
 * yyyy-MM-dd'T'HH:mm:ss.SSS'Z'} in UTC.
 */
@AutoValue
@DefaultSchema(AutoValueSchema.class)
@SchemaCaseFormat(CaseFormat.LOWER_UNDERSCORE)
public abstract class UserFeatures {
  @SchemaFieldNumber("0")
  public abstract String getUserId();

  @SchemaFieldNumber("1")
  public abstract Instant getLastEventTimestamp();

  @SchemaFieldNumber("2")
  public abstract String getLastEventType();

  @SchemaFieldNumber("3")
  public abstract long getClickCount();

  @SchemaFieldNumber("4")
  public abstract long getPurchaseCount();

  @SchemaFieldNumber("5")
  public abstract long getViewCount();

  @SchemaFieldNumber("6")
  public abstract long getAddToCartCount();

  @SchemaFieldNumber("7")
  public abstract long getEventCount();

  @SchemaFieldNumber("8")
  public abstract Instant getFirstEventTimestamp();

  @SchemaFieldNumber("9")
  public abstract long getDaysSinceLastEvent();

  @SchemaFieldNumber("10")
  public abstract String getLastFeatureHash();

  @SchemaFieldNumber("11")
  public abstract String getAsOfDate();

  public static UserFeatures of(
      String userId,
      Instant lastEventTimestamp,
      String lastEventType,
      long clickCount,
      long purchaseCount,
      long viewCount,
      long addToCartCount,
      long eventCount,
      Instant firstEventTimestamp,
      long daysSinceLastEvent,
      String lastFeatureHash,
      String asOfDate) {
    return new AutoValue_UserFeatures(
        userId,
        lastEventTimestamp,
        lastEventType,
        clickCount,
        purchaseCount,
        viewCount,
        addToCartCount,
        eventCount,
        firstEventTimestamp,
        daysSinceLastEvent,
        lastFeatureHash,
        asOfDate);
  }
}
