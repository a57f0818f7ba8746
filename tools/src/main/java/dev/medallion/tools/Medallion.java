package dev.medallion.tools;

import dev.medallion.core.Failures;
import dev.medallion.core.MedallionException;
import dev.medallion.generator.Generate;
import dev.medallion.pipelines.CompactOptions;
import dev.medallion.pipelines.IotJob;
import dev.medallion.pipelines.IotOptions;
import dev.medallion.pipelines.UsersOptions;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.beam.sdk.options.PipelineOptions;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code medallion} command line: every command is a picocli subcommand with a generated {@code
 * --help}. {@code run} (the default: the whole IoT pipeline on the built-in generator, or a replay
 * with {@code --input}), the stages {@code bronze}, {@code silver} and {@code gold}, and {@code
 * users} pass their flags to Beam, so the same flags work on every runner; {@code validate}, {@code
 * query}, {@code quality}, {@code report} and {@code generate} are tools. A usage error is one line
 * and exit code 2; a failed job or check is one line (never a stack trace) and exit code 1.
 */
@Command(
    name = "medallion",
    mixinStandardHelpOptions = true,
    version = "medallion 0.1.0",
    description =
        "Raw JSON events to Bronze, Silver and Gold tables, on the DirectRunner or Spark.",
    synopsisSubcommandLabel = "[COMMAND]",
    footer = {
      "",
      "Without a command: run. Every command takes --help.",
      "Exit codes: 0 ok, 1 a check or the job failed, 2 bad usage."
    })
public final class Medallion implements Runnable {
  private Medallion() {}

  @Override
  public void run() {
    // Never called: a command line without a subcommand runs `run`.
  }

  public static void main(String[] args) {
    System.exit(run(args));
  }

  /** The command line, its subcommands in the order the help lists them. */
  static CommandLine commandLine() {
    CommandLine cli = new CommandLine(new Medallion());
    pipeline(
        cli,
        "run",
        new PipelineCommand.Iot(IotJob.Stage.ALL),
        "The IoT pipeline: the generator (or an --input NDJSON replay) -> Bronze -> Silver -> Gold.",
        IotOptions.class);
    pipeline(
        cli,
        "bronze",
        new PipelineCommand.Iot(IotJob.Stage.BRONZE),
        "Only Bronze: the generator or --input NDJSON -> bronze/iot_events.",
        IotOptions.class);
    pipeline(
        cli,
        "silver",
        new PipelineCommand.Iot(IotJob.Stage.SILVER),
        "Only Silver: bronze/iot_events -> silver/* and the quarantine (replaces them).",
        IotOptions.class);
    pipeline(
        cli,
        "gold",
        new PipelineCommand.Iot(IotJob.Stage.GOLD),
        "Only Gold: silver/* -> gold/device_minute, gold/site_minute, gold/sensor_minute (replaces"
            + " them).",
        IotOptions.class);
    pipeline(
        cli,
        "users",
        new PipelineCommand.Users(),
        "The batch user-features pipeline: --input NDJSON -> Bronze -> Silver -> Gold.",
        UsersOptions.class);
    pipeline(
        cli,
        "compact",
        new PipelineCommand.Compact(),
        "Merge the small files of each table's partitions into one (one Iceberg commit per table).",
        CompactOptions.class);
    cli.addSubcommand("validate", new Validate());
    cli.addSubcommand("query", new Query());
    cli.addSubcommand("quality", new Quality());
    cli.addSubcommand("report", new HtmlReport());
    cli.addSubcommand("generate", new Generate());
    cli.addSubcommand("kafka", new KafkaCommand());
    cli.setExecutionExceptionHandler(Medallion::failed);
    cli.setParameterExceptionHandler(Medallion::badUsage);
    return cli;
  }

  private static void pipeline(
      CommandLine cli,
      String name,
      PipelineCommand command,
      String description,
      Class<? extends PipelineOptions> options) {
    cli.addSubcommand(name, command);
    PipelineCommand.describe(cli.getSubcommands().get(name).getCommandSpec(), description, options);
  }

  static int run(String[] args) {
    List<String> all = new ArrayList<>(Arrays.asList(args));
    if (all.isEmpty()
        || (all.get(0).startsWith("-")
            && !List.of("-h", "--help", "-V", "--version").contains(all.get(0)))) {
      all.add(0, "run");
    }
    return commandLine().execute(all.toArray(String[]::new));
  }

  /** A job or check that failed: one line; 2 for a bad value, else 1. */
  private static int failed(Exception e, CommandLine command, CommandLine.ParseResult parsed) {
    boolean usage = e instanceof IllegalArgumentException;
    boolean known =
        usage
            || e instanceof IOException
            || e instanceof IllegalStateException
            || e instanceof MedallionException;
    command
        .getErr()
        .println(
            "medallion "
                + command.getCommandName()
                + ": "
                + (known && e.getMessage() != null ? e.getMessage() : Failures.oneLine(e)));
    return usage ? 2 : 1;
  }

  /** A command line picocli cannot parse: one line, and where to read more. */
  private static int badUsage(CommandLine.ParameterException e, String[] args) {
    CommandLine command = e.getCommandLine();
    String name = command.getCommandSpec().qualifiedName();
    if (command.getParent() == null && e instanceof CommandLine.UnmatchedArgumentException u) {
      command
          .getErr()
          .println(
              "medallion: unknown command '"
                  + u.getUnmatched().get(0)
                  + "' (medallion --help lists the commands)");
    } else {
      command.getErr().println(name + ": " + e.getMessage() + " (see " + name + " --help)");
    }
    return 2;
  }
}
