package dev.medallion.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.transforms.SerializableFunctions;
import org.apache.beam.sdk.values.Row;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table file given up is not finished by Parquet (no row group, no footer: its stream is closed
 * under the writer and the file deleted), whether it failed or not; a file whose close failed (a
 * full disk) is deleted and not written again; a finished file stays.
 */
class TableFileTest {
  private static final Schema SCHEMA =
      Schema.builder().addStringField("user_id").addInt64Field("n").build();
  private static final ParquetRecords RECORDS = ParquetRecords.of(SCHEMA);

  @TempDir Path dir;

  @Test
  void aFileGivenUpIsClosedUnderParquetAndDeleted() throws Exception {
    Path path = dir.resolve("part-a.parquet");
    Disk disk = new Disk(path, Long.MAX_VALUE);
    TableFile<Row> file = withRows(disk);
    long header = disk.written;

    file.abandon();
    file.close();

    assertThat(disk.written).as("nothing written after the header").isEqualTo(header);
    assertThat(disk.closed).isTrue();
    assertThat(path).doesNotExist();
  }

  @Test
  void aFileWhoseCloseFailedIsDeletedAndNotWrittenAgain() throws Exception {
    Path path = dir.resolve("part-b.parquet");
    Disk disk = new Disk(path, 64);
    TableFile<Row> file = withRows(disk);

    assertThatThrownBy(file::close).isInstanceOf(IOException.class).hasMessage("disk full");
    long attempts = disk.attempts;
    file.abandon();
    file.close();

    assertThat(disk.attempts).as("no write after the failed close").isEqualTo(attempts);
    assertThat(disk.closed).isTrue();
    assertThat(path).doesNotExist();
  }

  @Test
  void aFinishedFileStaysWhenItsFailedBundleGivesItUp() throws Exception {
    Path path = dir.resolve("part-c.parquet");
    Disk disk = new Disk(path, Long.MAX_VALUE);
    TableFile<Row> file = withRows(disk);
    file.close();
    long size = Files.size(path);

    file.abandon();

    assertThat(path).exists();
    assertThat(Files.size(path)).isEqualTo(size).isEqualTo(disk.written);
    assertThat(size).as("a row group and a footer").isGreaterThan(1000);
  }

  /** A new file written through {@code disk}, with 1,000 rows in its row group (none flushed). */
  private static TableFile<Row> withRows(Disk disk) throws IOException {
    TableFile<Row> file = TableFile.open(disk, RECORDS, SerializableFunctions.identity());
    for (int i = 0; i < 1000; i++) {
      file.write(Row.withSchema(SCHEMA).addValues("user-" + i, (long) i).build());
    }
    return file;
  }

  /** A local file that takes {@code capacity} bytes and then fails every write, as a full disk. */
  private static final class Disk implements OutputFile {
    private final Path path;
    private final long capacity;
    long written;
    long attempts;
    boolean closed;

    Disk(Path path, long capacity) {
      this.path = path;
      this.capacity = capacity;
    }

    @Override
    public PositionOutputStream create(long blockSizeHint) throws IOException {
      java.io.OutputStream out = Files.newOutputStream(path);
      return new PositionOutputStream() {
        @Override
        public long getPos() {
          return written;
        }

        @Override
        public void write(int b) throws IOException {
          write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
          attempts++;
          if (written + len > capacity) {
            throw new IOException("disk full");
          }
          out.write(b, off, len);
          written += len;
        }

        @Override
        public void close() throws IOException {
          closed = true;
          out.close();
        }
      };
    }

    @Override
    public PositionOutputStream createOrOverwrite(long blockSizeHint) throws IOException {
      return create(blockSizeHint);
    }

    @Override
    public boolean supportsBlockSize() {
      return false;
    }

    @Override
    public long defaultBlockSize() {
      return 0;
    }

    @Override
    public String getPath() {
      return path.toString();
    }
  }
}
