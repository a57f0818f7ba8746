package dev.medallion.lakehouse;

import dev.medallion.core.Failures;
import dev.medallion.core.MedallionException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.io.FileSystems;
import org.apache.beam.sdk.io.fs.EmptyMatchTreatment;
import org.apache.beam.sdk.io.fs.MatchResult;
import org.apache.beam.sdk.io.fs.MoveOptions;
import org.apache.beam.sdk.io.fs.ResourceId;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * A run id names every file a run writes ({@code part-<runId>-…}) and its commits, so a run id used
 * twice on one lakehouse would mix two runs. Each run claims its id with a marker under {@code
 * _runs/} ({@code started …}, then {@code ended …}); an id that was already used there, or that
 * names files of an older lakehouse, is refused with a message saying what to do. A marker still
 * {@code started} when no run is live names a run that was killed: its uncommitted files are
 * deleted by {@link #discardUnfinished}. A run that failed deletes its own ({@link #abandon}) and
 * is marked {@code failed}; the next run deletes what was written after that.
 */
public final class RunIds {
  private RunIds() {}

  public static void claim(Lakehouse lake, String runId) throws IOException {
    claim(lake, runId, LakehouseLock.LAYERS);
  }

  /** Claims {@code runId} for a run that writes {@code layers} (its marker names them). */
  public static void claim(Lakehouse lake, String runId, java.util.Collection<String> layers)
      throws IOException {
    if (!runId.matches("[A-Za-z0-9][A-Za-z0-9._-]*")) {
      throw new IllegalArgumentException(
          "--runId may hold only letters, digits, '.', '_' and '-', got '" + runId + "'");
    }
    if (used(lake, runId)) {
      throw new IllegalArgumentException(
          "run id '"
              + runId
              + "' was already used in "
              + lake.root()
              + "; a run id names the files a run writes, so it must be new: pass another"
              + " --runId, or leave it out for a time-based one");
    }
    try {
      write(
          lake,
          runId,
          "started "
              + Instant.now()
              + (layers.containsAll(LakehouseLock.LAYERS)
                  ? ""
                  : " layers " + String.join(",", layers))
              + " on "
              + host()
              + "\n");
    } catch (IOException | RuntimeException e) {
      // The run's first write to the lakehouse: say where it failed, in one line.
      throw new MedallionException(
          "cannot write to the lakehouse " + lake.root() + ": " + Failures.oneLine(e), e);
    }
  }

  private static boolean used(Lakehouse lake, String runId) throws IOException {
    if (exists(lake.table(Lakehouse.RUNS) + "/" + runId)) {
      return true;
    }
    for (String layer : java.util.List.of("bronze", "silver", "gold", "quarantine")) {
      if (exists(lake.table(layer) + "/**part-" + runId + "-*.parquet")) {
        return true;
      }
    }
    return false;
  }

  /** Marks a run ended: everything it wrote is committed (or was deleted). */
  public static void end(Lakehouse lake, String runId) throws IOException {
    write(lake, runId, "ended " + Instant.now() + "\n");
  }

  /**
   * After a failed run: deletes the files it wrote and did not commit, and marks it {@code failed}.
   * The next run deletes once more what such a run's work finished after this (a task on a
   * cluster's executor that was still writing), in {@link #discardUnfinished}.
   */
  public static void abandon(Lakehouse lake, LakeTables tables, String runId) throws IOException {
    discard(tables, runId);
    write(lake, runId, "failed " + Instant.now() + " on " + host() + "\n");
  }

  private static void write(Lakehouse lake, String runId, String text) throws IOException {
    try (OutputStream o =
        Channels.newOutputStream(
            FileSystems.create(
                FileSystems.matchNewResource(lake.table(Lakehouse.RUNS) + "/" + runId, false),
                "text/plain"))) {
      o.write(text.getBytes(StandardCharsets.UTF_8));
    }
  }

  /**
   * Deletes the files that runs which never ended (killed, or failed) wrote and did not commit, so
   * that no uncommitted file stays behind; returns those runs. Call it only while holding the
   * {@link LakehouseLock} (no other run is live then), after {@link LakeTables#rollForward}.
   */
  public static List<String> discardUnfinished(Lakehouse lake, LakeTables tables, String current)
      throws IOException {
    return discardUnfinished(lake, tables, current, null);
  }

  /**
   * {@link #discardUnfinished(Lakehouse, LakeTables, String)} for a run holding {@code lock}: a run
   * whose layers are held by another live run (a stage running beside this one) is left alone.
   */
  public static List<String> discardUnfinished(
      Lakehouse lake, LakeTables tables, String current, @Nullable LakehouseLock lock)
      throws IOException {
    List<String> discarded = new ArrayList<>();
    MatchResult m;
    try {
      m = FileSystems.match(lake.table(Lakehouse.RUNS) + "/*", EmptyMatchTreatment.ALLOW);
    } catch (IOException | RuntimeException e) {
      throw new MedallionException(
          "cannot write to the lakehouse " + lake.root() + ": " + Failures.oneLine(e), e);
    }
    if (m.status() != MatchResult.Status.OK) {
      return discarded;
    }
    for (MatchResult.Metadata md : m.metadata()) {
      String runId = md.resourceId().getFilename();
      if (runId == null || runId.equals(current)) {
        continue;
      }
      String marker = read(md);
      if (marker.startsWith("failed")) {
        // Its files were deleted when it failed; what its work finished later goes now.
        if (discard(tables, runId) > 0) {
          discarded.add(runId);
        }
        end(lake, runId);
        continue;
      }
      if (!marker.startsWith("started")) {
        continue;
      }
      if (lock != null && !lock.holdsOrFree(tables.config(), layersOf(marker))) {
        continue; // a stage that is running now, beside this one
      }
      if (marker.contains(" on ") && !marker.strip().endsWith(" on " + host())) {
        // Started on another machine: this one's lock cannot prove it dead, so its files stay.
        System.err.println(
            "run " + runId + " (" + marker.strip() + ") did not end; its files are left alone");
        continue;
      }
      discard(tables, runId);
      end(lake, runId);
      discarded.add(runId);
    }
    discarded.sort(null);
    return discarded;
  }

  /** The layers a run's marker names ({@code layers bronze}); all of them when it names none. */
  static List<String> layersOf(String marker) {
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile(" layers ([a-z,]+)").matcher(marker);
    return m.find() ? List.of(m.group(1).split(",")) : LakehouseLock.LAYERS;
  }

  /** Deletes the files run {@code runId} wrote that no commit of it holds; returns how many. */
  public static int discard(LakeTables tables, String runId) throws IOException {
    List<ResourceId> orphans = new ArrayList<>();
    for (String f : tables.uncommittedFilesOf(runId)) {
      orphans.add(FileSystems.matchNewResource(f, false));
    }
    FileSystems.delete(orphans, MoveOptions.StandardMoveOptions.IGNORE_MISSING_FILES);
    return orphans.size();
  }

  private static String read(MatchResult.Metadata marker) throws IOException {
    try (var in = Channels.newInputStream(FileSystems.open(marker.resourceId()))) {
      return new String(in.readNBytes(512), StandardCharsets.UTF_8);
    }
  }

  /** This machine's name, as run markers record it. */
  static String host() {
    try {
      return java.net.InetAddress.getLocalHost().getHostName();
    } catch (java.net.UnknownHostException e) {
      return "unknown-host";
    }
  }

  private static boolean exists(String pattern) throws IOException {
    MatchResult m = FileSystems.match(pattern, EmptyMatchTreatment.ALLOW);
    return m.status() == MatchResult.Status.OK && !m.metadata().isEmpty();
  }
}
