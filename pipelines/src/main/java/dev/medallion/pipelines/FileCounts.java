package dev.medallion.pipelines;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * A run's report counts taken from the files its commit adds rather than from the runner's
 * counters: Spark increments a counter again for a task it recomputes or retries, and has no
 * committed metrics, while the files hold each row once.
 */
final class FileCounts {
  private FileCounts() {}

  /**
   * The counters, with {@code files}' number in place of every count {@code fromFiles} names (a
   * count the files lack is 0). Says on {@code err}, for {@code job}, when counters and files
   * differ.
   */
  static Map<String, Long> prefer(
      String job,
      Map<String, Long> counters,
      Map<String, Long> files,
      Pattern fromFiles,
      PrintStream err) {
    List<String> differ = new ArrayList<>();
    files.forEach(
        (k, v) -> {
          long counted = counters.getOrDefault(k, 0L);
          if (counted != v) {
            differ.add(k + " " + counted + " -> " + v);
          }
        });
    counters.forEach(
        (k, v) -> {
          if (v != 0 && !files.containsKey(k) && fromFiles.matcher(k).matches()) {
            differ.add(k + " " + v + " -> 0");
          }
        });
    Map<String, Long> all = new TreeMap<>(counters);
    all.keySet().removeIf(k -> fromFiles.matcher(k).matches());
    all.putAll(files);
    if (!differ.isEmpty()) {
      err.println(
          job
              + ": the runner's counters differ from what this run's table files hold (a task run"
              + " again?); the counts reported are the files': "
              + String.join(", ", differ));
    }
    return all;
  }
}
