package dev.medallion.core;

import java.nio.ByteBuffer;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.beam.sdk.extensions.avro.schemas.utils.AvroUtils;
import org.apache.beam.sdk.schemas.Schema.TypeName;
import org.apache.beam.sdk.values.Row;
import org.joda.time.ReadableInstant;

/**
 * A table's records as the Avro records its Parquet files are written from. Timestamps are
 * microseconds ({@code timestamp-micros}): Iceberg asks for them (its Spark reader refuses {@code
 * TIMESTAMP(MILLIS)}), while Beam's own Avro mapping gives milliseconds. Flat rows of plain fields
 * (the tables' records) are converted in one pass; anything else goes through Beam's {@link
 * AvroUtils}.
 */
final class ParquetRecords {
  private ParquetRecords() {}

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

  /** The Avro schema of the files for records of this Beam schema. */
  static Schema microsSchema(org.apache.beam.sdk.schemas.Schema beam) {
    String millis = AvroUtils.toAvroSchema(beam).toString();
    return new Schema.Parser()
        .parse(millis.replace("\"timestamp-millis\"", "\"timestamp-micros\""));
  }

  /** One row as a record of {@code micros} (a {@link #microsSchema}). */
  static GenericRecord toAvro(Row row, Schema micros) {
    org.apache.beam.sdk.schemas.Schema beam = row.getSchema();
    if (!isFlat(beam)) {
      return viaAvroUtils(row, micros);
    }
    GenericData.Record out = new GenericData.Record(micros);
    for (int i = 0; i < beam.getFieldCount(); i++) {
      Object v = row.getValue(i);
      if (v == null) {
        continue;
      }
      TypeName type = beam.getField(i).getType().getTypeName();
      if (type == TypeName.DATETIME) {
        v = ((ReadableInstant) v).getMillis() * 1000;
      } else if (type == TypeName.INT16) {
        v = ((Short) v).intValue();
      } else if (type == TypeName.BYTES) {
        v = ByteBuffer.wrap((byte[]) v);
      }
      out.put(i, v);
    }
    return out;
  }

  private static boolean isFlat(org.apache.beam.sdk.schemas.Schema beam) {
    for (org.apache.beam.sdk.schemas.Schema.Field f : beam.getFields()) {
      if (!FLAT.contains(f.getType().getTypeName())) {
        return false;
      }
    }
    return true;
  }

  private static GenericRecord viaAvroUtils(Row row, Schema micros) {
    Schema millis = AvroUtils.toAvroSchema(row.getSchema());
    GenericRecord m = AvroUtils.toGenericRecord(row, millis);
    GenericRecord out = new GenericData.Record(micros);
    for (Schema.Field f : micros.getFields()) {
      Object v = m.get(f.pos());
      boolean timestamp = f.schema().toString().contains("\"timestamp-micros\"");
      out.put(f.pos(), timestamp && v != null ? ((Long) v) * 1000 : v);
    }
    return out;
  }
}
