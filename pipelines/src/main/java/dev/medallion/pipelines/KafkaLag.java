package dev.medallion.pipelines;

import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * How far a stage's consumer group is behind its topic: the records between the offsets the group
 * has committed and the end of each partition, for the progress line. Null when the broker does not
 * answer within a second (the line then shows no lag rather than waiting).
 */
final class KafkaLag implements AutoCloseable {
  private final Admin admin;
  private final String servers;
  private final String topic;
  private final String group;

  KafkaLag(String servers, String topic, String group) {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, servers);
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2000);
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 2000);
    this.admin = Admin.create(p);
    this.servers = servers;
    this.topic = topic;
    this.group = group;
  }

  Long records() {
    try {
      Map<TopicPartition, OffsetAndMetadata> committed =
          admin
              .listConsumerGroupOffsets(group)
              .partitionsToOffsetAndMetadata()
              .get(1, TimeUnit.SECONDS);
      Map<TopicPartition, OffsetSpec> ends = new HashMap<>();
      admin
          .describeTopics(java.util.List.of(topic))
          .allTopicNames()
          .get(1, TimeUnit.SECONDS)
          .get(topic)
          .partitions()
          .forEach(p -> ends.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
      Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> end =
          admin.listOffsets(ends).all().get(1, TimeUnit.SECONDS);
      long lag = 0;
      for (Map.Entry<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> e : end.entrySet()) {
        OffsetAndMetadata at = committed.get(e.getKey());
        lag += e.getValue().offset() - (at == null ? 0 : at.offset());
      }
      return lag;
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      return null;
    }
  }

  String servers() {
    return servers;
  }

  @Override
  public void close() {
    admin.close(java.time.Duration.ofSeconds(1));
  }
}
