package dev.medallion.core;

import java.io.PrintWriter;
import java.io.StringWriter;

/**
 * The one failsafe of every record-level step: whatever a record's rule throws becomes a rejection,
 * so the record goes to the quarantine with a reason instead of failing its bundle (and, on a
 * runner that retries bundles, the whole job). A rule's own rejection ({@link
 * InvalidRecordException}) keeps its reason; any other exception (a bug, a value the rule did not
 * foresee) is {@code unexpected_error}, with the exception and its stack trace as the detail.
 *
 * <p>Usage in a {@code DoFn}: compute inside {@code try}, output after it, and route {@code catch
 * (RuntimeException e)} through {@link #rejection} to the dead-letter output.
 */
public final class Failsafe {
  private Failsafe() {}

  /** The reason of a dead letter whose rule threw something other than a rejection. */
  public static final String UNEXPECTED = "unexpected_error";

  public static InvalidRecordException rejection(RuntimeException thrown) {
    if (thrown instanceof InvalidRecordException rejection) {
      return rejection;
    }
    StringWriter trace = new StringWriter();
    thrown.printStackTrace(new PrintWriter(trace));
    return new InvalidRecordException(UNEXPECTED, trace.toString().strip());
  }
}
