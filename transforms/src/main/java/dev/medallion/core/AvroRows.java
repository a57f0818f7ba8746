package dev.medallion.core;

import java.util.Arrays;
import org.apache.avro.LogicalType;
import org.apache.avro.generic.GenericRecord;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.values.Row;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * The Avro records a Parquet table file is read as, turned into Beam rows of the table's schema,
 * each column found by its name in the file: a string, number, boolean or instant (timestamp-millis
 * or -micros) taken as it is. Beam's strict conversion ({@code AvroUtils.toBeamRowStrict}) and the
 * validating {@code Row} builder behind it took 29 % of a Gold stage's CPU while it read the
 * committed Silver rows it starts from. Only for what it knows: a table or file with any other
 * column type gets no converter ({@link #of} is null), and a record with a value of an unexpected
 * class or a required column null gets no row ({@link #apply} is null); the caller converts those
 * the strict way, with its checks and messages.
 */
final class AvroRows {
  private enum Kind {
    STRING,
    BOOLEAN,
    INT32,
    INT64,
    FLOAT,
    DOUBLE,
    MILLIS,
    MICROS
  }

  private final Schema schema;
  private final int[] positions; // of each table column in the file, -1 when the file lacks it
  private final Kind[] kinds;
  private final boolean[] nullable;

  private AvroRows(Schema schema, int[] positions, Kind[] kinds, boolean[] nullable) {
    this.schema = schema;
    this.positions = positions;
    this.kinds = kinds;
    this.nullable = nullable;
  }

  /** The converter from records of {@code file} to rows of {@code table}, or null. */
  static @Nullable AvroRows of(Schema table, org.apache.avro.Schema file) {
    int n = table.getFieldCount();
    int[] positions = new int[n];
    Kind[] kinds = new Kind[n];
    boolean[] nullable = new boolean[n];
    for (int i = 0; i < n; i++) {
      Schema.Field column = table.getField(i);
      nullable[i] = column.getType().getNullable();
      org.apache.avro.Schema.Field in = file.getField(column.getName());
      if (in == null) {
        if (!nullable[i]) {
          return null;
        }
        positions[i] = -1;
        continue;
      }
      positions[i] = in.pos();
      kinds[i] = kind(column.getType().getTypeName(), nonNull(in.schema()));
      if (kinds[i] == null) {
        return null;
      }
    }
    return new AvroRows(table, positions, kinds, nullable);
  }

  /** The row of {@code record}, or null when it is one for the strict conversion. */
  @Nullable Row apply(GenericRecord record) {
    Object[] values = new Object[kinds.length];
    for (int i = 0; i < kinds.length; i++) {
      if (positions[i] < 0) {
        continue;
      }
      Object v = record.get(positions[i]);
      if (v == null) {
        if (!nullable[i]) {
          return null;
        }
        continue;
      }
      Object value =
          switch (kinds[i]) {
            case STRING -> v instanceof CharSequence s ? s.toString() : null;
            case BOOLEAN -> v instanceof Boolean ? v : null;
            case INT32 -> v instanceof Integer ? v : null;
            case INT64 -> v instanceof Long ? v : null;
            case FLOAT -> v instanceof Float ? v : null;
            case DOUBLE -> v instanceof Double ? v : null;
            case MILLIS -> v instanceof Long millis ? new Instant(millis) : null;
            case MICROS ->
                v instanceof Long micros ? new Instant(Math.floorDiv(micros, 1000L)) : null;
          };
      if (value == null) {
        return null;
      }
      values[i] = value;
    }
    return Row.withSchema(schema).attachValues(Arrays.asList(values));
  }

  /** The kind of a table column of {@code type} stored as {@code avro}, or null. */
  private static @Nullable Kind kind(Schema.TypeName type, org.apache.avro.@Nullable Schema avro) {
    if (avro == null) {
      return null;
    }
    LogicalType logical = avro.getLogicalType();
    org.apache.avro.Schema.Type t = avro.getType();
    if (type == Schema.TypeName.DATETIME && t == org.apache.avro.Schema.Type.LONG) {
      String name = logical == null ? "" : logical.getName();
      return name.equals("timestamp-millis")
          ? Kind.MILLIS
          : name.equals("timestamp-micros") ? Kind.MICROS : null;
    }
    if (logical != null) {
      return null;
    }
    return switch (type) {
      case STRING -> t == org.apache.avro.Schema.Type.STRING ? Kind.STRING : null;
      case BOOLEAN -> t == org.apache.avro.Schema.Type.BOOLEAN ? Kind.BOOLEAN : null;
      case INT32 -> t == org.apache.avro.Schema.Type.INT ? Kind.INT32 : null;
      case INT64 -> t == org.apache.avro.Schema.Type.LONG ? Kind.INT64 : null;
      case FLOAT -> t == org.apache.avro.Schema.Type.FLOAT ? Kind.FLOAT : null;
      case DOUBLE -> t == org.apache.avro.Schema.Type.DOUBLE ? Kind.DOUBLE : null;
      default -> null;
    };
  }

  /** A field's type without its null branch: the type itself, the other branch of [null, X]. */
  private static org.apache.avro.@Nullable Schema nonNull(org.apache.avro.Schema s) {
    if (s.getType() != org.apache.avro.Schema.Type.UNION) {
      return s;
    }
    org.apache.avro.Schema only = null;
    for (org.apache.avro.Schema branch : s.getTypes()) {
      if (branch.getType() != org.apache.avro.Schema.Type.NULL) {
        if (only != null) {
          return null; // a union of two types
        }
        only = branch;
      }
    }
    return only;
  }
}
