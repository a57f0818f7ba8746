package dev.medallion.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher's class archive ({@code ./medallion}, Java's class data sharing): the first pipeline
 * command after a build that runs a job records it, and a command that ran none leaves nothing (an
 * archive recorded by {@code run --help}, 3.9 MB against a job's 117 MB, left most classes to their
 * jars, and every later 407-line replay on Spark took 1.7 s longer until the next build). Runs the
 * built jar through the launcher, so after the package phase (the {@code launcher} execution of
 * this module's pom).
 */
class LauncherArchiveTest {
  static final Path ROOT = Path.of(System.getProperty("medallion.root", "..")).toAbsolutePath();
  static final Path TARGET = ROOT.resolve("tools").resolve("target");

  @TempDir Path tmp;

  @Test
  void onlyACommandThatRanAJobLeavesTheClassArchive() throws Exception {
    String[] replay = {
      "run",
      "--input=testdata/iot/events.ndjson",
      "--devices=testdata/devices.csv",
      "--lakehouse=" + tmp.resolve("lake")
    };
    deleteArchives();

    assertEquals(0, launch("help", "run", "--help"));
    assertEquals(List.of(), archiveFiles(), "after run --help");

    assertEquals(0, launch("replay", replay));
    List<String> recorded = archiveFiles();
    assertEquals(1, recorded.size(), "after a replay: " + recorded);
    assertTrue(recorded.get(0).matches("medallion-[0-9]+\\.jsa"), recorded.get(0));

    // The same replay again reads nothing new and runs no job.
    deleteArchives();
    assertEquals(0, launch("rerun", replay));
    assertEquals(List.of(), archiveFiles(), "after a replay with nothing new");
  }

  /** {@code ./medallion args} from the repository's root, its own options only; its exit code. */
  private int launch(String name, String... args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(ROOT.resolve("medallion").toString());
    command.addAll(List.of(args));
    Path log = tmp.resolve(name + ".log");
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .directory(ROOT.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    builder.environment().remove("MEDALLION_CDS");
    builder.environment().remove("MEDALLION_JAVA_OPTS");
    Process p = builder.start();
    if (!p.waitFor(5, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError(name + " did not end: " + Files.readString(log));
    }
    return p.exitValue();
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
