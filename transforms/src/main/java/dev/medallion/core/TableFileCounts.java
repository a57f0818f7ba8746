package dev.medallion.core;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.avro.AvroParquetReader;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;

/**
 * What a run's table files hold, counted in the files themselves: the numbers a run reports when
 * the runner's counters cannot be trusted (Spark increments them again for a recomputed or retried
 * task, and has no committed metrics).
 */
public final class TableFileCounts {
  private TableFileCounts() {}

  /** The rows of these Parquet files, from their footers. */
  public static long rows(List<String> files) throws IOException {
    long rows = 0;
    for (String file : files) {
      try (ParquetFileReader reader =
          ParquetFileReader.open(
              SeekableInputFile.of(file),
              ParquetReadOptions.builder(new PlainParquetConfiguration()).build())) {
        rows += reader.getRecordCount();
      }
    }
    return rows;
  }

  /**
   * The dead letters of these quarantine files, as counters name them: {@code
   * <stage><suffix>_rejected} and {@code <stage><suffix>_rejected_<reason>} (the reason's code, as
   * {@link Rejections#count} counts it).
   */
  public static Map<String, Long> deadLetters(List<String> files, String suffix)
      throws IOException {
    Map<String, Long> counts = new TreeMap<>();
    for (String file : files) {
      try (ParquetReader<GenericRecord> reader =
          AvroParquetReader.<GenericRecord>builder(
                  SeekableInputFile.of(file), new PlainParquetConfiguration())
              .withDataModel(GenericData.get())
              .build()) {
        GenericRecord r;
        while ((r = reader.read()) != null) {
          String stage = r.get("stage") + suffix;
          counts.merge(stage + "_rejected", 1L, Long::sum);
          counts.merge(
              stage + "_rejected_" + Rejections.reasonCode(String.valueOf(r.get("reason"))),
              1L,
              Long::sum);
        }
      }
    }
    return counts;
  }
}
