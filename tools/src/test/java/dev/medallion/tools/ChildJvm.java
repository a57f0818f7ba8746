package dev.medallion.tools;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** {@code medallion} in a JVM of its own: to be killed, to crash, or to run beside the test's. */
final class ChildJvm {
  private ChildJvm() {}

  static Process start(Path log, List<String> jvmFlags, String... args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // A child runs one short job: the quick (C1) compiler alone costs less CPU than it saves.
    command.add("-XX:TieredStopAtLevel=1");
    command.addAll(jvmFlags);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(Medallion.class.getName());
    command.addAll(List.of(args));
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
  }
}
