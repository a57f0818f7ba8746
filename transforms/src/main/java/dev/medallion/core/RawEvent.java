package dev.medallion.core;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.auto.value.AutoValue;
import org.apache.beam.sdk.schemas.AutoValueSchema;
import org.apache.beam.sdk.schemas.annotations.DefaultSchema;
import org.apache.beam.sdk.schemas.annotations.SchemaCaseFormat;
import org.apache.beam.sdk.schemas.annotations.SchemaFieldNumber;
import org.apache.beam.vendor.guava.v32_1_2_jre.com.google.common.base.CaseFormat;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * One raw line as it reached Medallion, before anything was parsed: the payload verbatim and where
 * it came from. {@code source} identifies the line uniquely ({@code file:/data/a.ndjson#12}, {@code
 * kafka:iot.raw/0@1042}, {@code generator:seed=42#1042}); {@code receivedAt} is the event-time
 * clock of the source when the line arrived (null for files, whose replay has no arrival clock),
 * which Gold uses to tell too-late records. {@code decodeError} is set when the line's bytes are
 * not valid UTF-8: the payload then shows each undecodable byte as {@code \xFF}, and Bronze rejects
 * the line with reason {@code invalid_utf8}.
 */
@AutoValue
@DefaultSchema(AutoValueSchema.class)
@SchemaCaseFormat(CaseFormat.LOWER_UNDERSCORE)
public abstract class RawEvent {
  /**
   * The largest record Bronze keeps, in characters: a larger one is a dead letter ({@code
   * too_large}, its payload kept whole in the quarantine), so that no layer, and no Kafka topic a
   * stage forwards to (whose records are limited to 1 MB by default), has to carry it.
   */
  public static final int MAX_PAYLOAD_CHARS = 1_000_000;

  @SchemaFieldNumber("0")
  public abstract String getPayload();

  @SchemaFieldNumber("1")
  public abstract String getSourceKind();

  @SchemaFieldNumber("2")
  public abstract String getSourceName();

  @SchemaFieldNumber("3")
  public abstract @Nullable Integer getSourcePartition();

  @SchemaFieldNumber("4")
  public abstract long getSourceOffset();

  @SchemaFieldNumber("5")
  public abstract @Nullable Instant getReceivedAt();

  /**
   * Why the line's bytes are not valid UTF-8, naming the first bad byte and its offset in the line
   * (from 0): {@code byte 0xFF at offset 14}; null when the line decoded, and for every source that
   * hands over text rather than bytes.
   */
  @SchemaFieldNumber("6")
  public abstract @Nullable String getDecodeError();

  /**
   * What the reader found wrong with the record's shape, when it could still hand it over: a CSV
   * row with more or fewer cells than its header. Null for every other record.
   */
  @SchemaFieldNumber("7")
  public abstract @Nullable String getReadError();

  /**
   * The key the record was sent with, when its source has keys (a Kafka record's key, as UTF-8);
   * null otherwise. Bronze rejects a record whose key is not its {@code device_id} ({@code
   * key_mismatch}): the key placed it in a partition, and a device's records must stay in one.
   */
  @SchemaFieldNumber("8")
  public abstract @Nullable String getSourceKey();

  /** This record as sent with {@code key} ({@link #getSourceKey}). */
  public final RawEvent withSourceKey(@Nullable String key) {
    return new AutoValue_RawEvent(
        getPayload(),
        getSourceKind(),
        getSourceName(),
        getSourcePartition(),
        getSourceOffset(),
        getReceivedAt(),
        getDecodeError(),
        getReadError(),
        key);
  }

  /** The unique id of this line: kind, name, partition and offset. */
  /**
   * The line as a JSON object, the first Bronze rule of every pipeline. A line the reader could not
   * decode as UTF-8 is rejected (its payload shows the bad bytes escaped, so it stays readable in
   * the quarantine).
   *
   * @throws InvalidRecordException with reason {@code invalid_utf8} (naming the first bad byte and
   *     its offset), {@code bad_csv_row}, {@code empty_line}, {@code too_large}, {@code not_json},
   *     {@code not_object} or {@code trailing_data}
   */
  public final ObjectNode jsonObject() {
    if (getDecodeError() != null) {
      throw new InvalidRecordException(
          "invalid_utf8", "line is not valid UTF-8 (" + getDecodeError() + ")");
    }
    if (getReadError() != null) {
      throw new InvalidRecordException("bad_csv_row", getReadError());
    }
    if (getPayload().isBlank()) {
      throw new InvalidRecordException("empty_line", "the line is empty");
    }
    if (getPayload().length() > MAX_PAYLOAD_CHARS) {
      throw new InvalidRecordException(
          "too_large",
          "the record has "
              + getPayload().length()
              + " characters; a record may have at most "
              + MAX_PAYLOAD_CHARS);
    }
    return Json.parseObject(getPayload());
  }

  public final String lineId() {
    return sourceId(getSourceKind(), getSourceName(), getSourcePartition(), getSourceOffset());
  }

  public static String sourceId(
      String kind, String name, @Nullable Integer partition, long offset) {
    return kind + ":" + name + (partition == null ? "" : "/" + partition) + "#" + offset;
  }

  public static RawEvent of(
      String payload,
      String sourceKind,
      String sourceName,
      @Nullable Integer sourcePartition,
      long sourceOffset,
      @Nullable Instant receivedAt) {
    return of(payload, sourceKind, sourceName, sourcePartition, sourceOffset, receivedAt, null);
  }

  /** A line as {@link #of(String, String, String, Integer, long, Instant)}, with its decoding. */
  public static RawEvent of(
      String payload,
      String sourceKind,
      String sourceName,
      @Nullable Integer sourcePartition,
      long sourceOffset,
      @Nullable Instant receivedAt,
      @Nullable String decodeError) {
    return of(
        payload,
        sourceKind,
        sourceName,
        sourcePartition,
        sourceOffset,
        receivedAt,
        decodeError,
        null);
  }

  /** A record as above, with what its reader found wrong with its shape ({@link #getReadError}). */
  public static RawEvent of(
      String payload,
      String sourceKind,
      String sourceName,
      @Nullable Integer sourcePartition,
      long sourceOffset,
      @Nullable Instant receivedAt,
      @Nullable String decodeError,
      @Nullable String readError) {
    return new AutoValue_RawEvent(
        payload,
        sourceKind,
        sourceName,
        sourcePartition,
        sourceOffset,
        receivedAt,
        decodeError,
        readError,
        null);
  }
}
