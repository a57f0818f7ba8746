package dev.medallion.records;

import com.google.auto.value.AutoValue;
import org.apache.beam.sdk.schemas.AutoValueSchema;
import org.apache.beam.sdk.schemas.annotations.DefaultSchema;
import org.apache.beam.sdk.schemas.annotations.SchemaCaseFormat;
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
  public abstract String getUserId();

  public abstract Instant getLastEventTimestamp();

  public abstract String getLastEventType();

  public abstract long getClickCount();

  public abstract long getPurchaseCount();

  public abstract long getViewCount();

  public abstract long getAddToCartCount();

  public abstract long getEventCount();

  public abstract Instant getFirstEventTimestamp();

  public abstract long getDaysSinceLastEvent();

  public abstract String getLastFeatureHash();

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
