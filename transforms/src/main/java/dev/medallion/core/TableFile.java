package dev.medallion.core;

import java.io.IOException;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.values.Row;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;

/**
 * One table file being written: a table's records, each as the row {@code toRow} gives, into a new
 * Parquet file with every table file's settings ({@link WriteTableFiles}).
 *
 * <p>A file is given up ({@link #abandon}) without Parquet: its stream is closed under the writer
 * and the file deleted. A failed bundle's files are given up that way from its {@code @Teardown},
 * which the DirectRunner calls on the thread that cancels a failed job, while a worker may still be
 * writing the same file; Parquet's writer is not made for two threads. With Parquet's {@code close}
 * there, the full-disk fault test hung once: the cancelling thread spun in the writer's Snappy
 * compressor, in {@code teardown}, for as long as we watched (jstack, 2026-12-02). Closing the
 * stream instead makes a worker's next write fail, which ends its bundle.
 */
final class TableFile<T> implements AutoCloseable {
  private final String path;
  private final ParquetWriter<T> writer;
  private final StreamOf file;
  private volatile boolean done;

  private TableFile(String path, ParquetWriter<T> writer, StreamOf file) {
    this.path = path;
    this.writer = writer;
    this.file = file;
  }

  /** A new file at {@code path}, of Beam's file systems (local, {@code s3://}, …). */
  static <T> TableFile<T> open(
      String path, ParquetRecords records, SerializableFunction<T, Row> toRow) throws IOException {
    return open(WriteTableFiles.ChannelOutputFile.of(path), records, toRow);
  }

  /** A new file written through {@code out}, at its path ({@link OutputFile#getPath}). */
  static <T> TableFile<T> open(
      OutputFile out, ParquetRecords records, SerializableFunction<T, Row> toRow)
      throws IOException {
    String path = out.getPath();
    StreamOf file = new StreamOf(out);
    try {
      ParquetWriter<T> writer =
          WriteTableFiles.configured(
              RowWriteSupport.builder(file, records, toRow), records.schema());
      return new TableFile<>(path, writer, file);
    } catch (IOException | RuntimeException e) {
      discard(file, path);
      throw e;
    }
  }

  String path() {
    return path;
  }

  /** Writes one record; if that fails, abandons the file and throws. */
  void write(T record) throws IOException {
    try {
      writer.write(record);
    } catch (IOException | RuntimeException e) {
      abandon();
      throw e;
    }
  }

  /**
   * Finishes the file (its last row group and footer); if that fails, deletes it and throws. A file
   * already finished or abandoned is left as it is.
   */
  @Override
  public void close() throws IOException {
    if (done) {
      return;
    }
    done = true;
    try {
      writer.close();
    } catch (IOException | RuntimeException e) {
      discard(file, path);
      throw e;
    }
  }

  /** Gives the file up without Parquet: closes its stream and deletes it, quietly. */
  void abandon() {
    if (!done) {
      done = true;
      discard(file, path);
    }
  }

  private static void discard(StreamOf file, String path) {
    file.closeQuietly();
    WriteTableFiles.deleteQuietly(path);
  }

  /** An output file that keeps the stream Parquet opened on it, to close it under Parquet. */
  private static final class StreamOf implements OutputFile {
    private final OutputFile out;
    private PositionOutputStream stream;

    StreamOf(OutputFile out) {
      this.out = out;
    }

    @Override
    public PositionOutputStream create(long blockSizeHint) throws IOException {
      stream = out.create(blockSizeHint);
      return stream;
    }

    @Override
    public PositionOutputStream createOrOverwrite(long blockSizeHint) throws IOException {
      stream = out.createOrOverwrite(blockSizeHint);
      return stream;
    }

    @Override
    public boolean supportsBlockSize() {
      return out.supportsBlockSize();
    }

    @Override
    public long defaultBlockSize() {
      return out.defaultBlockSize();
    }

    @Override
    public String getPath() {
      return out.getPath();
    }

    void closeQuietly() {
      if (stream != null) {
        try {
          stream.close();
        } catch (IOException | RuntimeException ignored) {
          // The write's own failure is the one reported.
        }
      }
    }
  }
}
