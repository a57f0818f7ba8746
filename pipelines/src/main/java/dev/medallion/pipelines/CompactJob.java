package dev.medallion.pipelines;

import dev.medallion.core.MedallionException;
import dev.medallion.core.ReadTable;
import dev.medallion.core.WriteTable;
import dev.medallion.core.WriteTableFiles;
import dev.medallion.lakehouse.Catalog;
import dev.medallion.lakehouse.LakeTables;
import dev.medallion.lakehouse.Lakehouse;
import dev.medallion.lakehouse.LakehouseLock;
import dev.medallion.lakehouse.RunIds;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.Values;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.apache.beam.sdk.values.Row;
import org.apache.iceberg.DataFile;

/**
 * {@code compact}: merges the small files of a table's partitions (a stream writes a few per table,
 * partition and flush) into one file per partition. One Beam job reads each such partition's
 * committed files and writes them again as one; then each table's change is one Iceberg rewrite
 * commit, which readers see whole and which checks that the rows it removes and adds are as many.
 * The old files stay on disk for the older snapshots that still name them.
 */
public final class CompactJob {
  private CompactJob() {}

  /** What compaction did to one table. */
  public record Compacted(String table, int partitions, int filesBefore, int filesAfter) {}

  public static List<Compacted> run(CompactOptions o) throws IOException {
    if (o.getMinFiles() < 2) {
      throw new IllegalArgumentException("--minFiles must be 2 or more, got " + o.getMinFiles());
    }
    List<Catalog.Table> selected = selected(o.getTables());
    LakeTables.Config config = LakeTables.Config.of(o);
    try (LakehouseLock lock = LakehouseLock.acquire(config, o.getRunId());
        LakeTables tables = LakeTables.open(config)) {
      tables.rollForward();
      Lakehouse lake = new Lakehouse(config.root());
      RunIds.discardUnfinished(lake, tables, o.getRunId());
      Map<Catalog.Table, Map<String, List<String>>> work = new LinkedHashMap<>();
      for (Catalog.Table t : selected) {
        Map<String, List<String>> small = new TreeMap<>();
        partitions(lake, t, tables.files(t)).entrySet().stream()
            .filter(e -> e.getValue().size() >= o.getMinFiles())
            .forEach(e -> small.put(e.getKey(), e.getValue()));
        if (!small.isEmpty()) {
          work.put(t, small);
        }
      }
      List<Compacted> out = new ArrayList<>();
      if (work.isEmpty()) {
        return out;
      }
      Pipeline p = Pipeline.create(o);
      work.forEach(
          (t, parts) -> {
            Catalog.Table columns = tables.current(t);
            List<PCollection<String>> merged = new ArrayList<>();
            parts.forEach(
                (partition, files) -> merged.add(merge(p, lake, columns, partition, files, o)));
            PCollectionList.of(merged)
                .apply("Files of " + t.name(), Flatten.pCollections())
                .apply(
                    "List " + t.name(),
                    WriteTableFiles.manifest(lake.written(o.getRunId(), t.path())));
          });
      RunIds.claim(lake, o.getRunId());
      try {
        PipelineResult result = Progress.runAndWait(p);
        if (result.getState() != PipelineResult.State.DONE) {
          throw new MedallionException("the job ended " + result.getState() + "; nothing changed");
        }
      } catch (RuntimeException e) {
        RunIds.abandon(lake, tables, o.getRunId());
        throw e;
      }
      for (Map.Entry<Catalog.Table, Map<String, List<String>>> e : work.entrySet()) {
        List<String> old = new ArrayList<>();
        e.getValue().values().forEach(old::addAll);
        // The files its manifest lists: not one a retried task wrote beside them.
        List<String> merged = tables.listedBy(e.getKey(), o.getRunId(), "");
        tables.rewrite(o.getRunId(), e.getKey().name(), old, merged);
        out.add(new Compacted(e.getKey().name(), e.getValue().size(), old.size(), merged.size()));
      }
      // Files a failed or retried task left beside the listed ones: in no commit.
      RunIds.discard(tables, o.getRunId());
      RunIds.end(lake, o.getRunId());
      return out;
    }
  }

  private static List<Catalog.Table> selected(String names) {
    if (names.isBlank()) {
      return Catalog.TABLES;
    }
    return Arrays.stream(names.split(",")).map(String::trim).map(Catalog::table).toList();
  }

  /** A table's committed files by partition folder ({@code date=2026-11-29/hour=10}). */
  static Map<String, List<String>> partitions(
      Lakehouse lake, Catalog.Table t, List<DataFile> files) {
    String prefix = lake.table(t.path()) + "/";
    Map<String, List<String>> out = new TreeMap<>();
    for (DataFile f : files) {
      String rel = f.location().substring(prefix.length());
      out.computeIfAbsent(
              rel.substring(0, Math.max(0, rel.lastIndexOf('/'))), k -> new ArrayList<>())
          .add(f.location());
    }
    return out;
  }

  /**
   * One partition's files read and written again as one file, into the same partition, with every
   * column the table has now (the wide Gold tables have more than their record); the file's path.
   */
  private static PCollection<String> merge(
      Pipeline p,
      Lakehouse lake,
      Catalog.Table t,
      String partition,
      List<String> files,
      CompactOptions o) {
    String name = t.name() + "/" + partition;
    return p.apply("Read " + name, ReadTable.rowsOfFiles(files, t.schema()))
        .apply(
            "Write " + name,
            WriteTable.<Row>to(lake.table(t.path()), record -> partition, o.getRunId())
                .withNumShards(1))
        .apply("Path of " + name, Values.create());
  }
}
