package dev.medallion.core;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.beam.sdk.schemas.FieldValueGetter;
import org.apache.beam.sdk.schemas.Schema.TypeName;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.values.Row;
import org.apache.beam.sdk.values.RowWithGetters;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.avro.AvroSchemaConverter;
import org.apache.parquet.avro.AvroWriteSupport;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.ReadableInstant;

/**
 * Writes a table's records into Parquet: the same files as Avro's writer makes from {@link
 * ParquetRecords#toAvro} of their Beam rows (the schema converted from the same Avro schema, which
 * is kept in the footer as Avro's writer keeps it), without building an Avro record per row. A flat
 * row's fields go straight to Parquet's columns; a row with nested fields still goes through Avro.
 *
 * <p>Per row, Avro's writer looked up each field's non-null branch of its union schema (building a
 * list each time) and the row was copied into an Avro record first: on Spark, with the users job at
 * 2M events, 4 % of the CPU samples between them.
 *
 * <p>A record of a Java type whose row reads it through getters (the {@code AutoValue} records of
 * Bronze and Silver, and the quarantine's) is read through the same getters, without a row for
 * each: Beam builds a row of getters by looking its getters up in a table keyed by the type (a
 * {@code TypeDescriptor}'s hash and equality for every record). In the all-in-one run over a Kafka
 * backlog of 1M (JFR, 2026-12-07, the worker threads' samples while it read the backlog) those rows
 * were 5.2 % of the samples, and 0.7 % without; the table writes 29.9 % and 22.4 %. The getters are
 * the row's, taken from the file's first record; a record that is itself a row is read as one.
 */
final class RowWriteSupport<T> extends WriteSupport<T> {
  /**
   * The footer key under which Avro's writer keeps the files' Avro schema (package-private there).
   */
  private static final String AVRO_SCHEMA = "parquet.avro.schema";

  private final ParquetRecords records;
  private final SerializableFunction<T, Row> toRow;
  private MessageType parquet;
  private RecordConsumer out;
  private AvroWriteSupport<GenericRecord> nested;
  // The getters of the file's records' rows, once its first record has shown they have them; null:
  // each record's row is read.
  private @Nullable List<FieldValueGetter<T, Object>> getters;
  private boolean firstSeen;

  private RowWriteSupport(ParquetRecords records, SerializableFunction<T, Row> toRow) {
    this.records = records;
    this.toRow = toRow;
  }

  /**
   * A writer of records into the Parquet file {@code file}, each the row {@code toRow} gives,
   * configured by the caller.
   */
  static <T> Builder<T> builder(
      OutputFile file, ParquetRecords records, SerializableFunction<T, Row> toRow) {
    return new Builder<>(file, records, toRow);
  }

  @Override
  public WriteContext init(Configuration conf) {
    return init(new PlainParquetConfiguration());
  }

  @Override
  public WriteContext init(ParquetConfiguration conf) {
    parquet = new AvroSchemaConverter(conf).convert(records.schema());
    if (!records.isFlat()) {
      nested = new AvroWriteSupport<>(parquet, records.schema(), GenericData.get());
      return nested.init(conf);
    }
    return new WriteContext(parquet, Map.of(AVRO_SCHEMA, records.schema().toString()));
  }

  /** As Avro's writer names itself: the files' layout and metadata are that model's. */
  @Override
  public String getName() {
    return "avro";
  }

  @Override
  public void prepareForWrite(RecordConsumer consumer) {
    if (nested != null) {
      nested.prepareForWrite(consumer);
    }
    out = consumer;
  }

  @Override
  public void write(T record) {
    if (nested != null) {
      nested.write(records.toAvro(toRow.apply(record)));
      return;
    }
    Row row = null;
    if (!firstSeen) {
      row = toRow.apply(record);
      getters = gettersOf(row, record);
      firstSeen = true;
    } else if (getters == null) {
      row = toRow.apply(record);
    }
    out.startMessage();
    for (int i = 0; i < parquet.getFieldCount(); i++) {
      Object v = getters != null ? getters.get(i).get(record) : row.getValue(i);
      Type field = parquet.getType(i);
      if (v == null) {
        if (field.isRepetition(Type.Repetition.REQUIRED)) {
          throw new IllegalArgumentException(
              "field " + field.getName() + " is required, and null in " + record);
        }
        continue;
      }
      out.startField(field.getName(), i);
      writeValue(records.type(i), v);
      out.endField(field.getName(), i);
    }
    out.endMessage();
  }

  /**
   * The getters of {@code row}, when it reads {@code record} through them field for field in the
   * table's schema (a flat field's value is its getter's: {@code RowWithGetters} only converts
   * collections and nested rows); else null.
   */
  @SuppressWarnings("unchecked")
  static <T> @Nullable List<FieldValueGetter<T, Object>> gettersOf(Row row, T record) {
    if (row instanceof RowWithGetters<?> withGetters
        && withGetters.getGetterTarget() == record
        && withGetters.getGetters().size() == row.getSchema().getFieldCount()) {
      return (List<FieldValueGetter<T, Object>>) (List<?>) withGetters.getGetters();
    }
    return null;
  }

  private void writeValue(TypeName type, Object v) {
    switch (type) {
      // A byte array of its own: Parquet compares and hashes it as one (for the dictionaries and
      // the min/max statistics), not byte by byte through a ByteBuffer.
      case STRING ->
          out.addBinary(
              Binary.fromConstantByteArray(((String) v).getBytes(StandardCharsets.UTF_8)));
      case BYTES -> out.addBinary(Binary.fromConstantByteArray((byte[]) v));
      case INT16 -> out.addInteger((Short) v);
      case INT32 -> out.addInteger((Integer) v);
      case INT64 -> out.addLong((Long) v);
      case DOUBLE -> out.addDouble((Double) v);
      case FLOAT -> out.addFloat((Float) v);
      case BOOLEAN -> out.addBoolean((Boolean) v);
      case DATETIME -> out.addLong(ParquetRecords.micros((ReadableInstant) v));
      default -> throw new IllegalStateException("not a flat field: " + type);
    }
  }

  /** {@link ParquetWriter}'s builder for records of one table. */
  static final class Builder<T> extends ParquetWriter.Builder<T, Builder<T>> {
    private final ParquetRecords records;
    private final SerializableFunction<T, Row> toRow;

    private Builder(OutputFile file, ParquetRecords records, SerializableFunction<T, Row> toRow) {
      super(file);
      this.records = records;
      this.toRow = toRow;
    }

    @Override
    protected Builder<T> self() {
      return this;
    }

    @Override
    protected WriteSupport<T> getWriteSupport(Configuration conf) {
      return new RowWriteSupport<>(records, toRow);
    }

    @Override
    protected WriteSupport<T> getWriteSupport(ParquetConfiguration conf) {
      return new RowWriteSupport<>(records, toRow);
    }
  }
}
