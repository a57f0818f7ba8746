package dev.medallion.pipelines;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.PipelineResult;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * The threads a runner in this JVM evaluates its bundles or tasks on: the DirectRunner's workers,
 * and a local Spark master's task threads. When a job fails, the runner ends its wait at the first
 * failure, and both runners shut their pools down without waiting for the work already started:
 * other bundles may still be writing table files. A job that deletes its uncommitted files after a
 * failure waits for them first ({@link #stopAfterFailure}), or a file finished a moment later would
 * stay behind.
 */
final class RunnerWorkers {
  private RunnerWorkers() {}

  /** How the two runners name the threads that run a pipeline's code. */
  private static final List<String> NAMES =
      List.of("direct-runner-worker", "Executor task launch worker");

  /** How long {@link #stopAfterFailure} waits for the work in flight, at most. */
  static final long WAIT_MILLIS = 60_000;

  /**
   * Cancels the job if it is still running, then waits up to {@code waitMillis} until no runner
   * thread of this JVM is running a pipeline's code: each has ended or waits for its pool's next
   * task. Returns the threads still busy at the end (none, normally).
   */
  static List<Thread> stopAfterFailure(@Nullable PipelineResult result, long waitMillis) {
    if (result != null) {
      try {
        if (!result.getState().isTerminal()) {
          result.cancel();
        }
      } catch (java.io.IOException | RuntimeException e) {
        // A runner that cannot cancel, or a job already ended: its pool is shut down either way.
      }
    }
    long deadline = System.nanoTime() + waitMillis * 1_000_000L;
    List<Thread> busy = busy();
    while (!busy.isEmpty() && System.nanoTime() < deadline) {
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      busy = busy();
    }
    if (!busy.isEmpty()) {
      System.err.println(
          busy.size()
              + " of the job's threads were still running "
              + waitMillis / 1000
              + " s after it failed; a file they finish later is removed by the next run");
    }
    return busy;
  }

  /** The runner threads of this JVM that are running a pipeline's code now. */
  static List<Thread> busy() {
    List<Thread> busy = new ArrayList<>();
    for (Map.Entry<Thread, StackTraceElement[]> t : Thread.getAllStackTraces().entrySet()) {
      Thread thread = t.getKey();
      if (thread != Thread.currentThread()
          && thread.isAlive()
          && isRunnerThread(thread.getName())
          && !waitsForTask(t.getValue())) {
        busy.add(thread);
      }
    }
    return busy;
  }

  static boolean isRunnerThread(String name) {
    for (String n : NAMES) {
      if (name.startsWith(n)) {
        return true;
      }
    }
    return false;
  }

  /** A pool thread between two tasks: parked in its pool's queue, running nothing of the job. */
  private static boolean waitsForTask(StackTraceElement[] stack) {
    for (StackTraceElement e : stack) {
      if (e.getClassName().equals("java.util.concurrent.ThreadPoolExecutor")
          && e.getMethodName().equals("getTask")) {
        return true;
      }
    }
    return stack.length == 0; // not started yet, or just ended
  }
}
