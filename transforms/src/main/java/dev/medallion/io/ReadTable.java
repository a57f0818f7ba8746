package dev.medallion.io;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.apache.beam.sdk.extensions.avro.schemas.utils.AvroUtils;
import org.apache.beam.sdk.io.FileIO;
import org.apache.beam.sdk.io.fs.EmptyMatchTreatment;
import org.apache.beam.sdk.io.parquet.ParquetIO;
import org.apache.beam.sdk.schemas.NoSuchSchemaException;
import org.apache.beam.sdk.schemas.SchemaRegistry;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.values.PBegin;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.Row;
import org.apache.beam.sdk.values.TypeDescriptor;

/**
 * Reads every Parquet file of a table folder written by {@link WriteTable} back into records of the
 * table's class. An empty or absent table reads as empty.
 */
public class ReadTable<T> extends PTransform<PBegin, PCollection<T>> {
  private final String tableRoot;
  private final Class<T> type;

  private ReadTable(String tableRoot, Class<T> type) {
    this.tableRoot = tableRoot;
    this.type = type;
  }

  public static <T> ReadTable<T> of(String tableRoot, Class<T> type) {
    return new ReadTable<>(tableRoot, type);
  }

  @Override
  public PCollection<T> expand(PBegin begin) {
    SchemaRegistry registry = begin.getPipeline().getSchemaRegistry();
    try {
      org.apache.beam.sdk.schemas.Schema beamSchema = registry.getSchema(type);
      SerializableFunction<Row, T> fromRow = registry.getFromRowFunction(type);
      Schema avroSchema = AvroUtils.toAvroSchema(beamSchema);
      return begin
          .apply(
              "MatchFiles",
              FileIO.match()
                  .filepattern(tableRoot + "/**.parquet")
                  .withEmptyMatchTreatment(EmptyMatchTreatment.ALLOW))
          .apply("ReadMatches", FileIO.readMatches())
          .apply("ReadParquet", ParquetIO.readFiles(avroSchema))
          .apply(
              "ToRecord",
              MapElements.into(TypeDescriptor.of(type))
                  .via(
                      (GenericRecord g) -> fromRow.apply(AvroUtils.toBeamRowStrict(g, beamSchema))))
          .setSchema(beamSchema, TypeDescriptor.of(type), registry.getToRowFunction(type), fromRow);
    } catch (NoSuchSchemaException e) {
      throw new IllegalArgumentException(type + " has no Beam schema", e);
    }
  }
}
