package dev.medallion.lakehouse;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.beam.sdk.io.FileSystems;
import org.apache.beam.sdk.io.fs.EmptyMatchTreatment;
import org.apache.beam.sdk.io.fs.MatchResult;
import org.apache.beam.sdk.io.fs.MoveOptions;
import org.apache.beam.sdk.io.fs.ResourceId;

/**
 * Publishes a table a batch job wrote to a staging folder: replacing the whole table (a full
 * refresh, such as Silver rebuilt from all of Bronze) or only the partitions the job wrote (a
 * snapshot partition of Gold). Works on every Beam file system, {@code s3://} included.
 */
public final class TablePublisher {
  private TablePublisher() {}

  /** Replaces every Parquet file of {@code target} with those under {@code staging}. */
  public static int replaceTable(String staging, String target) throws IOException {
    delete(parquetFiles(target));
    CrashPoints.reached(CrashPoints.REPLACE_DELETED_OLD);
    return move(staging, target);
  }

  /** Replaces the partitions (folders) that {@code staging} has files in, and only those. */
  public static int replacePartitions(String staging, String target) throws IOException {
    Set<String> partitions = new TreeSet<>();
    for (String f : parquetFiles(staging)) {
      String rel = f.substring(staging.length() + 1);
      partitions.add(rel.contains("/") ? rel.substring(0, rel.lastIndexOf('/')) : "");
    }
    List<String> old = new ArrayList<>();
    for (String f : parquetFiles(target)) {
      String rel = f.substring(target.length() + 1);
      if (partitions.contains(rel.contains("/") ? rel.substring(0, rel.lastIndexOf('/')) : "")) {
        old.add(f);
      }
    }
    delete(old);
    return move(staging, target);
  }

  /** Deletes what a failed job staged, so that nothing half-written stays behind. */
  public static void discard(String staging) throws IOException {
    delete(parquetFiles(staging));
    cleanUp(staging);
  }

  /**
   * Deletes the staging folders of runs that were killed before they published or discarded them.
   * Call it only while holding the {@link LakehouseLock}: then no other run is live. Local
   * lakehouses only (an {@code s3://} one has no lock to prove a run dead).
   */
  public static List<String> discardAbandonedStaging(Lakehouse lake) throws IOException {
    List<String> discarded = new ArrayList<>();
    if (!LakehouseLock.supported(lake.root())) {
      return discarded;
    }
    java.nio.file.Path staging = java.nio.file.Path.of(lake.table(Lakehouse.STAGING));
    if (!java.nio.file.Files.isDirectory(staging)) {
      return discarded;
    }
    try (var runs = java.nio.file.Files.list(staging)) {
      for (java.nio.file.Path run : runs.sorted().toList()) {
        cleanUp(run.toString());
        discarded.add(run.getFileName().toString());
      }
    }
    cleanUp(staging.toString());
    return discarded;
  }

  /** Removes what is left of a local staging folder (object stores have no empty folders). */
  public static void cleanUp(String staging) throws IOException {
    java.nio.file.Path dir;
    try {
      dir = java.nio.file.Path.of(staging);
    } catch (java.nio.file.InvalidPathException e) {
      return;
    }
    if (staging.contains("://") || !java.nio.file.Files.isDirectory(dir)) {
      return;
    }
    try (var paths = java.nio.file.Files.walk(dir)) {
      for (java.nio.file.Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        java.nio.file.Files.delete(p);
      }
    }
  }

  private static int move(String staging, String target) throws IOException {
    List<ResourceId> from = new ArrayList<>();
    List<ResourceId> to = new ArrayList<>();
    for (String f : parquetFiles(staging)) {
      from.add(FileSystems.matchNewResource(f, false));
      to.add(FileSystems.matchNewResource(target + f.substring(staging.length()), false));
    }
    FileSystems.rename(from, to, MoveOptions.StandardMoveOptions.IGNORE_MISSING_FILES);
    return from.size();
  }

  private static void delete(List<String> files) throws IOException {
    List<ResourceId> ids = new ArrayList<>();
    for (String f : files) {
      ids.add(FileSystems.matchNewResource(f, false));
    }
    FileSystems.delete(ids, MoveOptions.StandardMoveOptions.IGNORE_MISSING_FILES);
  }

  /** Every Parquet file below a folder, as full paths that start with the folder's own spelling. */
  public static List<String> parquetFiles(String root) throws IOException {
    MatchResult m = FileSystems.match(root + "/**.parquet", EmptyMatchTreatment.ALLOW);
    List<String> out = new ArrayList<>();
    if (m.status() != MatchResult.Status.OK) {
      return out;
    }
    String prefix = normalizedPrefix(root);
    for (MatchResult.Metadata md : m.metadata()) {
      String path = md.resourceId().toString();
      out.add(path.startsWith(prefix) ? root + path.substring(prefix.length()) : path);
    }
    out.sort(null);
    return out;
  }

  private static String normalizedPrefix(String root) {
    return FileSystems.matchNewResource(root, true).toString().replaceAll("/$", "");
  }
}
