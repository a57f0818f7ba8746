package dev.medallion.generator;

import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The generator's Kafka sink: each line a record of {@code topic}, keyed by its {@code device_id}
 * (a line without one, a malformed one, has no key), its timestamp the line's arrival time (what
 * Bronze keeps as {@code received_at}). Sends are acknowledged by the broker ({@code acks=all},
 * idempotent); the first failed send stops the generator with its reason.
 */
final class KafkaSink implements AutoCloseable {
  private static final Pattern DEVICE_ID = Pattern.compile("\"device_id\"\\s*:\\s*\"([^\"]*)\"");

  private final KafkaProducer<String, String> producer;
  private final String topic;
  private final String servers;
  private final AtomicReference<Exception> failed = new AtomicReference<>();
  private final AtomicLong acknowledged = new AtomicLong();

  private KafkaSink(KafkaProducer<String, String> producer, String topic, String servers) {
    this.producer = producer;
    this.topic = topic;
    this.servers = servers;
  }

  /** A sink to {@code topic} on {@code servers}; a clear error when it is not there. */
  static KafkaSink open(String servers, String topic) {
    if (!reachable(servers)) {
      throw new IllegalStateException(
          "cannot reach Kafka at "
              + servers
              + ": start a broker with ./medallion kafka (or pass --bootstrapServers)");
    }
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, servers);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000);
    KafkaProducer<String, String> producer =
        new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    List<PartitionInfo> partitions;
    try {
      partitions = producer.partitionsFor(topic);
    } catch (TimeoutException e) {
      producer.close();
      throw new IllegalStateException(
          "Kafka at "
              + servers
              + " has no topic "
              + topic
              + " (or did not answer in 30 s): ./medallion kafka creates the pipeline's topics,"
              + " --topics others");
    }
    if (partitions == null || partitions.isEmpty()) {
      producer.close();
      throw new IllegalStateException("Kafka at " + servers + " has no topic " + topic);
    }
    return new KafkaSink(producer, topic, servers);
  }

  /** Whether one of the bootstrap servers accepts a connection within 2 s. */
  private static boolean reachable(String servers) {
    for (String server : servers.split(",")) {
      int colon = server.lastIndexOf(':');
      if (colon < 0) {
        continue;
      }
      try (java.net.Socket s = new java.net.Socket()) {
        s.connect(
            new java.net.InetSocketAddress(
                server.substring(0, colon).trim(),
                Integer.parseInt(server.substring(colon + 1).trim())),
            2000);
        return true;
      } catch (java.io.IOException | NumberFormatException e) {
        // try the next one
      }
    }
    return false;
  }

  void send(GeneratedLine line) {
    Exception e = failed.get();
    if (e != null) {
      throw new IllegalStateException(
          "Kafka at " + servers + " refused a record of " + topic + ": " + e.getMessage(), e);
    }
    producer.send(
        new ProducerRecord<>(topic, null, line.arrivalMillis(), deviceId(line.line()), line.line()),
        (metadata, error) -> {
          if (error != null) {
            failed.compareAndSet(null, error);
          } else {
            acknowledged.incrementAndGet();
          }
        });
  }

  /** Records the broker has acknowledged so far. */
  long acknowledged() {
    return acknowledged.get();
  }

  static String deviceId(String line) {
    Matcher m = DEVICE_ID.matcher(line);
    return m.find() ? m.group(1) : null;
  }

  /** Waits for every record sent to be acknowledged; the first failure, if any, as an error. */
  @Override
  public void close() {
    producer.flush();
    producer.close();
    Exception e = failed.get();
    if (e != null) {
      throw new IllegalStateException(
          "Kafka at " + servers + " refused a record of " + topic + ": " + e.getMessage(), e);
    }
  }
}
