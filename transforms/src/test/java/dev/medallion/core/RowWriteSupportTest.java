package dev.medallion.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.generic.GenericRecord;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.schemas.Schema.FieldType;
import org.apache.beam.sdk.schemas.SchemaRegistry;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.transforms.SerializableFunctions;
import org.apache.beam.sdk.values.Row;
import org.apache.parquet.avro.AvroParquetReader;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.FileMetaData;
import org.apache.parquet.io.LocalInputFile;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table's rows written straight into Parquet ({@link RowWriteSupport}) make the file Avro's
 * writer makes from the same rows ({@link ParquetRecords#toAvro}): the same schema and footer, the
 * same records read back, nulls where the rows had them; and a row of nested fields still goes
 * through Avro. Records read through their rows' getters make the file their rows make.
 */
class RowWriteSupportTest {
  private static final Schema FLAT =
      Schema.builder()
          .addStringField("user_id")
          .addNullableField("price", FieldType.DOUBLE)
          .addNullableField("count", FieldType.INT32)
          .addNullableField("line_number", FieldType.INT64)
          .addNullableField("small", FieldType.INT16)
          .addNullableField("ratio", FieldType.FLOAT)
          .addNullableField("valid", FieldType.BOOLEAN)
          .addNullableField("event_ts", FieldType.DATETIME)
          .addNullableField("payload", FieldType.BYTES)
          .addNullableField("note", FieldType.STRING)
          .build();

  /** A table of rows: each record is its own row. */
  private static final SerializableFunction<Row, Row> AS_IS = SerializableFunctions.identity();

  @TempDir Path dir;

  @Test
  void flatRowsMakeTheFileAvrosWriterMakes() throws Exception {
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      rows.add(
          Row.withSchema(FLAT)
              .addValues(
                  "u-" + (i % 37),
                  i % 5 == 0 ? null : i * 1.25,
                  i % 7 == 0 ? null : i,
                  i % 3 == 0 ? null : 1_000_000_000_000L + i,
                  i % 4 == 0 ? null : (short) (i % 100),
                  i % 6 == 0 ? null : i / 3f,
                  i % 8 == 0 ? null : i % 2 == 0,
                  i % 9 == 0 ? null : new Instant(1_790_000_000_123L + i * 1000L),
                  i % 10 == 0 ? null : new byte[] {(byte) i, 0, (byte) -i},
                  i % 2 == 0 ? null : "é ü – " + i)
              .build());
    }
    ParquetRecords records = ParquetRecords.of(FLAT);
    Path direct = dir.resolve("direct.parquet");
    Path viaAvro = dir.resolve("avro.parquet");
    try (TableFile<Row> w = TableFile.open(direct.toString(), records, AS_IS)) {
      for (Row r : rows) {
        w.write(r);
      }
    }
    try (ParquetWriter<GenericRecord> w =
        WriteTableFiles.open(viaAvro.toString(), records.schema())) {
      for (Row r : rows) {
        w.write(records.toAvro(r));
      }
    }

    FileMetaData expected = footer(viaAvro);
    FileMetaData actual = footer(direct);
    assertThat(actual.getSchema()).isEqualTo(expected.getSchema());
    assertThat(actual.getKeyValueMetaData()).isEqualTo(expected.getKeyValueMetaData());
    List<GenericRecord> read = read(direct);
    assertThat(read).hasSize(rows.size()).isEqualTo(read(viaAvro));
    assertThat(read.get(0).get("price")).isNull();
    assertThat(read.get(1).get("event_ts")).isEqualTo((1_790_000_000_123L + 1000L) * 1000);
    assertThat(read.get(1).get("note").toString()).isEqualTo("é ü – 1");
  }

  @Test
  void aRowWithANestedFieldIsWrittenThroughAvro() throws Exception {
    Schema nested =
        Schema.builder()
            .addStringField("device_id")
            .addArrayField("readings", FieldType.DOUBLE)
            .addNullableField("seen", FieldType.DATETIME)
            .build();
    ParquetRecords records = ParquetRecords.of(nested);
    Row row =
        Row.withSchema(nested)
            .addValues("dev-1", List.of(1.5, 2.5), new Instant(1_790_000_000_000L))
            .build();
    Path file = dir.resolve("nested.parquet");
    try (TableFile<Row> w = TableFile.open(file.toString(), records, AS_IS)) {
      w.write(row);
    }
    GenericRecord back = read(file).get(0);
    assertThat(back.get("device_id").toString()).isEqualTo("dev-1");
    assertThat(back.get("readings")).asList().containsExactly(1.5, 2.5);
    assertThat(back.get("seen")).isEqualTo(1_790_000_000_000L * 1000);
  }

  @Test
  void recordsReadThroughTheirGettersMakeTheFileTheirRowsMake() throws Exception {
    SchemaRegistry registry = SchemaRegistry.createDefault();
    Schema schema = registry.getSchema(DeadLetter.class);
    SerializableFunction<DeadLetter, Row> toRow = registry.getToRowFunction(DeadLetter.class);
    List<DeadLetter> letters = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      letters.add(
          DeadLetter.of(
              i % 2 == 0 ? "silver" : "gold",
              "reason-" + (i % 7),
              "detail é " + i,
              "{\"n\":" + i + "}",
              "file:/in.ndjson#" + i,
              "in.ndjson",
              i % 3 == 0 ? null : new Instant(1_790_000_000_000L + i * 61_000L),
              new Instant(1_790_100_000_000L + i)));
    }
    ParquetRecords records = ParquetRecords.of(schema);
    Path direct = dir.resolve("getters.parquet");
    Path viaAvro = dir.resolve("rows-avro.parquet");
    try (TableFile<DeadLetter> w = TableFile.open(direct.toString(), records, toRow)) {
      for (DeadLetter d : letters) {
        w.write(d);
      }
    }
    try (ParquetWriter<GenericRecord> w =
        WriteTableFiles.open(viaAvro.toString(), records.schema())) {
      for (DeadLetter d : letters) {
        w.write(records.toAvro(toRow.apply(d)));
      }
    }

    assertThat(RowWriteSupport.gettersOf(toRow.apply(letters.get(0)), letters.get(0)))
        .hasSize(schema.getFieldCount());
    assertThat(footer(direct).getSchema()).isEqualTo(footer(viaAvro).getSchema());
    List<GenericRecord> read = read(direct);
    assertThat(read).hasSize(letters.size()).isEqualTo(read(viaAvro));
    assertThat(read.get(0).get("event_ts")).isNull();
    assertThat(read.get(1).get("detail").toString()).isEqualTo("detail é 1");
  }

  @Test
  void aRowIsReadAsARowNotThroughTheGettersOfWhatItWasMadeFrom() throws Exception {
    SchemaRegistry registry = SchemaRegistry.createDefault();
    DeadLetter letter =
        DeadLetter.of("gold", "r", "d", "{}", "s", "n", null, new Instant(1_790_000_000_000L));
    Row ofGetters = registry.getToRowFunction(DeadLetter.class).apply(letter);
    Row stored = Row.withSchema(ofGetters.getSchema()).addValues(ofGetters.getValues()).build();

    assertThat(RowWriteSupport.gettersOf(ofGetters, letter)).isNotNull();
    // A table of rows: each record is itself the row, whatever it reads.
    assertThat(RowWriteSupport.gettersOf(ofGetters, ofGetters)).isNull();
    assertThat(RowWriteSupport.gettersOf(stored, stored)).isNull();
  }

  private static FileMetaData footer(Path file) throws Exception {
    try (ParquetFileReader r = ParquetFileReader.open(new LocalInputFile(file))) {
      return r.getFooter().getFileMetaData();
    }
  }

  private static List<GenericRecord> read(Path file) throws Exception {
    List<GenericRecord> out = new ArrayList<>();
    try (ParquetReader<GenericRecord> r =
        AvroParquetReader.<GenericRecord>builder(new LocalInputFile(file))
            .withConf(new PlainParquetConfiguration())
            .build()) {
      for (GenericRecord g = r.read(); g != null; g = r.read()) {
        out.add(g);
      }
    }
    return out;
  }
}
