package dev.medallion.core;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.beam.sdk.io.FileSystems;
import org.apache.parquet.avro.AvroParquetReader;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.ParquetWriter;

/**
 * Copy-on-write removal of rows from a table's Parquet files: each file holding a row whose {@code
 * column} is one of the given values is written again, beside it and named for the run ({@code
 * part-<runId>-…}), without those rows. Nothing is deleted here: the caller's commit replaces the
 * old files by the new ones in one Iceberg snapshot, and a run that dies first leaves only files of
 * its own, which the next run removes.
 */
public final class TableRewrite {
  private TableRewrite() {}

  /** The files replaced, the files that replace them (fewer: a file left empty has none). */
  public record Rewritten(List<String> replaced, List<String> added, long dropped) {
    public static final Rewritten NONE = new Rewritten(List.of(), List.of(), 0);

    /** A table's {@code committed} files as they are after this rewrite. */
    public List<String> appliedTo(List<String> committed) {
      List<String> out = new ArrayList<>(committed);
      out.removeAll(replaced);
      out.addAll(added);
      return out;
    }
  }

  /** {@code files} without the rows whose {@code column} is in {@code values}. */
  public static Rewritten withoutRows(
      List<String> files, String column, Set<String> values, String runId) throws IOException {
    List<String> replaced = new ArrayList<>();
    List<String> added = new ArrayList<>();
    long dropped = 0;
    for (String file : files) {
      long matching = count(file, column, values);
      if (matching == 0) {
        continue;
      }
      replaced.add(file);
      dropped += matching;
      String copy =
          file.substring(0, file.lastIndexOf('/') + 1)
              + "part-"
              + runId
              + "-"
              + UUID.randomUUID()
              + ".parquet";
      if (copyWithout(file, copy, column, values) > 0) {
        added.add(copy);
      } else {
        FileSystems.delete(List.of(FileSystems.matchNewResource(copy, false)));
      }
    }
    return new Rewritten(replaced, added, dropped);
  }

  private static long count(String file, String column, Set<String> values) throws IOException {
    long n = 0;
    try (ParquetReader<GenericRecord> in = reader(file)) {
      for (GenericRecord r = in.read(); r != null; r = in.read()) {
        if (matches(r, column, values)) {
          n++;
        }
      }
    }
    return n;
  }

  /** Writes the kept rows of {@code file} to {@code copy}; how many it kept. */
  private static long copyWithout(String file, String copy, String column, Set<String> values)
      throws IOException {
    long kept = 0;
    try (ParquetReader<GenericRecord> in = reader(file)) {
      GenericRecord r = in.read();
      if (r == null) {
        return 0;
      }
      try (ParquetWriter<GenericRecord> out = WriteTableFiles.open(copy, r.getSchema())) {
        for (; r != null; r = in.read()) {
          if (!matches(r, column, values)) {
            out.write(r);
            kept++;
          }
        }
      }
    }
    return kept;
  }

  private static boolean matches(GenericRecord r, String column, Set<String> values) {
    Object v = r.get(column);
    return v != null && values.contains(v.toString());
  }

  private static ParquetReader<GenericRecord> reader(String file) throws IOException {
    return AvroParquetReader.<GenericRecord>builder(
            SeekableInputFile.of(file), new PlainParquetConfiguration())
        .withDataModel(GenericData.get())
        .build();
  }
}
