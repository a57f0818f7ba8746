package dev.medallion.core;

/**
 * A record that breaks a rule of its format. Thrown only inside a validating function and caught by
 * the DoFn that called it, which turns it into a {@link dev.medallion.core.DeadLetter}: it never
 * leaves a pipeline step. {@link #getReason()} is a short stable code ({@code invalid_ts}, {@code
 * out_of_range:value}); the message says what was wrong in words.
 */
public final class InvalidRecordException extends RuntimeException {
  private final String reason;

  public InvalidRecordException(String reason, String detail) {
    super(detail, null, false, false);
    this.reason = reason;
  }

  public String getReason() {
    return reason;
  }
}
