package dev.medallion.pipelines;

import java.util.ArrayList;
import java.util.List;
import org.checkerframework.checker.nullness.qual.Nullable;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * Ctrl-C (SIGINT) or SIGTERM on a stage that reads Kafka is a clean stop: instead of the JVM's
 * shutdown (which would stop the thread pools the table commits use), the reads end at their next
 * watermark ({@link ArrivalWatermark#drain}), so the last windows fire, every table's last flush is
 * written and committed, the stage prints its end report and exits. A second Ctrl-C exits at once
 * (what was not committed is then read again by the next run).
 *
 * <p>The stage stops the same way by itself when it cannot go on ({@link #because}: its input topic
 * was deleted under it), and then ends with exit code 1 and the reason.
 *
 * <p>{@link #of}: the same two signals for a command that runs until stopped (the Kafka broker).
 */
public final class CleanStop implements AutoCloseable {
  private static volatile @Nullable String failure;
  private final List<Signal> signals = new ArrayList<>();
  private final List<SignalHandler> previous = new ArrayList<>();

  /**
   * Stops the running stage cleanly, as Ctrl-C does, and ends it with exit code 1 and {@code why}.
   */
  static void because(String why) {
    failure = why;
    ArrivalWatermark.drain();
  }

  /** Why the stage stopped by itself, or null. */
  public @Nullable String failure() {
    return failure;
  }

  /**
   * On the first SIGINT or SIGTERM prints {@code name: stopping} and runs {@code stop} (which must
   * not block: it runs on the JVM's signal thread); on a second prints {@code name: atOnce} and
   * exits at once with 130. A null name leaves the JVM's own handling.
   */
  private CleanStop(@Nullable String name, String stopping, String atOnce, Runnable stop) {
    if (name == null) {
      return;
    }
    SignalHandler handler =
        new SignalHandler() {
          private volatile boolean asked;

          @Override
          public void handle(Signal signal) {
            if (asked) {
              System.err.println("\n" + name + ": " + atOnce);
              Runtime.getRuntime().halt(130);
            }
            asked = true;
            System.err.println("\n" + name + ": " + stopping);
            stop.run();
          }
        };
    for (String s : List.of("INT", "TERM")) {
      try {
        Signal signal = new Signal(s);
        previous.add(Signal.handle(signal, handler));
        signals.add(signal);
      } catch (IllegalArgumentException unsupported) {
        // a platform without this signal (TERM on Windows): the JVM's own handling stays
      }
    }
  }

  /** For a stage that reads Kafka, none else; close it once the stage's report is printed. */
  public static CleanStop ofKafkaStage(IotJob.Stage stage, IotOptions o) {
    failure = null;
    boolean kafka = !o.getInputTopic().isEmpty() && o.getInput().isEmpty();
    return new CleanStop(
        kafka ? "medallion " + stage.name().toLowerCase() : null,
        "stopping: the last records read are written and committed (Ctrl-C again: stop at once)",
        "stopped at once; the next run reads again",
        ArrivalWatermark::drain);
  }

  /**
   * For a command that runs until it is stopped (the Kafka broker): Ctrl-C or SIGTERM runs {@code
   * stop}, which must not block, and the command ends as it returns, not with the JVM's 130 or 143;
   * a second one exits at once.
   */
  public static CleanStop of(String name, String stopping, Runnable stop) {
    return new CleanStop(name, stopping, "stopped at once", stop);
  }

  @Override
  public void close() {
    for (int i = 0; i < signals.size(); i++) {
      Signal.handle(signals.get(i), previous.get(i));
    }
  }
}
