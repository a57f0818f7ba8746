package dev.medallion.lakehouse;

import dev.medallion.core.FieldMapping;
import dev.medallion.core.InputFormat;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.beam.sdk.io.FileSystems;
import org.apache.beam.sdk.io.fs.EmptyMatchTreatment;
import org.apache.beam.sdk.io.fs.MatchResult;
import org.apache.beam.sdk.io.fs.ResourceId;

/** The raw files {@code --input} names, local or {@code s3://}. */
public final class InputFiles {
  private InputFiles() {}

  /** The field mapping in {@code path} ({@code --mapping}); none when empty. A clear error else. */
  public static FieldMapping mapping(String path) {
    if (path == null || path.isBlank()) {
      return FieldMapping.NONE;
    }
    try {
      return FieldMapping.load(path);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "cannot read the mapping file " + path + ": " + e.getMessage(), e);
    }
  }

  /**
   * Whether a file's first lines look like JSON documents over several lines ({@link
   * InputFormat#detect}). False when it cannot be read.
   */
  public static boolean looksLikeMultilineJson(String file) {
    try (InputStream in =
        Channels.newInputStream(FileSystems.open(FileSystems.matchNewResource(file, false)))) {
      return InputFormat.detect(in) == InputFormat.JSON;
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /**
   * The files a pattern (or comma-separated patterns) matches now, as full resource ids. A folder
   * is not a file: a pattern that names only folders is an error that says how to name the files in
   * it, and folders a wildcard matches are passed over.
   */
  public static Set<String> matching(String patterns) throws IOException {
    return new TreeSet<>(versions(patterns).keySet());
  }

  /**
   * The files {@link #matching} names, each with its version now: its size and last-modified time
   * ({@code "<bytes>:<millis>"}), which a Bronze commit records so a later run can tell that an
   * ingested file changed.
   */
  public static Map<String, String> versions(String patterns) throws IOException {
    Map<String, String> files = new TreeMap<>();
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
          files.put(md.resourceId().toString(), md.sizeBytes() + ":" + md.lastModifiedMillis());
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

  /**
   * What a run is to read of its {@code --input}: the files no earlier run ingested ({@code fresh},
   * with their versions), and those that one did ingest but that changed since ({@code changed}:
   * their size or time differs from what that run recorded), which are not read again unless
   * re-ingested ({@link #reingestingChanged}: then they are in {@code fresh} and {@code
   * reingested}).
   */
  public record NewInput(
      List<String> fresh,
      Map<String, String> versions,
      List<String> changed,
      List<String> reingested) {
    /** Of {@code matching} (path → version now), given what earlier runs ingested. */
    public static NewInput of(
        Map<String, String> matching, Set<String> ingested, Map<String, String> ingestedVersions) {
      List<String> fresh = new ArrayList<>();
      Map<String, String> versions = new TreeMap<>();
      List<String> changed = new ArrayList<>();
      matching.forEach(
          (file, version) -> {
            if (!ingested.contains(file)) {
              fresh.add(file);
              versions.put(file, version);
            } else if (ingestedVersions.containsKey(file)
                && !ingestedVersions.get(file).equals(version)) {
              changed.add(file);
            }
          });
      return new NewInput(fresh, versions, changed, List.of());
    }

    /** The changed files read again (with their versions now), to replace what Bronze holds. */
    public NewInput reingestingChanged(Map<String, String> matching) {
      if (changed.isEmpty()) {
        return this;
      }
      List<String> all = new ArrayList<>(fresh);
      all.addAll(changed);
      Map<String, String> allVersions = new TreeMap<>(versions);
      changed.forEach(f -> allVersions.put(f, matching.get(f)));
      return new NewInput(all, allVersions, List.of(), List.copyOf(changed));
    }

    /** Says on stderr which ingested files changed and were skipped, if any. */
    public void sayChanged(String name) {
      if (changed.isEmpty()) {
        return;
      }
      System.err.println(
          name
              + ": "
              + changed.size()
              + " --input file(s) changed since an earlier run ingested them, and were NOT read"
              + " again (Bronze keeps what that run read; "
              + ("users".equals(name)
                  ? "--reingest replaces it with the file as it is now"
                  : "give the corrected file a new name")
              + "): "
              + String.join(", ", changed.subList(0, Math.min(10, changed.size())))
              + (changed.size() > 10 ? ", …" : ""));
    }
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
