package dev.medallion.pipelines;

import dev.medallion.common.MedallionException;
import dev.medallion.generator.Generate;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;

/**
 * The {@code medallion} command: {@code run} (default: the whole IoT pipeline on the built-in
 * generator, or a replay with {@code --input}), the stages {@code bronze}, {@code silver} and
 * {@code gold} on their own, {@code validate}, and {@code generate}. Pipeline commands take Beam
 * flags ({@code --runner=SparkRunner}, {@code --lakehouse=…}); {@code --help} lists them.
 */
public final class Medallion {
  private Medallion() {}

  static final String USAGE =
      """
      usage: medallion [COMMAND] [--flags]
        run        the IoT pipeline: generator (or --input NDJSON replay) -> Bronze -> Silver -> Gold
        bronze     only Bronze: generator or --input NDJSON -> bronze/iot_events
        silver     only Silver: bronze/iot_events -> silver/* and quarantine
        gold       only Gold: silver/* -> gold/device_minute, gold/site_minute
        validate   check every layer of a lakehouse; exits 1 when a check fails
        users      the batch user-features pipeline: raw NDJSON -> Bronze -> Silver -> Gold
        query      SQL over the catalog's tables (embedded DuckDB), with the partitions and files read
        quality    data-quality checks of a table, JSON and Markdown reports; exits 1 on failure
        generate   NDJSON sensor events (see generate --help)
      Every command takes --help. Exit codes: 0 ok, 1 a check or the job failed, 2 bad usage.""";

  public static void main(String[] args) {
    System.exit(run(args));
  }

  /** Runs a picocli command; its failures print one line, never a stack trace. */
  private static int execute(Object command, String[] args) {
    CommandLine cli = new CommandLine(command);
    cli.setExecutionExceptionHandler(
        (e, commandLine, parseResult) -> {
          commandLine
              .getErr()
              .println(
                  "medallion "
                      + commandLine.getCommandName()
                      + ": "
                      + (e instanceof IllegalArgumentException
                          ? e.getMessage()
                          : Failures.oneLine(e)));
          return e instanceof IllegalArgumentException ? 2 : 1;
        });
    return cli.execute(args);
  }

  static int run(String[] args) {
    String command = args.length == 0 || args[0].startsWith("--") ? "run" : args[0];
    String[] rest =
        args.length == 0 || args[0].startsWith("--")
            ? args
            : Arrays.copyOfRange(args, 1, args.length);
    if (args.length > 0 && List.of("--help", "-h", "help").contains(args[0])) {
      System.out.println(USAGE);
      return 0;
    }
    if (PIPELINE_HELP.containsKey(command)
        && Arrays.stream(rest).anyMatch(a -> a.equals("--help") || a.equals("-h"))) {
      OptionsHelp.print(
          System.out,
          command,
          PIPELINE_HELP.get(command),
          command.equals("users") ? BatchOptions.class : IotOptions.class);
      return 0;
    }
    try {
      return switch (command) {
        case "run" -> IotJob.run(IotJob.Stage.ALL, rest);
        case "bronze" -> IotJob.run(IotJob.Stage.BRONZE, rest);
        case "silver" -> IotJob.run(IotJob.Stage.SILVER, rest);
        case "gold" -> IotJob.run(IotJob.Stage.GOLD, rest);
        case "validate" -> execute(new Validate(), rest);
        case "users" -> UserFeaturesJob.run(rest);
        case "quality" -> execute(new Quality(), rest);
        case "query" -> execute(new Query(), rest);
        case "generate" -> execute(new Generate(), rest);
        default -> {
          System.err.println("medallion: unknown command '" + command + "'\n" + USAGE);
          yield 2;
        }
      };
    } catch (java.io.IOException | IllegalStateException | MedallionException e) {
      System.err.println("medallion " + command + ": " + e.getMessage());
      return 1;
    } catch (IllegalArgumentException e) {
      System.err.println("medallion " + command + ": " + e.getMessage());
      return 2;
    } catch (RuntimeException e) {
      System.err.println("medallion " + command + ": " + Failures.oneLine(e));
      return 1;
    }
  }

  /** What each pipeline command does, for its generated {@code --help}. */
  private static final Map<String, String> PIPELINE_HELP =
      Map.of(
          "run",
          "The IoT pipeline: the generator (or an --input NDJSON replay) -> Bronze -> Silver -> Gold.",
          "bronze",
          "Only Bronze: the generator or --input NDJSON -> bronze/iot_events.",
          "silver",
          "Only Silver: bronze/iot_events -> silver/* and the quarantine.",
          "gold",
          "Only Gold: silver/* -> gold/device_minute, gold/site_minute.",
          "users",
          "The batch user-features pipeline: --input NDJSON -> Bronze -> Silver -> Gold.");
}
