package dev.medallion.tools;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Tells the launcher ({@code ./medallion}) that this command ran a job, so that the class archive
 * the JVM records at its exit holds a job's classes and is worth keeping. The launcher names the
 * file to create ({@code -Dmedallion.cds.ran}) only when it records an archive; a command that ran
 * no job (its help, a bad flag, a replay with nothing new, a failed job) creates nothing, and the
 * launcher drops what it recorded.
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
