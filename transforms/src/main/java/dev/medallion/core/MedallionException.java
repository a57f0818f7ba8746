package dev.medallion.core;

/**
 * A failure whose message alone tells a user what is wrong and where (a file, a table, a flag): the
 * command line prints that one line, never a stack trace. Thrown where a job cannot go on, e.g. a
 * table file that is not readable Parquet; it may travel inside a runner's own exception, and the
 * command line finds it in the chain of causes.
 */
public class MedallionException extends RuntimeException {
  public MedallionException(String message) {
    super(message);
  }

  public MedallionException(String message, Throwable cause) {
    super(message, cause);
  }

  /** The first {@link MedallionException} in {@code t}'s chain of causes, or null. */
  public static MedallionException findIn(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c instanceof MedallionException m) {
        return m;
      }
    }
    return null;
  }
}
