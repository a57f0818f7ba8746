package dev.medallion.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher's class archive ({@code ./medallion}, Java's class data sharing): the first pipeline
 * command after a build that runs a job records it. What a command that ran none recorded is kept
 * apart, as a partial archive, until a command runs a job on it: taken for the archive, one
 * recorded by {@code run --help} (3.9 MB against a job's 117 MB) left most classes to their jars,
 * and every later 407-line replay on Spark took 1.7 s longer until the next build; dropped, every
 * replay with nothing new recorded one again (5.6 to 6.1 s instead of 1.3 s). Runs the built jar
 * through the launcher, so after the package phase (the {@code launcher} execution of this module's
 * pom).
 */
class LauncherArchiveTest {
  static final Path ROOT = Path.of(System.getProperty("medallion.root", "..")).toAbsolutePath();
  static final Path TARGET = ROOT.resolve("tools").resolve("target");

  @TempDir Path tmp;

  /** The next command records a job's archive, as after a build. */
  @AfterEach
  void noArchiveLeft() throws IOException {
    deleteArchives();
  }

  @Test
  void onlyACommandThatRanAJobRecordsTheClassArchive() throws Exception {
    deleteArchives();

    launch("help", "run", "--help");
    String partial = assertOnly("medallion-[0-9]+\\.partial\\.jsa", "after run --help");

    // A job run on the partial archive drops it, for the next run or users to record a job's.
    launch("first", replay("first"));
    assertEquals(List.of(), archiveFiles(), "after a job on the partial archive");

    launch("second", replay("second"));
    assertOnly("medallion-[0-9]+\\.jsa", "after a job without an archive");

    // A replay with nothing new runs no job: it records a partial archive once, then maps it.
    deleteArchives();
    launch("rerun", replay("first"));
    assertEquals(List.of(partial), archiveFiles(), "after a rerun");
    Object recorded = fileKey(partial);
    // What a launcher killed before its end left, of a process that is gone, goes.
    Process gone = new ProcessBuilder("true").start();
    gone.waitFor();
    String build = partial.substring(0, partial.indexOf(".partial"));
    List<String> left =
        List.of(build + ".jsa." + gone.pid() + ".ran", build + ".jsa." + gone.pid() + ".recording");
    for (String name : left) {
      Files.writeString(TARGET.resolve(name), "left");
    }
    launch("rerun-again", replay("first"));
    assertEquals(List.of(partial), archiveFiles(), "after a second rerun");
    assertEquals(recorded, fileKey(partial), "the partial archive recorded again");
  }

  /** The file's identity (its inode): a new recording is a new file renamed into place. */
  private static Object fileKey(String name) throws IOException {
    return Files.readAttributes(TARGET.resolve(name), BasicFileAttributes.class).fileKey();
  }

  /** A replay of the 407-line test input into the lakehouse {@code lake} of this test. */
  private String[] replay(String lake) {
    return new String[] {
      "run",
      "--input=testdata/iot/events.ndjson",
      "--devices=testdata/devices.csv",
      "--lakehouse=" + tmp.resolve(lake)
    };
  }

  /** The one archive file there is, whose name matches {@code pattern}; its name. */
  private static String assertOnly(String pattern, String when) throws IOException {
    List<String> files = archiveFiles();
    assertEquals(1, files.size(), when + ": " + files);
    assertTrue(files.get(0).matches(pattern), when + ": " + files.get(0));
    return files.get(0);
  }

  /**
   * {@code ./medallion args} from the repository's root, with no JVM options of the environment;
   * fails, with its output, unless it exits 0.
   */
  private void launch(String name, String... args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(ROOT.resolve("medallion").toString());
    command.addAll(List.of(args));
    Path log = tmp.resolve(name + ".log");
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .directory(ROOT.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    for (String variable :
        List.of("MEDALLION_CDS", "MEDALLION_JAVA_OPTS", "JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS")) {
      builder.environment().remove(variable);
    }
    Process p = builder.start();
    if (!p.waitFor(5, TimeUnit.MINUTES)) {
      p.descendants().forEach(ProcessHandle::destroyForcibly); // the launcher's JVM
      p.destroyForcibly();
      throw new AssertionError(name + " did not end: " + Files.readString(log));
    }
    assertEquals(0, p.exitValue(), name + ": " + Files.readString(log));
  }

  /** The archives and recordings in the launcher's folder, by name. */
  private static List<String> archiveFiles() throws IOException {
    try (Stream<Path> files = Files.list(TARGET)) {
      return files
          .map(f -> f.getFileName().toString())
          .filter(n -> n.startsWith("medallion-") && n.contains(".jsa"))
          .sorted()
          .toList();
    }
  }

  private static void deleteArchives() throws IOException {
    for (String name : archiveFiles()) {
      Files.delete(TARGET.resolve(name));
    }
  }
}
