package dev.medallion.pipelines;

import dev.medallion.generator.Generate;
import java.util.Arrays;
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
      Pipeline flags (run, bronze, silver, gold): see `medallion run --help`.""";

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
              .println("medallion " + commandLine.getCommandName() + ": " + e.getMessage());
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
        case "help", "-h" -> {
          System.out.println(USAGE);
          yield 0;
        }
        default -> {
          System.err.println("medallion: unknown command '" + command + "'\n" + USAGE);
          yield 2;
        }
      };
    } catch (java.io.IOException | IllegalStateException e) {
      System.err.println("medallion " + command + ": " + e.getMessage());
      return 1;
    } catch (IllegalArgumentException e) {
      System.err.println("medallion " + command + ": " + e.getMessage());
      return 2;
    }
  }
}
