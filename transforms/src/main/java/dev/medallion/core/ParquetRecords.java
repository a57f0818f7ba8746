package dev.medallion.core;

import java.io.Serializable;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.util.Utf8;
import org.apache.beam.sdk.extensions.avro.schemas.utils.AvroUtils;
import org.apache.beam.sdk.schemas.Schema.TypeName;
import org.apache.beam.sdk.values.Row;
import org.joda.time.ReadableInstant;

/**
 * A table's records as the Avro records its Parquet files are written from. Timestamps are
 * microseconds ({@code timestamp-micros}): Iceberg asks for them (its Spark reader refuses {@code
 * TIMESTAMP(MILLIS)}), while Beam's own Avro mapping gives milliseconds. Flat rows of plain fields
 * (the tables' records) are converted in one pass; anything else goes through Beam's {@link
 * AvroUtils}. Built once per writer (serializable), it looks up the field types once, not per row.
 */
final class ParquetRecords implements Serializable {
  private static final List<TypeName> FLAT =
      List.of(
          TypeName.STRING,
          TypeName.INT16,
          TypeName.INT32,
          TypeName.INT64,
          TypeName.DOUBLE,
          TypeName.FLOAT,
          TypeName.BOOLEAN,
          TypeName.DATETIME,
          TypeName.BYTES);

  private final org.apache.beam.sdk.schemas.Schema beam;
  private final String microsJson;
  private final TypeName[] types;
  private final boolean flat;
  private transient Schema micros;
  private transient Schema millis;

  private ParquetRecords(org.apache.beam.sdk.schemas.Schema beam) {
    this.beam = beam;
    this.microsJson = microsSchema(beam).toString();
    this.types = new TypeName[beam.getFieldCount()];
    boolean allFlat = true;
    for (int i = 0; i < types.length; i++) {
      types[i] = beam.getField(i).getType().getTypeName();
      allFlat &= FLAT.contains(types[i]);
    }
    this.flat = allFlat;
  }

  /** The converter for records of this Beam schema. */
  static ParquetRecords of(org.apache.beam.sdk.schemas.Schema beam) {
    return new ParquetRecords(beam);
  }

  /** The Avro schema of the files for records of this Beam schema. */
  static Schema microsSchema(org.apache.beam.sdk.schemas.Schema beam) {
    String millis = AvroUtils.toAvroSchema(beam).toString();
    return new Schema.Parser()
        .parse(millis.replace("\"timestamp-millis\"", "\"timestamp-micros\""));
  }

  /** The files' Avro schema ({@link #microsSchema}). */
  Schema schema() {
    if (micros == null) {
      micros = new Schema.Parser().parse(microsJson);
    }
    return micros;
  }

  private static final long MICROS_PER_MILLI = 1000;

  /** An instant as the files hold it: microseconds ({@code timestamp-micros}). */
  static long micros(ReadableInstant t) {
    return t.getMillis() * MICROS_PER_MILLI;
  }

  /** Whether every field is a plain value ({@link #FLAT}), converted by {@link #toAvro} itself. */
  boolean isFlat() {
    return flat;
  }

  /** The type of field {@code i}. */
  TypeName type(int i) {
    return types[i];
  }

  /** One row as a record of the files' schema. */
  GenericRecord toAvro(Row row) {
    Schema out = schema();
    if (!flat) {
      return viaAvroUtils(row, out);
    }
    GenericData.Record record = new GenericData.Record(out);
    for (int i = 0; i < types.length; i++) {
      Object v = row.getValue(i);
      if (v == null) {
        continue;
      }
      switch (types[i]) {
        case DATETIME -> v = micros((ReadableInstant) v);
        case INT16 -> v = ((Short) v).intValue();
        case BYTES -> v = ByteBuffer.wrap((byte[]) v);
        // As Avro's own string: Parquet then compares and hashes it as a byte array (for the
        // dictionaries and the min/max statistics), not through a ByteBuffer, byte by byte.
        case STRING -> v = new Utf8((String) v);
        default -> {}
      }
      record.put(i, v);
    }
    return record;
  }

  private GenericRecord viaAvroUtils(Row row, Schema out) {
    if (millis == null) {
      millis = AvroUtils.toAvroSchema(beam);
    }
    GenericRecord m = AvroUtils.toGenericRecord(row, millis);
    GenericRecord record = new GenericData.Record(out);
    for (Schema.Field f : out.getFields()) {
      Object v = m.get(f.pos());
      boolean timestamp = f.schema().toString().contains("\"timestamp-micros\"");
      record.put(f.pos(), timestamp && v != null ? ((Long) v) * MICROS_PER_MILLI : v);
    }
    return record;
  }
}
