package dev.medallion.tools;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Tells the launcher ({@code ./medallion}) that this command ran a job: the class archive the JVM
 * records at its exit then holds a job's classes, and the launcher keeps it as the build's archive;
 * a partial archive the command ran on (what a command that ran no job recorded: its help, a bad
 * flag, a replay with nothing new, a failed job) is dropped, so that the next {@code run} or {@code
 * users} records a job's. The launcher names the file to create ({@code -Dmedallion.cds.ran}) only
 * for {@code run} and {@code users} without the build's archive.
 */
final class ClassArchive {
  private ClassArchive() {}

  static final String RAN = "medallion.cds.ran";

  /** A job of this command has run to its end. */
  static void jobRan() {
    String ran = System.getProperty(RAN);
    if (ran == null || ran.isEmpty()) {
      return;
    }
    try {
      Files.newOutputStream(Path.of(ran)).close();
    } catch (IOException e) {
      // Then a later command records the archive.
    }
  }
}
