package dev.medallion.lakehouse;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.apache.beam.sdk.io.FileSystems;
import org.apache.beam.sdk.io.fs.EmptyMatchTreatment;
import org.apache.beam.sdk.io.fs.MatchResult;
import org.apache.beam.sdk.io.fs.ResourceId;

/** The raw files {@code --input} names, local or {@code s3://}. */
public final class InputFiles {
  private InputFiles() {}

  /**
   * Whether a file's first lines look like one JSON document spread over several lines
   * (pretty-printed JSON, or a JSON array) rather than NDJSON: its first line opens an array, or
   * opens an object it does not close, or one of its first five lines holds only an object member
   * ({@code "user_id": "u001",}). False when it cannot be read.
   */
  public static boolean looksLikeMultilineJson(String file) {
    byte[] head = new byte[8192];
    int n = 0;
    try (InputStream in =
        Channels.newInputStream(FileSystems.open(FileSystems.matchNewResource(file, false)))) {
      for (int r; n < head.length && (r = in.read(head, n, head.length - n)) > 0; ) {
        n += r;
      }
    } catch (IOException | RuntimeException e) {
      return false;
    }
    String text = new String(head, 0, n, StandardCharsets.UTF_8).replace("\uFEFF", "");
    List<String> lines = new ArrayList<>(List.of(text.split("\n", -1)));
    if (n == head.length) {
      lines.remove(lines.size() - 1); // cut short by the buffer: not a whole line
    }
    int seen = 0;
    for (String raw : lines) {
      String line = raw.strip();
      if (line.isEmpty()) {
        continue;
      }
      if (seen == 0 && (line.startsWith("[") || (line.startsWith("{") && !line.endsWith("}")))) {
        return true;
      }
      if (MEMBER_LINE.matcher(line).matches()) {
        return true;
      }
      if (++seen == 5) {
        break;
      }
    }
    return false;
  }

  /** A line that is one JSON object member, not an object: {@code "user_id": "u001",}. */
  private static final Pattern MEMBER_LINE = Pattern.compile("\"[^\"]*\"\\s*:.*");

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
