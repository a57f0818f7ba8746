package dev.medallion.tools;

import dev.medallion.lakehouse.Catalog;
import dev.medallion.lakehouse.LakeTables;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.beam.sdk.io.FileSystems;
import org.apache.beam.sdk.io.fs.MatchResult;
import org.apache.iceberg.DataFile;

/**
 * A local copy of a remote lakehouse's objects, for the embedded SQL engine, which cannot read
 * {@code s3://} offline. Laid out like the lakehouse ({@code <root>/<table>/<partition>/<file>});
 * an object is fetched again only when its size or time changed, and a cached file whose object is
 * gone is removed.
 */
final class ObjectCache {
  private final String lakehouse;
  private final Path root;
  private int fetched;
  private int reused;

  ObjectCache(String lakehouse, Path cacheRoot) {
    this.lakehouse = lakehouse.replaceAll("/+$", "");
    this.root = cacheRoot.resolve(this.lakehouse.replaceAll("[^A-Za-z0-9._-]+", "_"));
  }

  static boolean isRemote(String lakehouse) {
    return lakehouse.contains("://");
  }

  int fetched() {
    return fetched;
  }

  int reused() {
    return reused;
  }

  /**
   * The data files of a table's current Iceberg snapshot grouped by partition folder, e.g. {@code
   * event_date=2026-11-28}: only committed files, never one being written or replaced.
   */
  static Map<String, List<MatchResult.Metadata>> partitions(LakeTables tables, Catalog.Table t) {
    Map<String, List<MatchResult.Metadata>> out = new TreeMap<>();
    String prefix = tables.config().root() + "/" + t.path() + "/";
    for (DataFile f : tables.files(t)) {
      String path = f.location();
      String rel = path.startsWith(prefix) ? path.substring(prefix.length()) : path;
      String partition = rel.contains("/") ? rel.substring(0, rel.lastIndexOf('/')) : "";
      out.computeIfAbsent(partition, k -> new ArrayList<>())
          .add(
              MatchResult.Metadata.builder()
                  .setResourceId(FileSystems.matchNewResource(path, false))
                  .setSizeBytes(f.fileSizeInBytes())
                  .setIsReadSeekEfficient(true)
                  .setLastModifiedMillis(0)
                  .build());
    }
    return out;
  }

  Path localDir(String tablePath, String partition) {
    return root.resolve(tablePath).resolve(partition);
  }

  /** Brings one partition's objects into the cache. */
  void fetch(String tablePath, String partition, List<MatchResult.Metadata> objects)
      throws IOException {
    Path dir = localDir(tablePath, partition);
    Files.createDirectories(dir);
    Set<String> wanted = new TreeSet<>();
    for (MatchResult.Metadata md : objects) {
      String name = md.resourceId().getFilename();
      wanted.add(name);
      Path local = dir.resolve(name);
      if (Files.exists(local)
          && Files.size(local) == md.sizeBytes()
          && Files.getLastModifiedTime(local).toMillis() == md.lastModifiedMillis()) {
        reused++;
        continue;
      }
      Path part = dir.resolve("." + name + ".part");
      try (InputStream in = Channels.newInputStream(FileSystems.open(md.resourceId()))) {
        Files.copy(in, part, StandardCopyOption.REPLACE_EXISTING);
      }
      Files.move(part, local, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      Files.setLastModifiedTime(local, FileTime.fromMillis(md.lastModifiedMillis()));
      fetched++;
    }
    try (Stream<Path> old = Files.list(dir)) {
      for (Path f : old.toList()) {
        if (!wanted.contains(f.getFileName().toString())) {
          Files.delete(f);
        }
      }
    }
  }

  /**
   * Mirrors every partition of every table (for the whole-table quality and validate); returns the
   * local copies of each table's committed files.
   */
  Map<String, List<String>> mirrorAll(LakeTables tables) throws IOException {
    Map<String, List<String>> out = new TreeMap<>();
    for (Catalog.Table t : Catalog.TABLES) {
      Map<String, List<MatchResult.Metadata>> parts = partitions(tables, t);
      List<String> local = new ArrayList<>();
      for (Map.Entry<String, List<MatchResult.Metadata>> p : parts.entrySet()) {
        fetch(t.path(), p.getKey(), p.getValue());
        for (MatchResult.Metadata md : p.getValue()) {
          local.add(
              localDir(t.path(), p.getKey()).resolve(md.resourceId().getFilename()).toString());
        }
      }
      pruneGonePartitions(t.path(), parts.keySet());
      out.put(t.name(), local);
    }
    return out;
  }

  private void pruneGonePartitions(String tablePath, Set<String> partitions) throws IOException {
    Path dir = root.resolve(tablePath);
    if (!Files.isDirectory(dir)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        String partition = dir.relativize(f.getParent()).toString().replace('\\', '/');
        if (!partitions.contains(partition)) {
          Files.delete(f);
        }
      }
    }
  }
}
