package dev.medallion.core;

import com.google.auto.value.AutoValue;
import org.apache.beam.sdk.schemas.AutoValueSchema;
import org.apache.beam.sdk.schemas.annotations.DefaultSchema;
import org.apache.beam.sdk.schemas.annotations.SchemaCaseFormat;
import org.apache.beam.sdk.schemas.annotations.SchemaFieldNumber;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.vendor.guava.v32_1_2_jre.com.google.common.base.CaseFormat;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * The one dead-letter record of every layer, and the row of the {@code quarantine} table: which
 * stage rejected the record, a stable reason code, the detail in words, and the original payload
 * verbatim (except for a record of Gold's batches whose device row could not be computed: the
 * fields Gold read of it, as JSON, see {@code WindowedDeviceStats.quarantineDevice}). {@code
 * source} is the id of the raw line (see {@link RawEvent#source()}), so counts balance per source.
 */
@AutoValue
@DefaultSchema(AutoValueSchema.class)
@SchemaCaseFormat(CaseFormat.LOWER_UNDERSCORE)
public abstract class DeadLetter {
  /**
   * The dead-letter output of every layer composite: each layer's output tuple carries its rejected
   * records under this one tag, so a pipeline composite flattens them and a sink writes them alike.
   */
  public static final TupleTag<DeadLetter> TAG = new TupleTag<>("dead_letters") {};

  public static final String BRONZE = "bronze";
  public static final String SILVER = "silver";
  public static final String GOLD = "gold";

  @SchemaFieldNumber("0")
  public abstract String getStage();

  @SchemaFieldNumber("1")
  public abstract String getReason();

  @SchemaFieldNumber("2")
  public abstract String getDetail();

  @SchemaFieldNumber("3")
  public abstract String getOriginalPayload();

  @SchemaFieldNumber("4")
  public abstract String getSource();

  @SchemaFieldNumber("5")
  public abstract String getSourceName();

  @SchemaFieldNumber("6")
  public abstract @Nullable Instant getEventTs();

  @SchemaFieldNumber("7")
  public abstract Instant getAt();

  /** {@code YYYY-MM-DD} (UTC) of {@code at}: the partition. */
  @SchemaFieldNumber("8")
  public abstract String getDate();

  /** A raw line a stage rejected: the rule's reason and words, the line and where it came from. */
  public static DeadLetter rejectedLine(
      String stage, dev.medallion.core.InvalidRecordException e, RawEvent raw, Instant at) {
    return of(
        stage,
        e.getReason(),
        e.getMessage(),
        raw.getPayload(),
        raw.lineId(),
        raw.getSourceName(),
        null,
        at);
  }

  public static DeadLetter of(
      String stage,
      String reason,
      String detail,
      String originalPayload,
      String source,
      String sourceName,
      @Nullable Instant eventTs,
      Instant at) {
    return new AutoValue_DeadLetter(
        stage,
        reason,
        detail,
        originalPayload,
        source,
        sourceName,
        eventTs,
        at,
        dev.medallion.core.EventTimestamps.utcDate(at));
  }
}
