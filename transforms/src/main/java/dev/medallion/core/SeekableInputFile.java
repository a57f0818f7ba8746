package dev.medallion.core;

import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import org.apache.beam.sdk.io.FileIO;
import org.apache.beam.sdk.io.FileSystems;
import org.apache.beam.sdk.io.fs.MatchResult;
import org.apache.parquet.io.DelegatingSeekableInputStream;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;

/** A file of Beam's file systems (local, {@code s3://}, …) as Parquet's {@link InputFile}. */
final class SeekableInputFile implements InputFile {
  /** Opens the file for reading at any position. */
  interface Opener {
    SeekableByteChannel open() throws IOException;
  }

  private final long length;
  private final Opener opener;

  private SeekableInputFile(long length, Opener opener) {
    this.length = length;
    this.opener = opener;
  }

  /** A file Beam matched for a pipeline. */
  SeekableInputFile(FileIO.ReadableFile file) {
    this(file.getMetadata().sizeBytes(), file::openSeekable);
  }

  /** A file by its path. */
  static SeekableInputFile of(String path) throws IOException {
    MatchResult.Metadata md = FileSystems.matchSingleFileSpec(path);
    return new SeekableInputFile(
        md.sizeBytes(), () -> (SeekableByteChannel) FileSystems.open(md.resourceId()));
  }

  @Override
  public long getLength() {
    return length;
  }

  @Override
  public SeekableInputStream newStream() throws IOException {
    SeekableByteChannel channel = opener.open();
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
