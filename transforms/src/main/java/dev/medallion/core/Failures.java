package dev.medallion.core;

/** A failure of a job as one line for the command line: what went wrong, never a stack trace. */
public final class Failures {
  private Failures() {}

  /**
   * The message of the first {@link MedallionException} in the chain (it names the file or table
   * and the cause), else the deepest cause's class and message.
   */
  public static String oneLine(Throwable t) {
    MedallionException m = MedallionException.findIn(t);
    if (m != null) {
      return m.getMessage();
    }
    Throwable root = t;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message = root.getMessage() == null ? "" : ": " + root.getMessage().strip();
    return root.getClass().getSimpleName() + message;
  }
}
