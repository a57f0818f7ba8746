package dev.medallion.tools;

import dev.medallion.pipelines.CleanStop;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code kafka}: a single-node Kafka broker for the four-terminal run, from Kafka's own jars
 * ({@link KafkaBroker}), with the pipeline's topics created; it runs until Ctrl-C, which stops it
 * cleanly. {@code --selfTest} starts it, sends a record through a topic and reads it back, and
 * stops: the check that Kafka works on this machine.
 */
@Command(
    name = "kafka",
    mixinStandardHelpOptions = true,
    description =
        "Start a single-node Kafka broker (KRaft, its own JVM, Kafka's jars from the build) with"
            + " the pipeline's topics; Ctrl-C stops it. Its data folder survives a restart.")
public class KafkaCommand implements Callable<Integer> {
  /** The topics of the four-terminal run: generator → Bronze → Silver → Gold. */
  static final List<String> TOPICS = List.of("iot-raw", "iot-bronze", "iot-silver");

  @Option(
      names = "--port",
      defaultValue = "9092",
      description = "Port for clients on 127.0.0.1; 0 for a free one (default ${DEFAULT-VALUE}).")
  int port;

  @Option(
      names = "--controllerPort",
      defaultValue = "9093",
      description = "Port of its KRaft controller; 0 for a free one (default ${DEFAULT-VALUE}).")
  int controllerPort;

  @Option(
      names = "--dir",
      defaultValue = "kafka-data",
      description =
          "Data folder (topics, records, consumer offsets; kept across restarts) and broker.log"
              + " (default ${DEFAULT-VALUE}).")
  Path dir;

  @Option(
      names = "--topics",
      split = ",",
      defaultValue = "iot-raw,iot-bronze,iot-silver",
      description = "Topics to create if missing (default ${DEFAULT-VALUE}).")
  List<String> topics;

  @Option(
      names = "--partitions",
      defaultValue = "4",
      description = "Partitions of each topic created (default ${DEFAULT-VALUE}).")
  int partitions;

  @Option(
      names = "--selfTest",
      description =
          "Start, send a record through a topic and read it back, stop; exit 0 if it works.")
  boolean selfTest;

  @Override
  public Integer call() throws Exception {
    if (partitions < 1) {
      throw new IllegalArgumentException("--partitions must be 1 or more, got " + partitions);
    }
    System.err.println(
        "kafka: starting a broker on " + dir + " (log: " + dir.resolve("broker.log") + ")");
    KafkaBroker broker = KafkaBroker.start(dir, port, controllerPort);
    Map<String, Integer> wanted = new LinkedHashMap<>();
    topics.forEach(t -> wanted.put(t, partitions));
    broker.createTopics(wanted);
    System.err.println(
        "kafka: broker on "
            + broker.bootstrapServers()
            + " (KRaft), topics "
            + String.join(", ", topics)
            + " ("
            + partitions
            + " partitions each)");
    if (selfTest) {
      try {
        String got = roundTrip(broker, topics.get(0));
        System.out.println("kafka: a record went through " + topics.get(0) + ": " + got);
        return 0;
      } finally {
        broker.close();
      }
    }
    Runtime.getRuntime().addShutdownHook(new Thread(broker::close, "stop-kafka"));
    // Ctrl-C or SIGTERM: the broker stops and the command ends with 0, not the JVM's 130 or 143.
    try (CleanStop stop =
        CleanStop.of(
            "kafka",
            "stopping the broker",
            () -> new Thread(broker::close, "stop-kafka-now").start())) {
      System.err.println("kafka: running; Ctrl-C stops it (its data stays in " + dir + ")");
      int code = broker.waitFor();
      System.err.println("kafka: the broker stopped (exit " + code + "); see " + broker.log());
      return code == 0 || code == 130 || code == 143 ? 0 : 1;
    }
  }

  /** Sends one record to {@code topic} and reads it back with a new consumer group. */
  static String roundTrip(KafkaBroker broker, String topic) throws Exception {
    String value = "medallion self-test " + UUID.randomUUID();
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
      producer
          .send(new ProducerRecord<>(topic, null, value.getBytes(StandardCharsets.UTF_8)))
          .get(30, TimeUnit.SECONDS);
    }
    Properties c = new Properties();
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    c.put(ConsumerConfig.GROUP_ID_CONFIG, "medallion-self-test-" + UUID.randomUUID());
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          String got = new String(r.value(), StandardCharsets.UTF_8);
          if (got.equals(value)) {
            return got;
          }
        }
      }
    }
    throw new IllegalStateException("the record sent to " + topic + " did not come back in 60 s");
  }
}
