package dev.medallion.pipelines;

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
 * Which raw files Bronze has ingested: one small text file per run under {@code
 * bronze/user_events/_manifest/}, one ingested file per line. A run first writes {@code
 * <runId>.pending}, then ingests, then renames it to {@code <runId>.txt}. A rerun ingests only
 * files no {@code .txt} lists, so nothing is ingested twice and a file that arrives late is still
 * picked up; a {@code .pending} left by a run that died is undone first (the files that run wrote,
 * all named {@code part-<runId>-…}, are deleted) and its files are ingested again.
 */
final class IngestManifest {
  private IngestManifest() {}

  static Set<String> ingested(Lakehouse lake) throws IOException {
    Set<String> files = new TreeSet<>();
    for (MatchResult.Metadata md : manifests(lake, "txt")) {
      files.addAll(lines(md.resourceId()));
    }
    return files;
  }

  /** Deletes what runs that died before finishing Bronze wrote; returns their run ids. */
  static List<String> undoUnfinished(Lakehouse lake, List<String> tables) throws IOException {
    List<String> undone = new ArrayList<>();
    for (MatchResult.Metadata md : manifests(lake, "pending")) {
      String name = md.resourceId().getFilename();
      String runId = name.substring(0, name.length() - ".pending".length());
      List<ResourceId> partial = new ArrayList<>();
      for (String table : tables) {
        MatchResult m =
            FileSystems.match(
                lake.table(table) + "/**part-" + runId + "-*.parquet", EmptyMatchTreatment.ALLOW);
        if (m.status() == MatchResult.Status.OK) {
          m.metadata().forEach(f -> partial.add(f.resourceId()));
        }
      }
      partial.add(md.resourceId());
      FileSystems.delete(partial, MoveOptions.StandardMoveOptions.IGNORE_MISSING_FILES);
      undone.add(runId);
    }
    return undone;
  }

  /** Before a run ingests: the files it is about to ingest. */
  static void begin(Lakehouse lake, String runId, Collection<String> files) throws IOException {
    try (OutputStream o =
        Channels.newOutputStream(
            FileSystems.create(manifest(lake, runId, "pending"), "text/plain"))) {
      for (String f : files) {
        o.write((f + "\n").getBytes(StandardCharsets.UTF_8));
      }
    }
  }

  /** After the run's Bronze succeeded. */
  static void commit(Lakehouse lake, String runId) throws IOException {
    FileSystems.rename(
        List.of(manifest(lake, runId, "pending")), List.of(manifest(lake, runId, "txt")));
  }

  private static ResourceId manifest(Lakehouse lake, String runId, String ext) {
    return FileSystems.matchNewResource(
        lake.table(Lakehouse.MANIFEST_USERS) + "/" + runId + "." + ext, false);
  }

  private static List<MatchResult.Metadata> manifests(Lakehouse lake, String ext)
      throws IOException {
    MatchResult m =
        FileSystems.match(
            lake.table(Lakehouse.MANIFEST_USERS) + "/*." + ext, EmptyMatchTreatment.ALLOW);
    return m.status() == MatchResult.Status.OK ? m.metadata() : List.of();
  }

  private static List<String> lines(ResourceId file) throws IOException {
    try (BufferedReader r =
        new BufferedReader(Channels.newReader(FileSystems.open(file), StandardCharsets.UTF_8))) {
      return r.lines().filter(l -> !l.isBlank()).toList();
    }
  }

  /** The files a pattern (or comma-separated patterns) matches now, as full resource ids. */
  static Set<String> matching(String patterns) throws IOException {
    Set<String> files = new TreeSet<>();
    for (String pattern : patterns.split(",")) {
      MatchResult m = FileSystems.match(pattern.trim(), EmptyMatchTreatment.ALLOW);
      if (m.status() == MatchResult.Status.OK) {
        m.metadata().forEach(md -> files.add(md.resourceId().toString()));
      }
    }
    return files;
  }
}
