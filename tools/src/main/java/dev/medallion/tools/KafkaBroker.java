package dev.medallion.tools;

import dev.medallion.core.MedallionException;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * A single-node Kafka broker (KRaft: broker and controller in one process) in a JVM of its own, run
 * from Kafka's own jars ({@code broker/target/kafka/lib}, copied there by the build from Maven
 * Central). Its data folder survives a restart: it is formatted once, with a new cluster id, and a
 * broker started again on it has its topics, records and consumer offsets. Used by {@code medallion
 * kafka} and by the tests, each on its own folder and ports.
 */
public final class KafkaBroker implements AutoCloseable {
  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

  private final Process process;
  private final int port;
  private final Path log;

  private KafkaBroker(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
  }

  /**
   * Starts a broker on {@code dir} (created, and formatted when new) listening on 127.0.0.1:{@code
   * port} for clients and {@code controllerPort} for its controller (0: a free port), and waits
   * until it answers. Its output goes to {@code dir/broker.log}.
   */
  public static KafkaBroker start(Path dir, int port, int controllerPort) throws IOException {
    Path libs = libs();
    int clientPort = port == 0 ? freePort() : port;
    int quorumPort = controllerPort == 0 ? freePort() : controllerPort;
    Files.createDirectories(dir);
    Path data = dir.resolve("data").toAbsolutePath();
    Path config = dir.resolve("server.properties");
    Files.writeString(config, serverProperties(data, clientPort, quorumPort));
    Path log = dir.resolve("broker.log");
    if (!Files.exists(data.resolve("meta.properties"))) {
      format(libs, config, log);
    }
    Process p =
        new ProcessBuilder(java(libs, "kafka.Kafka", config.toString()))
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    KafkaBroker broker = new KafkaBroker(p, clientPort, log);
    broker.awaitReady();
    return broker;
  }

  /** {@code host:port} for clients. */
  public String bootstrapServers() {
    return "127.0.0.1:" + port;
  }

  public Path log() {
    return log;
  }

  /** Creates each topic (name → partitions) that does not exist yet. */
  public void createTopics(Map<String, Integer> topics) {
    try (Admin admin = admin()) {
      List<NewTopic> wanted = new ArrayList<>();
      topics.forEach((name, partitions) -> wanted.add(new NewTopic(name, partitions, (short) 1)));
      admin
          .createTopics(wanted)
          .values()
          .forEach(
              (name, created) -> {
                try {
                  created.get(60, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                  if (!(e.getCause() instanceof TopicExistsException)) {
                    throw new MedallionException(
                        "cannot create topic " + name + ": " + e.getCause().getMessage(), e);
                  }
                } catch (Exception e) {
                  throw new MedallionException("cannot create topic " + name + ": " + e, e);
                }
              });
    }
  }

  /** Whether the broker's process still runs. */
  public boolean isAlive() {
    return process.isAlive();
  }

  /** Waits until the broker's process ends; its exit code. */
  public int waitFor() throws InterruptedException {
    return process.waitFor();
  }

  Admin admin() {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000);
    return Admin.create(p);
  }

  /** Waits until the port accepts connections (quietly), then until the broker has joined. */
  private void awaitReady() throws IOException {
    Instant deadline = Instant.now().plus(START_TIMEOUT);
    while (true) {
      if (!process.isAlive()) {
        throw new MedallionException("the Kafka broker did not start; its log:\n" + tail(log));
      }
      if (accepts()) {
        try (Admin admin = admin()) {
          if (!admin.describeCluster().nodes().get(10, TimeUnit.SECONDS).isEmpty()) {
            return;
          }
        } catch (Exception e) {
          // listening, not serving yet
        }
      }
      if (Instant.now().isAfter(deadline)) {
        process.destroyForcibly();
        throw new MedallionException(
            "the Kafka broker did not answer within " + START_TIMEOUT + "; its log:\n" + tail(log));
      }
      try {
        Thread.sleep(500);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new MedallionException("interrupted while the Kafka broker started", e);
      }
    }
  }

  private boolean accepts() {
    try (java.net.Socket socket = new java.net.Socket()) {
      socket.connect(new java.net.InetSocketAddress("127.0.0.1", port), 500);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** Stops the broker the way Ctrl-C does (a controlled shutdown), forcibly after 30 s. */
  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  /** Stops it as a crash would ({@code kill -9}). */
  public void kill() throws InterruptedException {
    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
  }

  static String serverProperties(Path data, int port, int controllerPort) {
    return String.join(
        "\n",
        "# Written by medallion kafka at each start: one node, broker and controller (KRaft).",
        "process.roles=broker,controller",
        "node.id=1",
        "controller.quorum.voters=1@127.0.0.1:" + controllerPort,
        "listeners=PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort,
        "advertised.listeners=PLAINTEXT://127.0.0.1:" + port,
        "controller.listener.names=CONTROLLER",
        "inter.broker.listener.name=PLAINTEXT",
        "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
        "log.dirs=" + data.toString().replace('\\', '/'),
        "num.partitions=4",
        "offsets.topic.replication.factor=1",
        "transaction.state.log.replication.factor=1",
        "transaction.state.log.min.isr=1",
        "group.initial.rebalance.delay.ms=0",
        // records are kept until deleted by hand (their times are event-time replays, not now)
        "log.retention.ms=-1",
        // a topic is created on purpose (medallion kafka --topics), never by a typo
        "auto.create.topics.enable=false",
        // a record of up to 8 MB (the tests send a 5 MB value)
        "message.max.bytes=8388608",
        "replica.fetch.max.bytes=8388608",
        "");
  }

  /** Formats a new data folder with a new cluster id ({@code kafka-storage.sh format}). */
  private static void format(Path libs, Path config, Path log) throws IOException {
    Process p =
        new ProcessBuilder(
                java(
                    libs,
                    "kafka.tools.StorageTool",
                    "format",
                    "--cluster-id",
                    clusterId(),
                    "--config",
                    config.toString()))
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    try {
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        p.destroyForcibly();
        throw new MedallionException("cannot format the Kafka data folder; the log:\n" + tail(log));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new MedallionException("interrupted while formatting the Kafka data folder", e);
    }
  }

  /** A cluster id as Kafka makes them: 16 random bytes, URL-safe Base64, not starting with '-'. */
  static String clusterId() {
    SecureRandom random = new SecureRandom();
    while (true) {
      byte[] b = new byte[16];
      random.nextBytes(b);
      String id = Base64.getUrlEncoder().withoutPadding().encodeToString(b);
      if (!id.startsWith("-")) {
        return id;
      }
    }
  }

  private static List<String> java(Path libs, String main, String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx1g");
    cmd.add("-cp");
    cmd.add(libs.toAbsolutePath() + java.io.File.separator + "*");
    cmd.add(main);
    cmd.addAll(List.of(args));
    return cmd;
  }

  /** Kafka's jars, copied by the build into {@code broker/target/kafka/lib}. */
  static Path libs() throws IOException {
    String property = System.getProperty("medallion.kafka.libs");
    Path libs = Path.of(property != null ? property : "broker/target/kafka/lib");
    boolean present;
    try (Stream<Path> jars = Files.exists(libs) ? Files.list(libs) : Stream.empty()) {
      present = jars.anyMatch(f -> f.getFileName().toString().startsWith("kafka_2.13-"));
    }
    if (!present) {
      throw new MedallionException(
          "Kafka's jars are not in "
              + libs
              + ": build once with mvn -B -q -DskipTests package (it copies them there)");
    }
    return libs;
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    } catch (IOException e) {
      return "(cannot read " + log + ")";
    }
  }
}
