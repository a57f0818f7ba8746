package dev.medallion.lakehouse;

import dev.medallion.core.MedallionException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * One writing run at a time per lakehouse. A job that writes holds {@code _lock} in the folder of
 * the embedded catalog ({@code <lakehouse>/_catalog/_lock}, or next to the catalog of an {@code
 * s3://} lakehouse), an operating-system file lock owned by its JVM: a run that dies, even by
 * {@code kill -9}, lets go at once, so a dead run never blocks the next. A second run started
 * meanwhile stops before it touches anything, with one line naming the run that holds the
 * lakehouse, instead of undoing or overwriting a run that is still going. Readers ({@code query},
 * {@code validate}, {@code quality}) take no lock.
 *
 * <p>With the AWS Glue catalog there is no local folder to lock: Iceberg's optimistic commits keep
 * each table consistent, and runs on one lakehouse should not overlap.
 */
public final class LakehouseLock implements AutoCloseable {
  private final @Nullable FileChannel channel;
  private final @Nullable FileLock lock;

  private LakehouseLock(@Nullable FileChannel channel, @Nullable FileLock lock) {
    this.channel = channel;
    this.lock = lock;
  }

  /** Whether runs on this lakehouse can be locked (its catalog has a local folder). */
  public static boolean supported(LakeTables.Config config) {
    return !config.glue();
  }

  /**
   * Takes the lakehouse for run {@code runId}.
   *
   * @throws MedallionException when another run holds it
   */
  public static LakehouseLock acquire(LakeTables.Config config, String runId) throws IOException {
    if (!supported(config)) {
      return new LakehouseLock(null, null);
    }
    String lakehouse = config.lakehouse();
    Path root = config.localCatalogDir();
    Files.createDirectories(root);
    Path file = root.resolve("_lock");
    FileChannel channel =
        FileChannel.open(
            file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
    FileLock lock;
    try {
      lock = channel.tryLock();
    } catch (OverlappingFileLockException e) {
      lock = null; // held by this JVM
    }
    if (lock == null) {
      String holder = Files.readString(file, StandardCharsets.UTF_8).strip();
      channel.close();
      throw new MedallionException(
          "the lakehouse "
              + lakehouse
              + " is being written by another run"
              + (holder.isEmpty() ? "" : " (" + holder + ")")
              + "; nothing was changed: run again when it has ended");
    }
    channel.truncate(0);
    channel.write(
        ByteBuffer.wrap(
            ("run " + runId + ", pid " + ProcessHandle.current().pid())
                .getBytes(StandardCharsets.UTF_8)),
        0);
    channel.force(false);
    return new LakehouseLock(channel, lock);
  }

  @Override
  public void close() throws IOException {
    if (lock != null && channel != null) {
      channel.truncate(0);
      lock.release();
      channel.close();
    }
  }
}
