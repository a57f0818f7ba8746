package dev.medallion.core;

import org.apache.beam.sdk.schemas.NoSuchSchemaException;
import org.apache.beam.sdk.schemas.SchemaCoder;
import org.apache.beam.sdk.schemas.SchemaRegistry;
import org.apache.beam.sdk.values.TypeDescriptor;

/**
 * A schema coder of a record type's own schema and row functions that encodes the record in a
 * format of its own, field by field from the getters, instead of through a Beam {@code Row}.
 *
 * <p>Beam's schema coder fetches each field with a generated getter into a {@code Row}, encodes the
 * row with a coder per field, and decodes through a row and a generated creator. On Spark, where
 * the outputs of a multi-output step are kept encoded and decoded by each reader, that was a
 * quarter of a job's CPU samples. A subclass is a schema coder all the same: its schema and row
 * functions are the type's, so every schema-aware step (the table writers, {@code Convert}) sees
 * the same PCollections. Subclasses override {@code encode} and {@code decode} only.
 */
public abstract class OwnFormatSchemaCoder<T> extends SchemaCoder<T> {
  private static final long serialVersionUID = 1L;

  protected OwnFormatSchemaCoder(Class<T> type) {
    this(schemaCoder(type));
  }

  private OwnFormatSchemaCoder(SchemaCoder<T> of) {
    super(
        of.getSchema(),
        of.getEncodedTypeDescriptor(),
        of.getToRowFunction(),
        of.getFromRowFunction());
  }

  private static <T> SchemaCoder<T> schemaCoder(Class<T> type) {
    SchemaRegistry registry = SchemaRegistry.createDefault();
    try {
      return SchemaCoder.of(
          registry.getSchema(type),
          TypeDescriptor.of(type),
          registry.getToRowFunction(type),
          registry.getFromRowFunction(type));
    } catch (NoSuchSchemaException e) {
      throw new IllegalStateException(type + " has no schema", e);
    }
  }
}
