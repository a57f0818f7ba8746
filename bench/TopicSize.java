import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Prints how many records a Kafka topic holds (the sum of its partitions' end offsets less their
 * start offsets): how many records a bounded read of the whole topic must take.
 *
 * <pre>java -cp kafka-clients.jar:slf4j-api.jar:classes TopicSize host:port topic</pre>
 */
public final class TopicSize {
  public static void main(String[] args) {
    Properties p = new Properties();
    p.put("bootstrap.servers", args[0]);
    p.put("key.deserializer", ByteArrayDeserializer.class.getName());
    p.put("value.deserializer", ByteArrayDeserializer.class.getName());
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
      List<TopicPartition> parts =
          consumer.partitionsFor(args[1]).stream()
              .map(i -> new TopicPartition(i.topic(), i.partition()))
              .collect(Collectors.toList());
      Map<TopicPartition, Long> end = consumer.endOffsets(parts);
      Map<TopicPartition, Long> start = consumer.beginningOffsets(parts);
      System.out.println(parts.stream().mapToLong(t -> end.get(t) - start.get(t)).sum());
    }
  }
}
