package dev.medallion.core;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.extensions.avro.schemas.utils.AvroUtils;
import org.apache.beam.sdk.io.FileIO;
import org.apache.beam.sdk.io.fs.EmptyMatchTreatment;
import org.apache.beam.sdk.io.fs.MatchResult;
import org.apache.beam.sdk.schemas.NoSuchSchemaException;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.schemas.SchemaRegistry;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.values.PBegin;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionView;
import org.apache.beam.sdk.values.Row;
import org.apache.beam.sdk.values.TypeDescriptor;
import org.apache.parquet.avro.AvroParquetReader;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetReader;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Reads every Parquet file of a table folder written by {@link WriteTable} back into records of the
 * table's class. Columns are matched by name, never by position, so files written with another
 * column order (an older build, another tool) read the same; a column a file lacks reads as null
 * when the record allows it. A file that is not readable Parquet stops the job with one message
 * naming the file. An empty or absent table reads as empty.
 */
public class ReadTable<T> extends PTransform<PBegin, PCollection<T>> {
  private final @Nullable String tableRoot;
  private final List<String> files;
  private final Class<T> type;
  private final @Nullable Schema rowSchema;
  private final transient List<PCollectionView<?>> after;

  private ReadTable(
      @Nullable String tableRoot,
      List<String> files,
      Class<T> type,
      @Nullable Schema rowSchema,
      List<PCollectionView<?>> after) {
    this.tableRoot = tableRoot;
    this.files = files;
    this.type = type;
    this.rowSchema = rowSchema;
    this.after = after;
  }

  /** Every Parquet file under {@code tableRoot} when the job runs. */
  public static <T> ReadTable<T> of(String tableRoot, Class<T> type) {
    return new ReadTable<>(tableRoot, List.of(), type, null, List.of());
  }

  /**
   * Exactly these files of a table: a snapshot listed before the job, so files the same job appends
   * to that table are not read back.
   */
  public static <T> ReadTable<T> ofFiles(List<String> files, Class<T> type) {
    return new ReadTable<>(null, List.copyOf(files), type, null, List.of());
  }

  /**
   * Exactly these files, as rows of {@code schema}: for a table whose columns are not a record's
   * alone (the wide Gold tables, whose sensor columns the catalog declares).
   */
  public static ReadTable<Row> rowsOfFiles(List<String> files, Schema schema) {
    return new ReadTable<>(null, List.copyOf(files), Row.class, schema, List.of());
  }

  /** The same read as a {@link Replay}: a second read starts only once its views are ready. */
  public Replay<T> replay() {
    return (begin, name, views) ->
        begin.apply(name, new ReadTable<>(tableRoot, files, type, rowSchema, List.copyOf(views)));
  }

  @Override
  public PCollection<T> expand(PBegin begin) {
    SchemaRegistry registry = begin.getPipeline().getSchemaRegistry();
    try {
      Schema beamSchema = rowSchema != null ? rowSchema : registry.getSchema(type);
      SerializableFunction<Row, T> fromRow =
          rowSchema != null ? asIs() : registry.getFromRowFunction(type);
      SerializableFunction<T, Row> toRow =
          rowSchema != null ? asIs() : registry.getToRowFunction(type);
      PCollection<String> patterns =
          begin.apply(
              "Files",
              Create.of(tableRoot != null ? List.of(tableRoot + "/**.parquet") : files)
                  .withCoder(StringUtf8Coder.of()));
      if (after != null && !after.isEmpty()) {
        patterns = patterns.apply("AfterViews", Replay.afterViews(after));
      }
      PCollection<MatchResult.Metadata> matched =
          patterns.apply(
              "MatchFiles",
              FileIO.matchAll()
                  .withEmptyMatchTreatment(
                      tableRoot != null
                          ? EmptyMatchTreatment.ALLOW
                          : EmptyMatchTreatment.DISALLOW));
      return matched
          .apply("ReadMatches", FileIO.readMatches())
          .apply("ReadParquet", ParDo.of(new ReadParquetByNameFn<>(beamSchema, fromRow)))
          .setSchema(beamSchema, TypeDescriptor.of(type), toRow, fromRow);
    } catch (NoSuchSchemaException e) {
      throw new IllegalArgumentException(type + " has no Beam schema", e);
    }
  }

  @SuppressWarnings("unchecked")
  private static <A, B> SerializableFunction<A, B> asIs() {
    return a -> (B) a;
  }

  /** One Parquet file to records, each column found by its name in that file's own schema. */
  static class ReadParquetByNameFn<T> extends DoFn<FileIO.ReadableFile, T> {
    private final Schema schema;
    private final SerializableFunction<Row, T> fromRow;

    ReadParquetByNameFn(Schema schema, SerializableFunction<Row, T> fromRow) {
      this.schema = schema;
      this.fromRow = fromRow;
    }

    @ProcessElement
    public void process(@Element FileIO.ReadableFile file, OutputReceiver<T> out) {
      String path = file.getMetadata().resourceId().toString();
      try (ParquetReader<GenericRecord> reader =
          AvroParquetReader.<GenericRecord>builder(
                  new SeekableInputFile(file), new PlainParquetConfiguration())
              .withDataModel(GenericData.get())
              .build()) {
        List<String> missing = null;
        MicrosToMillis millis = null;
        AvroRows direct = null;
        GenericRecord record;
        while ((record = reader.read()) != null) {
          if (missing == null) {
            missing = missingColumns(record.getSchema(), path);
            millis = MicrosToMillis.of(record.getSchema());
            direct = AvroRows.of(schema, record.getSchema());
          }
          Row row = direct == null ? null : direct.apply(record);
          out.output(fromRow.apply(row != null ? row : toRow(millis.apply(record), missing)));
        }
      } catch (IOException | RuntimeException e) {
        if (e instanceof MedallionException m) {
          throw m;
        }
        throw new MedallionException(
            "cannot read table file "
                + path
                + " ("
                + rootMessage(e)
                + "): it is not readable Parquet (truncated or not written by Medallion?);"
                + " move it out of the table and run again",
            e);
      }
    }

    /** The table's columns this file does not have; an error if one of them is required. */
    private List<String> missingColumns(org.apache.avro.Schema fileSchema, String path) {
      List<String> missing = new ArrayList<>();
      for (Schema.Field f : schema.getFields()) {
        if (fileSchema.getField(f.getName()) == null) {
          if (!f.getType().getNullable()) {
            throw new MedallionException(
                "table file " + path + " has no column " + f.getName() + ", which is required");
          }
          missing.add(f.getName());
        }
      }
      return missing;
    }

    private Row toRow(GenericRecord record, List<String> missing) {
      if (missing.isEmpty()) {
        return AvroUtils.toBeamRowStrict(record, schema);
      }
      Row.Builder row = Row.withSchema(schema);
      Schema present =
          Schema.of(
              schema.getFields().stream()
                  .filter(f -> !missing.contains(f.getName()))
                  .toArray(Schema.Field[]::new));
      Row partial = AvroUtils.toBeamRowStrict(record, present);
      for (Schema.Field f : schema.getFields()) {
        row.addValue(missing.contains(f.getName()) ? null : partial.getValue(f.getName()));
      }
      return row.build();
    }
  }

  /**
   * Timestamps in microseconds (what Medallion writes, as Iceberg asks; other tools too) become the
   * milliseconds of Beam's DATETIME, which Beam's Avro conversion reads only as timestamp-millis.
   */
  static final class MicrosToMillis {
    private final org.apache.avro.Schema millis;
    private final boolean[] timestamps;

    private MicrosToMillis(org.apache.avro.Schema millis, boolean[] timestamps) {
      this.millis = millis;
      this.timestamps = timestamps;
    }

    static MicrosToMillis of(org.apache.avro.Schema file) {
      String json = file.toString();
      if (!json.contains("\"timestamp-micros\"")) {
        return new MicrosToMillis(null, null);
      }
      boolean[] timestamps = new boolean[file.getFields().size()];
      for (org.apache.avro.Schema.Field f : file.getFields()) {
        timestamps[f.pos()] = f.schema().toString().contains("\"timestamp-micros\"");
      }
      return new MicrosToMillis(
          new org.apache.avro.Schema.Parser()
              .parse(json.replace("\"timestamp-micros\"", "\"timestamp-millis\"")),
          timestamps);
    }

    GenericRecord apply(GenericRecord record) {
      if (millis == null) {
        return record;
      }
      GenericRecord out = new GenericData.Record(millis);
      for (int i = 0; i < timestamps.length; i++) {
        Object v = record.get(i);
        out.put(i, timestamps[i] && v != null ? Math.floorDiv((Long) v, 1000L) : v);
      }
      return out;
    }
  }

  private static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
  }
}
