package dev.medallion.pipelines;

import dev.medallion.core.TableFileCounts;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Counts the rows and dead letters that table files hold: {@link #EXACT} for a run's report (every
 * file must be read), or {@link #live()} for the progress line while the job still writes.
 */
interface FileCounter {
  /** The rows of these Parquet files. */
  long rows(List<String> files) throws IOException;

  /** The dead letters of these quarantine files ({@link TableFileCounts#deadLetters}). */
  Map<String, Long> deadLetters(List<String> files, String suffix) throws IOException;

  /** Every file read whole; one that cannot be read is an error. */
  FileCounter EXACT =
      new FileCounter() {
        @Override
        public long rows(List<String> files) throws IOException {
          return TableFileCounts.rows(files);
        }

        @Override
        public Map<String, Long> deadLetters(List<String> files, String suffix) throws IOException {
          return TableFileCounts.deadLetters(files, suffix);
        }
      };

  /**
   * For a live count, asked again and again while files are written: a file that cannot be read yet
   * (its writer has not closed it, so it has no footer) counts nothing this time, and a file read
   * once is not read again (a table file never changes once written).
   */
  static FileCounter live() {
    return new Live();
  }

  /** {@link #live()}. */
  final class Live implements FileCounter {
    private final Map<String, Long> rows = new HashMap<>();
    private final Map<String, Map<String, Long>> deadLetters = new HashMap<>();

    @Override
    public synchronized long rows(List<String> files) {
      long n = 0;
      for (String file : files) {
        Long counted = rows.get(file);
        if (counted == null) {
          try {
            counted = TableFileCounts.rows(List.of(file));
          } catch (IOException | RuntimeException notYet) {
            continue;
          }
          rows.put(file, counted);
        }
        n += counted;
      }
      return n;
    }

    @Override
    public synchronized Map<String, Long> deadLetters(List<String> files, String suffix) {
      Map<String, Long> all = new TreeMap<>();
      for (String file : files) {
        Map<String, Long> counted = deadLetters.get(file + "\n" + suffix);
        if (counted == null) {
          try {
            counted = TableFileCounts.deadLetters(List.of(file), suffix);
          } catch (IOException | RuntimeException notYet) {
            continue;
          }
          deadLetters.put(file + "\n" + suffix, counted);
        }
        counted.forEach((k, v) -> all.merge(k, v, Long::sum));
      }
      return all;
    }
  }
}
