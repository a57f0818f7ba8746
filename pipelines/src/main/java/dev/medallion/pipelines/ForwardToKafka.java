package dev.medallion.pipelines;

import org.apache.beam.sdk.io.kafka.KafkaIO;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.transforms.ToJson;
import org.apache.beam.sdk.transforms.WithKeys;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PDone;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Forwards a layer's records to a Kafka topic for the next stage: each record as one JSON object
 * (its table row, Beam's {@link ToJson}), keyed by {@code key} (the device id, so a device's
 * records stay in one partition, in order). At least once: a retried bundle sends its records
 * again, which the next stage's dedupe absorbs.
 */
public final class ForwardToKafka<T> extends PTransform<PCollection<T>, PDone> {
  private final String servers;
  private final String topic;
  private final SerializableFunction<String, String> key;

  private ForwardToKafka(String servers, String topic, SerializableFunction<String, String> key) {
    this.servers = servers;
    this.topic = topic;
    this.key = key;
  }

  /** To {@code topic} on {@code servers}, each record keyed by {@code key} of its JSON. */
  public static <T> ForwardToKafka<T> to(
      String servers, String topic, SerializableFunction<String, String> key) {
    return new ForwardToKafka<>(servers, topic, key);
  }

  @Override
  public PDone expand(PCollection<T> records) {
    return records
        .apply("ToJson", ToJson.of())
        .apply("KeyByDevice", WithKeys.of(key).withKeyType(TypeDescriptors.strings()))
        .apply(
            "WriteKafka " + topic,
            KafkaIO.<String, String>write()
                .withBootstrapServers(servers)
                .withTopic(topic)
                .withKeySerializer(StringSerializer.class)
                .withValueSerializer(StringSerializer.class));
  }

  private static final java.util.regex.Pattern DEVICE_ID =
      java.util.regex.Pattern.compile("\"device_id\"\\s*:\\s*\"([^\"]*)\"");

  /** The {@code device_id} of a JSON record, or null. */
  public static String deviceId(String json) {
    java.util.regex.Matcher m = DEVICE_ID.matcher(json);
    return m.find() ? m.group(1) : null;
  }
}
