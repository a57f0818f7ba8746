package dev.medallion.tools;

import dev.medallion.pipelines.CleanStop;
import dev.medallion.pipelines.CompactJob;
import dev.medallion.pipelines.CompactOptions;
import dev.medallion.pipelines.IotJob;
import dev.medallion.pipelines.IotOptions;
import dev.medallion.pipelines.RunnerDefaults;
import dev.medallion.pipelines.UserFeaturesJob;
import dev.medallion.pipelines.UsersOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.options.PipelineOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Unmatched;

/**
 * A command that launches a pipeline ({@code run}, the stages, {@code users}): a picocli subcommand
 * whose flags are Beam pipeline options, passed through as they are ({@code @Unmatched}) so that
 * the same flags work on every runner, and whose {@code --help} lists them from the options
 * interface.
 */
@Command(sortOptions = false)
abstract class PipelineCommand implements Callable<Integer> {
  @Option(
      names = {"-h", "--help"},
      usageHelp = true,
      description = "Show this help message and exit.")
  boolean help;

  @Unmatched List<String> flags = new ArrayList<>();

  /** The usage text of {@code command}: its description and flags. */
  static void describe(
      CommandSpec spec, String description, Class<? extends PipelineOptions> options) {
    spec.usageMessage()
        .description(description)
        .customSynopsis("medallion " + spec.name() + " [--flag=value …]")
        .footerHeading("%nFlags:%n")
        .footer(OptionsHelp.flags(options));
  }

  /** The IoT pipeline, whole or one stage. */
  @Command
  static final class Iot extends PipelineCommand {
    private final IotJob.Stage stage;

    Iot(IotJob.Stage stage) {
      this.stage = stage;
    }

    @Override
    public Integer call() throws Exception {
      IotOptions options = RunnerDefaults.iotOptions(flags.toArray(String[]::new), stage);
      try (CleanStop stop = CleanStop.ofKafkaStage(stage, options)) {
        IotJob.Ran ran = IotJob.run(stage, options);
        if (ran == null) {
          return 0; // nothing new to read, said on stderr
        }
        if (ran.result().getState() == PipelineResult.State.DONE) {
          ClassArchive.jobRan();
        }
        boolean withinLimit = Report.print(ran, options, stage);
        if (stop.failure() != null) {
          System.err.println("medallion " + stage.name().toLowerCase() + ": " + stop.failure());
          return 1;
        }
        return ran.result().getState() == PipelineResult.State.DONE && withinLimit ? 0 : 1;
      }
    }
  }

  /** The batch user-features pipeline. */
  @Command
  static final class Users extends PipelineCommand {
    @Override
    public Integer call() throws Exception {
      UsersOptions options =
          RunnerDefaults.options(flags.toArray(String[]::new), UsersOptions.class);
      UserFeaturesJob.Summary summary = UserFeaturesJob.run(options);
      ClassArchive.jobRan();
      return Report.print(summary, options) ? 0 : 1;
    }
  }

  /** Merges the small files of the tables' partitions. */
  @Command
  static final class Compact extends PipelineCommand {
    @Override
    public Integer call() throws Exception {
      CompactOptions options =
          RunnerDefaults.options(flags.toArray(String[]::new), CompactOptions.class);
      List<CompactJob.Compacted> done = CompactJob.run(options);
      if (done.isEmpty()) {
        System.out.println(
            "nothing to compact: no partition has " + options.getMinFiles() + " files or more");
      }
      for (CompactJob.Compacted c : done) {
        System.out.printf(
            "%-26s %d partition(s): %d files -> %d%n",
            c.table(), c.partitions(), c.filesBefore(), c.filesAfter());
      }
      return 0;
    }
  }
}
