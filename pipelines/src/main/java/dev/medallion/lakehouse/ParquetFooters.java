package dev.medallion.lakehouse;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.stream.Stream;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.mapping.NameMapping;
import org.apache.iceberg.parquet.ParquetUtil;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.DelegatingSeekableInputStream;
import org.apache.parquet.io.SeekableInputStream;

/**
 * Iceberg metrics from a Parquet file's footer, read with a plain Parquet configuration. Iceberg's
 * {@code ParquetUtil.fileMetrics} reads the footer with a new Hadoop {@code Configuration}, which
 * parses Hadoop's XML defaults out of their jars for every file (with the Parquet writers doing the
 * same, 15 % of a 200k-event IoT replay, whose DirectRunner run commits about a thousand files).
 */
final class ParquetFooters {
  private ParquetFooters() {}

  static Metrics metrics(InputFile file, MetricsConfig config, NameMapping mapping) {
    ParquetReadOptions options =
        ParquetReadOptions.builder(new PlainParquetConfiguration()).build();
    try (ParquetFileReader reader = ParquetFileReader.open(new Adapter(file), options)) {
      ParquetMetadata footer = reader.getFooter();
      return ParquetUtil.footerMetrics(footer, Stream.empty(), config, mapping);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the Parquet footer of " + file.location(), e);
    }
  }

  /** An Iceberg file (local, S3) as Parquet's input file. */
  private record Adapter(InputFile file) implements org.apache.parquet.io.InputFile {
    @Override
    public long getLength() {
      return file.getLength();
    }

    @Override
    public SeekableInputStream newStream() {
      org.apache.iceberg.io.SeekableInputStream in = file.newStream();
      return new DelegatingSeekableInputStream(in) {
        @Override
        public long getPos() throws IOException {
          return in.getPos();
        }

        @Override
        public void seek(long newPos) throws IOException {
          in.seek(newPos);
        }
      };
    }
  }
}
