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
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * One writing run at a time per layer of a lakehouse. A job that writes holds a lock per layer it
 * writes, {@code _lock.bronze}, {@code _lock.silver}, {@code _lock.gold} in the folder of the
 * embedded catalog ({@code <lakehouse>/_catalog/}, or next to the catalog of an {@code s3://}
 * lakehouse): operating-system file locks owned by its JVM, so a run that dies, even by {@code kill
 * -9}, lets go at once and a dead run never blocks the next. A run of the whole pipeline, the users
 * pipeline and {@code compact} hold all three; a stage run alone ({@code bronze}, {@code silver},
 * {@code gold}) holds its own layer's, so the three stages of the four-terminal run write one
 * lakehouse side by side (each appends to its own tables, and to its own {@code stage=} partition
 * of the quarantine; Iceberg keeps every concurrent commit). A run started while its layer is held
 * stops before it touches anything, with one line naming the run that holds it. Readers ({@code
 * query}, {@code validate}, {@code quality}) take no lock.
 *
 * <p>With the AWS Glue catalog there is no local folder to lock: Iceberg's optimistic commits keep
 * each table consistent, and runs on one lakehouse should not overlap.
 */
public final class LakehouseLock implements AutoCloseable {
  /** The layers, in the order their locks are taken. */
  public static final List<String> LAYERS = List.of("bronze", "silver", "gold");

  private final List<FileChannel> channels;
  private final List<FileLock> locks;
  private final Set<String> layers;

  private LakehouseLock(List<FileChannel> channels, List<FileLock> locks, Set<String> layers) {
    this.channels = channels;
    this.locks = locks;
    this.layers = layers;
  }

  /** Whether runs on this lakehouse can be locked (its catalog has a local folder). */
  public static boolean supported(LakeTables.Config config) {
    return !config.glue();
  }

  /**
   * Takes the whole lakehouse (every layer) for run {@code runId}.
   *
   * @throws MedallionException when another run holds a layer of it
   */
  public static LakehouseLock acquire(LakeTables.Config config, String runId) throws IOException {
    return acquire(config, runId, LAYERS);
  }

  /**
   * Takes {@code layers} of the lakehouse for run {@code runId}: all of them, or none.
   *
   * @throws MedallionException when another run holds one of them
   */
  public static LakehouseLock acquire(
      LakeTables.Config config, String runId, Collection<String> layers) throws IOException {
    Set<String> wanted = new LinkedHashSet<>();
    LAYERS.stream().filter(layers::contains).forEach(wanted::add);
    if (!supported(config)) {
      return new LakehouseLock(List.of(), List.of(), wanted);
    }
    Path root = config.localCatalogDir();
    Files.createDirectories(root);
    List<FileChannel> channels = new ArrayList<>();
    List<FileLock> locks = new ArrayList<>();
    LakehouseLock taken = new LakehouseLock(channels, locks, wanted);
    for (String layer : wanted) {
      Path file = root.resolve("_lock." + layer);
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
        taken.close();
        throw new MedallionException(
            "the lakehouse "
                + config.lakehouse()
                + (wanted.size() == LAYERS.size() ? "" : " (its " + layer + " layer)")
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
      channels.add(channel);
      locks.add(lock);
    }
    return taken;
  }

  /** The layers this run holds. */
  public Set<String> layers() {
    return layers;
  }

  /** Whether this run holds every layer (no other writing run can be live). */
  public boolean holdsAll() {
    return layers.size() == LAYERS.size();
  }

  /**
   * Whether no live run can hold {@code layers} besides this one: each is held by this run, or is
   * free (a run that held it has died). Without local locks (Glue), only this run's own layers.
   */
  public boolean holdsOrFree(LakeTables.Config config, Collection<String> others)
      throws IOException {
    for (String layer : others) {
      if (layers.contains(layer)) {
        continue;
      }
      if (!supported(config)) {
        return false;
      }
      Path file = config.localCatalogDir().resolve("_lock." + layer);
      if (!Files.exists(file)) {
        continue;
      }
      try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
        FileLock lock;
        try {
          lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
          return false; // held by a run of this JVM
        }
        if (lock == null) {
          return false;
        }
        lock.release();
      }
    }
    return true;
  }

  @Override
  public void close() throws IOException {
    for (int i = 0; i < locks.size(); i++) {
      channels.get(i).truncate(0);
      locks.get(i).release();
      channels.get(i).close();
    }
    locks.clear();
    channels.clear();
  }
}
