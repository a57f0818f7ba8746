package dev.medallion.lakehouse;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.apache.beam.sdk.io.FileSystems;
import org.apache.beam.sdk.io.fs.EmptyMatchTreatment;
import org.apache.beam.sdk.io.fs.MatchResult;

/**
 * A run id names every file a run writes ({@code part-<runId>-…}) and its manifest, so a run id
 * used twice on one lakehouse would mix two runs (and undoing one would delete the other's files).
 * Each run claims its id with a marker under {@code _runs/}; an id that was already used there, or
 * that names files or a manifest of an older lakehouse, is refused with a message saying what to
 * do.
 */
public final class RunIds {
  private RunIds() {}

  public static void claim(Lakehouse lake, String runId) throws IOException {
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
    try (OutputStream o =
        Channels.newOutputStream(
            FileSystems.create(
                FileSystems.matchNewResource(lake.table(Lakehouse.RUNS) + "/" + runId, false),
                "text/plain"))) {
      o.write(("started " + Instant.now() + "\n").getBytes(StandardCharsets.UTF_8));
    }
  }

  private static boolean used(Lakehouse lake, String runId) throws IOException {
    if (exists(lake.table(Lakehouse.RUNS) + "/" + runId)
        || IngestManifest.hasRun(lake.table(Lakehouse.MANIFEST_USERS), runId)
        || IngestManifest.hasRun(lake.table(Lakehouse.MANIFEST_IOT), runId)) {
      return true;
    }
    for (String layer : java.util.List.of("bronze", "silver", "gold", "quarantine")) {
      if (exists(lake.table(layer) + "/**part-" + runId + "-*.parquet")) {
        return true;
      }
    }
    return false;
  }

  private static boolean exists(String pattern) throws IOException {
    MatchResult m = FileSystems.match(pattern, EmptyMatchTreatment.ALLOW);
    return m.status() == MatchResult.Status.OK && !m.metadata().isEmpty();
  }
}
