package dev.medallion.lakehouse;

import dev.medallion.core.InputFormat;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.util.Set;
import java.util.TreeSet;
import org.apache.beam.sdk.io.FileSystems;
import org.apache.beam.sdk.io.fs.EmptyMatchTreatment;
import org.apache.beam.sdk.io.fs.MatchResult;
import org.apache.beam.sdk.io.fs.ResourceId;

/** The raw files {@code --input} names, local or {@code s3://}. */
public final class InputFiles {
  private InputFiles() {}

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
