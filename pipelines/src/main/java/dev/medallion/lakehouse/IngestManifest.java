package dev.medallion.lakehouse;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.beam.sdk.io.FileSystems;
import org.apache.beam.sdk.io.fs.EmptyMatchTreatment;
import org.apache.beam.sdk.io.fs.MatchResult;
import org.apache.beam.sdk.io.fs.MoveOptions;
import org.apache.beam.sdk.io.fs.ResourceId;

/**
 * Which raw files Bronze has ingested: one small text file per run under the Bronze table's {@code
 * _manifest/} folder ({@code bronze/user_events/_manifest/}, {@code bronze/iot_events/_manifest/}
 * for replays), one ingested file per line. A run first writes {@code <runId>.pending}, then
 * ingests, then renames it to {@code <runId>.txt}. A rerun ingests only files no {@code .txt}
 * lists, so nothing is ingested twice and a file that arrives late is still picked up; a {@code
 * .pending} left by a run that died is undone first (the files that run wrote, all named {@code
 * part-<runId>-…}, are deleted) and its files are ingested again.
 */
public final class IngestManifest {
  private IngestManifest() {}

  public static Set<String> ingested(String manifests) throws IOException {
    Set<String> files = new TreeSet<>();
    for (MatchResult.Metadata md : manifests(manifests, "txt")) {
      files.addAll(lines(md.resourceId()));
    }
    return files;
  }

  /**
   * What a run ingests: the files {@code input} matches, less those an earlier run ingested. {@code
   * undone} lists the runs that died before finishing, undone first (their files in {@code tables}
   * deleted) so that their input counts as not ingested.
   */
  public record Plan(List<String> fresh, int matched, List<String> undone) {}

  public static Plan plan(Lakehouse lake, String manifests, List<String> tables, String input)
      throws IOException {
    Set<String> matching = matching(input);
    if (matching.isEmpty()) {
      throw new IllegalArgumentException("--input matches no file: " + input);
    }
    List<String> undone = undoUnfinished(lake, manifests, tables);
    Set<String> fresh = new TreeSet<>(matching);
    fresh.removeAll(ingested(manifests));
    return new Plan(new ArrayList<>(fresh), matching.size(), undone);
  }

  /**
   * Deletes what runs that died before finishing Bronze wrote; returns their run ids. A run whose
   * {@code .txt} exists is committed even when its {@code .pending} is still there: on S3 the
   * commit's rename is a copy (whole or nothing) and then a delete, and a run killed between the
   * two did finish. Only its stale {@code .pending} is removed.
   */
  public static List<String> undoUnfinished(Lakehouse lake, String manifests, List<String> tables)
      throws IOException {
    List<String> undone = new ArrayList<>();
    for (MatchResult.Metadata md : manifests(manifests, "pending")) {
      String name = md.resourceId().getFilename();
      String runId = name.substring(0, name.length() - ".pending".length());
      if (exists(manifest(manifests, runId, "txt"))) {
        FileSystems.delete(
            List.of(md.resourceId()), MoveOptions.StandardMoveOptions.IGNORE_MISSING_FILES);
        continue;
      }
      undo(lake, manifests, runId, tables);
      undone.add(runId);
    }
    return undone;
  }

  private static boolean exists(ResourceId file) throws IOException {
    MatchResult m = FileSystems.match(file.toString(), EmptyMatchTreatment.ALLOW);
    return m.status() == MatchResult.Status.OK && !m.metadata().isEmpty();
  }

  /** Deletes the files run {@code runId} wrote to {@code tables}, then its pending manifest. */
  public static void undo(Lakehouse lake, String manifests, String runId, List<String> tables)
      throws IOException {
    List<ResourceId> partial = new ArrayList<>();
    for (String table : tables) {
      MatchResult m =
          FileSystems.match(
              lake.table(table) + "/**part-" + runId + "-*.parquet", EmptyMatchTreatment.ALLOW);
      if (m.status() == MatchResult.Status.OK) {
        m.metadata().forEach(f -> partial.add(f.resourceId()));
      }
    }
    partial.add(manifest(manifests, runId, "pending"));
    FileSystems.delete(partial, MoveOptions.StandardMoveOptions.IGNORE_MISSING_FILES);
  }

  /** Before a run ingests: the files it is about to ingest. */
  public static void begin(String manifests, String runId, Collection<String> files)
      throws IOException {
    try (OutputStream o =
        Channels.newOutputStream(
            FileSystems.create(manifest(manifests, runId, "pending"), "text/plain"))) {
      for (String f : files) {
        o.write((f + "\n").getBytes(StandardCharsets.UTF_8));
      }
    }
  }

  /** After the run's Bronze succeeded. */
  public static void commit(String manifests, String runId) throws IOException {
    FileSystems.rename(
        List.of(manifest(manifests, runId, "pending")), List.of(manifest(manifests, runId, "txt")));
  }

  private static ResourceId manifest(String manifests, String runId, String ext) {
    return FileSystems.matchNewResource(manifests + "/" + runId + "." + ext, false);
  }

  /** Whether a run of this id has a manifest here, finished or not. */
  public static boolean hasRun(String manifests, String runId) throws IOException {
    for (String ext : List.of("txt", "pending")) {
      MatchResult m =
          FileSystems.match(manifests + "/" + runId + "." + ext, EmptyMatchTreatment.ALLOW);
      if (m.status() == MatchResult.Status.OK && !m.metadata().isEmpty()) {
        return true;
      }
    }
    return false;
  }

  private static List<MatchResult.Metadata> manifests(String manifests, String ext)
      throws IOException {
    MatchResult m = FileSystems.match(manifests + "/*." + ext, EmptyMatchTreatment.ALLOW);
    return m.status() == MatchResult.Status.OK ? m.metadata() : List.of();
  }

  private static List<String> lines(ResourceId file) throws IOException {
    try (BufferedReader r =
        new BufferedReader(Channels.newReader(FileSystems.open(file), StandardCharsets.UTF_8))) {
      return r.lines().filter(l -> !l.isBlank()).toList();
    }
  }

  /**
   * The files a pattern (or comma-separated patterns) matches now, as full resource ids. A folder
   * is not a file: a pattern that names only folders is an error that says how to name the files in
   * it, and folders a wildcard matches are passed over.
   */
  public static Set<String> matching(String patterns) throws IOException {
    Set<String> files = new TreeSet<>();
    for (String raw : patterns.split(",")) {
      String pattern = raw.trim();
      if (pattern.isEmpty()) {
        continue;
      }
      MatchResult m = FileSystems.match(pattern, EmptyMatchTreatment.ALLOW);
      if (m.status() != MatchResult.Status.OK) {
        continue;
      }
      int folders = 0;
      for (MatchResult.Metadata md : m.metadata()) {
        if (isLocalFolder(md.resourceId())) {
          folders++;
        } else {
          files.add(md.resourceId().toString());
        }
      }
      if (folders > 0 && folders == m.metadata().size()) {
        throw new IllegalArgumentException(
            "--input "
                + pattern
                + " is a folder, not a file: name the files in it, e.g. --input='"
                + pattern.replaceAll("/$", "")
                + "/*.ndjson'");
      }
    }
    return files;
  }

  private static boolean isLocalFolder(ResourceId id) {
    if (!"file".equals(id.getScheme())) {
      return false;
    }
    try {
      return java.nio.file.Files.isDirectory(java.nio.file.Path.of(id.toString()));
    } catch (java.nio.file.InvalidPathException e) {
      return false;
    }
  }
}
