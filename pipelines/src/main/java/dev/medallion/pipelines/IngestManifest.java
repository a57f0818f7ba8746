package dev.medallion.pipelines;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Set;
import java.util.TreeSet;
import org.apache.beam.sdk.io.FileSystems;
import org.apache.beam.sdk.io.fs.EmptyMatchTreatment;
import org.apache.beam.sdk.io.fs.MatchResult;
import org.apache.beam.sdk.io.fs.ResourceId;

/**
 * Which raw files Bronze has ingested: one small text file per run under {@code
 * bronze/user_events/_manifest/}, one ingested file per line, written only after the run's Bronze
 * succeeded. A rerun ingests only files that no manifest lists, so nothing is ingested twice and a
 * file that arrives late is still picked up.
 */
final class IngestManifest {
  private IngestManifest() {}

  static Set<String> ingested(Lakehouse lake) throws IOException {
    Set<String> files = new TreeSet<>();
    MatchResult m =
        FileSystems.match(
            lake.table(Lakehouse.MANIFEST_USERS) + "/*.txt", EmptyMatchTreatment.ALLOW);
    if (m.status() != MatchResult.Status.OK) {
      return files;
    }
    for (MatchResult.Metadata md : m.metadata()) {
      try (BufferedReader r =
          new BufferedReader(
              Channels.newReader(FileSystems.open(md.resourceId()), StandardCharsets.UTF_8))) {
        r.lines().filter(l -> !l.isBlank()).forEach(files::add);
      }
    }
    return files;
  }

  static void record(Lakehouse lake, String runId, Collection<String> files) throws IOException {
    ResourceId out =
        FileSystems.matchNewResource(
            lake.table(Lakehouse.MANIFEST_USERS) + "/" + runId + ".txt", false);
    try (OutputStream o = Channels.newOutputStream(FileSystems.create(out, "text/plain"))) {
      for (String f : files) {
        o.write((f + "\n").getBytes(StandardCharsets.UTF_8));
      }
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
