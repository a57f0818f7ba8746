package dev.medallion.pipelines;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
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
      return IotJob.run(stage, flags.toArray(String[]::new));
    }
  }

  /** The batch user-features pipeline. */
  @Command
  static final class Users extends PipelineCommand {
    @Override
    public Integer call() throws Exception {
      return UserFeaturesJob.run(flags.toArray(String[]::new));
    }
  }
}
