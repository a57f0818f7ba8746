package dev.medallion.pipelines;

import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The topics a stage reads ({@code --inputTopic}) and forwards to ({@code --outputTopic}) exist
 * before its job starts. Without the check, a stage forwarding to a topic its broker does not have
 * (and does not create by itself) read its first bundle and then waited in Kafka's producer for
 * that topic, forever, printing {@code out 0 rec/s}.
 */
final class KafkaTopics {
  private KafkaTopics() {}

  /** How long the broker may take to answer. */
  static final Duration ANSWER = Duration.ofSeconds(20);

  /**
   * Throws a one-line {@link IllegalArgumentException} for a topic of {@code o} that does not
   * exist, an {@link IllegalStateException} when the broker does not answer.
   *
   * @param reads whether the stage reads {@code --inputTopic}
   * @param forwards whether the stage forwards to {@code --outputTopic} (when one is given)
   */
  static void requireExisting(KafkaOptions o, boolean reads, boolean forwards) {
    if (reads) {
      require(o, o.getInputTopic(), "--inputTopic");
    }
    if (forwards && !o.getOutputTopic().isEmpty()) {
      require(o, o.getOutputTopic(), "--outputTopic");
    }
  }

  /**
   * Looks {@code topic} up as Kafka's clients do: a broker that creates topics on first use ({@code
   * auto.create.topics.enable}) creates it now, as it would on the stage's first read or write; one
   * that does not (the repository's broker) has to have it.
   */
  private static void require(KafkaOptions o, String topic, String flag) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, o.getBootstrapServers());
    p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) ANSWER.toMillis());
    List<PartitionInfo> partitions;
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      partitions = consumer.partitionsFor(topic, ANSWER);
    } catch (TimeoutException e) {
      throw new IllegalStateException(
          "Kafka at "
              + o.getBootstrapServers()
              + " did not answer in "
              + ANSWER.toSeconds()
              + " s (is a broker running there? ./medallion kafka starts one)");
    }
    if (partitions == null || partitions.isEmpty()) {
      throw new IllegalArgumentException(
          "Kafka topic "
              + topic
              + " ("
              + flag
              + ") does not exist on "
              + o.getBootstrapServers()
              + " (./medallion kafka creates iot-raw, iot-bronze and iot-silver, and others with"
              + " --topics; on another broker, create it with its tools first)");
    }
  }
}
