package dev.medallion.generator;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.joda.time.Duration;
import org.joda.time.Instant;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code generate}: sensor readings and heartbeats as NDJSON, to stdout or rolling files. */
@Command(
    name = "generate",
    mixinStandardHelpOptions = true,
    description =
        "Generate sensor readings and device heartbeats as NDJSON (deterministic for a seed).")
public class Generate implements Callable<Integer> {
  @Option(
      names = "--kind",
      defaultValue = "iot",
      description =
          "iot (sensor readings and heartbeats) or users (user events) (default ${DEFAULT-VALUE}).")
  String kind;

  @Option(
      names = "--users",
      defaultValue = "1000",
      description = "users: number of users (default ${DEFAULT-VALUE}).")
  int users;

  @Option(
      names = "--days",
      defaultValue = "3",
      description = "users: days the events spread over from --start (default ${DEFAULT-VALUE}).")
  int days;

  @Option(
      names = "--missingKeysRate",
      defaultValue = "0",
      description = "users: share of events with a missing or null user_id, 0..1.")
  double missingKeys;

  @Option(
      names = "--badPriceRate",
      defaultValue = "0",
      description = "users: share of events whose price is a string, 0..1.")
  double badPrice;

  @Option(
      names = "--seed",
      defaultValue = "42",
      description = "Random seed (default ${DEFAULT-VALUE}).")
  long seed;

  @Option(
      names = "--generatorDevices",
      defaultValue = "20",
      description = "Number of devices (default ${DEFAULT-VALUE}).")
  int devices;

  @Option(
      names = "--start",
      defaultValue = "2026-11-29T10:00:00Z",
      description = "Event time of the first event (default ${DEFAULT-VALUE}).")
  String start;

  @Option(
      names = "--intervalSeconds",
      defaultValue = "5",
      description =
          "Event-time seconds between two readings of a device (default ${DEFAULT-VALUE}).")
  int intervalSeconds;

  @Option(
      names = "--durationMinutes",
      defaultValue = "10",
      description = "Minutes of event time to generate (default ${DEFAULT-VALUE}).")
  int durationMinutes;

  @Option(
      names = "--count",
      defaultValue = "0",
      description = "Stop after this many lines; 0 = no limit (default ${DEFAULT-VALUE}).")
  long count;

  @Option(
      names = "--speedup",
      defaultValue = "0",
      description =
          "Emit at this many times real time; 0 = as fast as possible (default ${DEFAULT-VALUE}).")
  double speedup;

  @Option(
      names = "--out",
      defaultValue = "-",
      description =
          "'-' for stdout, or a folder for rolling files events-NNNNN.ndjson (default ${DEFAULT-VALUE}).")
  String out;

  @Option(
      names = "--sink",
      defaultValue = "auto",
      description =
          "stdout, files (--out is a folder) or kafka (--topic on --bootstrapServers); auto: what"
              + " --out says (default ${DEFAULT-VALUE}).")
  String sink;

  @Option(
      names = "--bootstrapServers",
      defaultValue = "127.0.0.1:9092",
      description =
          "kafka: the broker(s) (default ${DEFAULT-VALUE}; ./medallion kafka starts one).")
  String bootstrapServers;

  @Option(
      names = "--topic",
      defaultValue = "iot-raw",
      description =
          "kafka: the topic, one record per line keyed by device_id (default ${DEFAULT-VALUE}).")
  String topic;

  @Option(
      names = "--rate",
      defaultValue = "0",
      description =
          "Emit at most this many lines per second (wall clock); 0 = no limit (default"
              + " ${DEFAULT-VALUE}). With --speedup, the slower of the two.")
  double rate;

  @Option(
      names = "--rollLines",
      defaultValue = "10000",
      description = "Lines per rolling file (default ${DEFAULT-VALUE}).")
  long rollLines;

  @Option(names = "--registry", description = "Also write the matching device registry CSV here.")
  Path registry;

  @Option(
      names = "--malformedRate",
      defaultValue = "0",
      description = "Share of malformed lines, 0..1.")
  double malformed;

  @Option(
      names = "--duplicateRate",
      defaultValue = "0",
      description = "Share of events resent a few seconds later, 0..1.")
  double duplicates;

  @Option(
      names = "--lateRate",
      defaultValue = "0",
      description = "Share of events that arrive late, 0..1.")
  double late;

  @Option(
      names = "--lateDelaySeconds",
      defaultValue = "60",
      description = "How late a late event arrives (default ${DEFAULT-VALUE}).")
  int lateDelaySeconds;

  @Option(
      names = "--outOfRangeRate",
      defaultValue = "0",
      description = "Share of readings with an out-of-range value, 0..1.")
  double outOfRange;

  @Option(
      names = "--unknownDeviceRate",
      defaultValue = "0",
      description = "Share of events from devices not in the registry, 0..1.")
  double unknownDevices;

  @Option(
      names = "--missingHeartbeatRate",
      defaultValue = "0",
      description = "Share of heartbeats that are never sent, 0..1.")
  double missingHeartbeats;

  public GeneratorConfig config() {
    for (double rate :
        new double[] {malformed, duplicates, late, outOfRange, unknownDevices, missingHeartbeats}) {
      if (rate < 0 || rate > 1) {
        throw new CommandLine.ParameterException(
            new CommandLine(this), "rates must be between 0 and 1, got " + rate);
      }
    }
    Instant startAt;
    try {
      startAt = Instant.parse(start);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(
          new CommandLine(this), "--start is not an ISO-8601 instant: " + start);
    }
    return GeneratorConfig.clean(seed, devices, startAt, Duration.standardMinutes(durationMinutes))
        .withInterval(Duration.standardSeconds(intervalSeconds))
        .withMaxLines(count)
        .withKnobs(
            malformed,
            duplicates,
            late,
            Duration.standardSeconds(lateDelaySeconds),
            outOfRange,
            unknownDevices,
            missingHeartbeats);
  }

  @Override
  public Integer call() throws IOException, InterruptedException {
    if (kind.equals("users")) {
      return users();
    }
    if (!kind.equals("iot")) {
      throw new CommandLine.ParameterException(
          new CommandLine(this), "--kind must be iot or users, got " + kind);
    }
    EventGenerator generator = new EventGenerator(config());
    if (registry != null) {
      Files.writeString(registry, DeviceRegistryWriter.csv(devices), StandardCharsets.UTF_8);
    }
    String to = sink.equals("auto") ? (out.equals("-") ? "stdout" : "files") : sink;
    if (!List.of("stdout", "files", "kafka").contains(to)) {
      throw new CommandLine.ParameterException(
          new CommandLine(this), "--sink must be stdout, files, kafka or auto, got " + sink);
    }
    if (rate < 0) {
      throw new CommandLine.ParameterException(
          new CommandLine(this), "--rate must be 0 (no limit) or more, got " + rate);
    }
    if (to.equals("kafka")) {
      return toKafka(generator);
    }
    long n = 0;
    long file = 0;
    Writer writer =
        out.equals("-")
            ? new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8))
            : null;
    long realStart = System.nanoTime();
    long firstArrival = Long.MIN_VALUE;
    while (generator.hasNext()) {
      GeneratedLine line = generator.next();
      if (speedup > 0) {
        if (firstArrival == Long.MIN_VALUE) {
          firstArrival = line.arrivalMillis();
        }
        long dueNanos =
            realStart + (long) ((line.arrivalMillis() - firstArrival) * 1_000_000L / speedup);
        long wait = dueNanos - System.nanoTime();
        if (wait > 0) {
          if (writer != null) {
            writer.flush();
          }
          Thread.sleep(wait / 1_000_000L, (int) (wait % 1_000_000L));
        }
      }
      if (!out.equals("-") && n % rollLines == 0) {
        if (writer != null) {
          writer.close();
        }
        Path dir = Path.of(out);
        Files.createDirectories(dir);
        writer =
            Files.newBufferedWriter(
                dir.resolve(String.format(Locale.ROOT, "events-%05d.ndjson", file++)));
      }
      writer.write(line.line());
      writer.write('\n');
      n++;
    }
    if (writer != null) {
      writer.flush();
      if (!out.equals("-")) {
        writer.close();
      }
    }
    System.err.printf(Locale.ROOT, "generated %d lines%n", n);
    return 0;
  }

  /** Every line to {@code --topic}, paced by {@code --speedup} and {@code --rate}. */
  private int toKafka(EventGenerator generator) throws InterruptedException {
    long n = 0;
    long realStart = System.nanoTime();
    long firstArrival = Long.MIN_VALUE;
    long reported = realStart;
    try (KafkaSink kafka = KafkaSink.open(bootstrapServers, topic)) {
      while (generator.hasNext()) {
        GeneratedLine line = generator.next();
        if (firstArrival == Long.MIN_VALUE) {
          firstArrival = line.arrivalMillis();
        }
        long due = realStart;
        if (speedup > 0) {
          due =
              Math.max(
                  due, realStart + (long) ((line.arrivalMillis() - firstArrival) * 1e6 / speedup));
        }
        if (rate > 0) {
          due = Math.max(due, realStart + (long) (n * 1e9 / rate));
        }
        long wait = due - System.nanoTime();
        if (wait > 0) {
          Thread.sleep(wait / 1_000_000L, (int) (wait % 1_000_000L));
        }
        kafka.send(line);
        n++;
        long now = System.nanoTime();
        if (now - reported > 5_000_000_000L) {
          System.err.printf(
              Locale.ROOT,
              "generate: %d lines sent to %s, %.0f lines/s%n",
              n,
              topic,
              n / ((now - realStart) / 1e9));
          reported = now;
        }
      }
    }
    double seconds = (System.nanoTime() - realStart) / 1e9;
    System.err.printf(
        Locale.ROOT,
        "generated %d lines to Kafka topic %s on %s (all acknowledged) in %.1f s%n",
        n,
        topic,
        bootstrapServers,
        seconds);
    return 0;
  }

  /** User events to stdout or --out as one file, as fast as possible. */
  private int users() throws IOException {
    UserEventGenerator g =
        new UserEventGenerator(
            seed,
            users,
            count > 0 ? count : 10_000,
            java.time.Instant.parse(start),
            days,
            malformed,
            duplicates,
            missingKeys,
            badPrice);
    Writer w;
    if (out.equals("-")) {
      w = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8));
    } else {
      Path dir = Path.of(out);
      Files.createDirectories(dir);
      w = Files.newBufferedWriter(dir.resolve("user-events-" + seed + ".ndjson"));
    }
    long n = 0;
    while (g.hasNext()) {
      w.write(g.next());
      w.write('\n');
      n++;
    }
    w.flush();
    if (!out.equals("-")) {
      w.close();
    }
    System.err.printf(Locale.ROOT, "generated %d lines%n", n);
    return 0;
  }

  public static void main(String[] args) {
    System.exit(new CommandLine(new Generate()).execute(args));
  }
}
