package dev.medallion.lakehouse;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.util.List;
import org.apache.beam.sdk.io.FileSystems;
import org.apache.beam.sdk.io.fs.EmptyMatchTreatment;
import org.apache.beam.sdk.io.fs.MatchResult;
import org.apache.beam.sdk.io.fs.MoveOptions;
import org.apache.beam.sdk.io.fs.ResourceId;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * Iceberg's file access through Beam's file systems, so that the tables' metadata goes wherever the
 * pipelines' data files go (a local folder, {@code s3://} with the same flags) and no second
 * storage configuration is needed.
 */
public class BeamFileIO implements FileIO {
  @Override
  public InputFile newInputFile(String path) {
    return new In(path, -1);
  }

  @Override
  public InputFile newInputFile(String path, long length) {
    return new In(path, length);
  }

  @Override
  public OutputFile newOutputFile(String path) {
    return new Out(path);
  }

  @Override
  public void deleteFile(String path) {
    try {
      FileSystems.delete(
          List.of(resource(path)), MoveOptions.StandardMoveOptions.IGNORE_MISSING_FILES);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + path, e);
    }
  }

  static ResourceId resource(String path) {
    return FileSystems.matchNewResource(path, false);
  }

  static MatchResult.Metadata metadata(String path) throws IOException {
    MatchResult m = FileSystems.match(path, EmptyMatchTreatment.ALLOW);
    if (m.status() != MatchResult.Status.OK || m.metadata().isEmpty()) {
      throw new FileNotFoundException(path);
    }
    return m.metadata().get(0);
  }

  private record In(String path, long knownLength) implements InputFile {
    @Override
    public long getLength() {
      if (knownLength >= 0) {
        return knownLength;
      }
      try {
        return metadata(path).sizeBytes();
      } catch (FileNotFoundException e) {
        throw new NotFoundException("file does not exist: %s", path);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read the size of " + path, e);
      }
    }

    @Override
    public SeekableInputStream newStream() {
      try {
        return new SeekableChannelStream((SeekableByteChannel) FileSystems.open(resource(path)));
      } catch (FileNotFoundException | java.nio.file.NoSuchFileException e) {
        throw new NotFoundException("file does not exist: %s", path);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot open " + path, e);
      }
    }

    @Override
    public String location() {
      return path;
    }

    @Override
    public boolean exists() {
      try {
        metadata(path);
        return true;
      } catch (FileNotFoundException e) {
        return false;
      } catch (IOException e) {
        throw new UncheckedIOException("cannot look up " + path, e);
      }
    }
  }

  private record Out(String path) implements OutputFile {
    @Override
    public PositionOutputStream create() {
      if (toInputFile().exists()) {
        throw new AlreadyExistsException("file already exists: %s", path);
      }
      return createOrOverwrite();
    }

    @Override
    public PositionOutputStream createOrOverwrite() {
      try {
        return new CountingStream(FileSystems.create(resource(path), "application/octet-stream"));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot write " + path, e);
      }
    }

    @Override
    public String location() {
      return path;
    }

    @Override
    public InputFile toInputFile() {
      return new In(path, -1);
    }
  }

  private static final class SeekableChannelStream extends SeekableInputStream {
    private final SeekableByteChannel channel;
    private final byte[] one = new byte[1];

    SeekableChannelStream(SeekableByteChannel channel) {
      this.channel = channel;
    }

    @Override
    public long getPos() throws IOException {
      return channel.position();
    }

    @Override
    public void seek(long newPos) throws IOException {
      channel.position(newPos);
    }

    @Override
    public int read() throws IOException {
      int n = read(one, 0, 1);
      return n <= 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (len == 0) {
        return 0;
      }
      int n;
      do {
        n = channel.read(ByteBuffer.wrap(b, off, len));
      } while (n == 0);
      return n;
    }

    @Override
    public void close() throws IOException {
      channel.close();
    }
  }

  private static final class CountingStream extends PositionOutputStream {
    private final OutputStream out;
    private long pos;
    private boolean closed;

    CountingStream(WritableByteChannel channel) {
      this.out = Channels.newOutputStream(channel);
    }

    @Override
    public long getPos() {
      return pos;
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
      pos++;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
      pos += len;
    }

    @Override
    public void flush() throws IOException {
      out.flush();
    }

    /** Once: Iceberg closes some streams twice, and a second close of an S3 upload fails. */
    @Override
    public void close() throws IOException {
      if (!closed) {
        closed = true;
        out.close();
      }
    }
  }
}
