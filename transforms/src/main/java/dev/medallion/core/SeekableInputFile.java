package dev.medallion.core;

import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import org.apache.beam.sdk.io.FileIO;
import org.apache.parquet.io.DelegatingSeekableInputStream;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;

/** A file matched by Beam (local, {@code s3://}, …) as Parquet's {@link InputFile}. */
final class SeekableInputFile implements InputFile {
  private final FileIO.ReadableFile file;

  SeekableInputFile(FileIO.ReadableFile file) {
    this.file = file;
  }

  @Override
  public long getLength() {
    return file.getMetadata().sizeBytes();
  }

  @Override
  public SeekableInputStream newStream() throws IOException {
    SeekableByteChannel channel = file.openSeekable();
    return new DelegatingSeekableInputStream(Channels.newInputStream(channel)) {
      @Override
      public long getPos() throws IOException {
        return channel.position();
      }

      @Override
      public void seek(long newPos) throws IOException {
        channel.position(newPos);
      }
    };
  }
}
