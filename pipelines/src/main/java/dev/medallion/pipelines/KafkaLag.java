package dev.medallion.pipelines;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * What a Kafka-fed stage's progress line asks its broker: whether the stage's topics ({@code
 * --inputTopic}, and {@code --outputTopic} when it forwards) still exist, and how far its consumer
 * group is behind its input topic (the records between the offsets the group has committed and the
 * end of each partition). Each answer is waited for a second at most, so the line never waits.
 */
final class KafkaLag implements AutoCloseable {
  private final Admin admin;
  private final String servers;
  private final String topic;
  private final String group;

  /** The stage's topics, each with its flag, the input topic first. */
  private final Map<String, String> topics = new LinkedHashMap<>();

  /** The id each topic had when it was first seen. */
  private final Map<String, org.apache.kafka.common.Uuid> ids = new HashMap<>();

  /**
   * What the broker said: nothing ({@code answered} false), or the topics it lacks, those that have
   * another id than before (deleted and created again between two looks, or at once by a broker
   * that creates topics on first use), and the lag.
   */
  record Look(boolean answered, List<String> missing, List<String> recreated, @Nullable Long lag) {}

  KafkaLag(String servers, String topic, String outputTopic, String group) {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, servers);
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2000);
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 2000);
    this.admin = Admin.create(p);
    this.servers = servers;
    this.topic = topic;
    this.group = group;
    topics.put(topic, "--inputTopic");
    if (!outputTopic.isEmpty()) {
      topics.putIfAbsent(outputTopic, "--outputTopic");
    }
  }

  /** The flag that named {@code t}. */
  String flag(String t) {
    return topics.getOrDefault(t, "");
  }

  String inputTopic() {
    return topic;
  }

  Look look() {
    try {
      Map<String, KafkaFuture<TopicDescription>> described =
          admin.describeTopics(List.copyOf(topics.keySet())).topicNameValues();
      List<String> missing = new ArrayList<>();
      List<String> recreated = new ArrayList<>();
      TopicDescription input = null;
      for (String t : topics.keySet()) {
        try {
          TopicDescription d = described.get(t).get(1, TimeUnit.SECONDS);
          input = t.equals(topic) ? d : input;
          org.apache.kafka.common.Uuid before = ids.put(t, d.topicId());
          if (before != null && !before.equals(d.topicId())) {
            recreated.add(t);
          }
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
            return new Look(false, List.of(), List.of(), null);
          }
          missing.add(t); // its id stays: back under another, it was created again
        }
      }
      return new Look(true, missing, recreated, input == null ? null : lag(input));
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      return new Look(false, List.of(), List.of(), null);
    }
  }

  /** The group's lag on {@code input}; null when it cannot be had within a second or two. */
  private @Nullable Long lag(TopicDescription input) {
    try {
      Map<TopicPartition, OffsetAndMetadata> committed =
          admin
              .listConsumerGroupOffsets(group)
              .partitionsToOffsetAndMetadata()
              .get(1, TimeUnit.SECONDS);
      Map<TopicPartition, OffsetSpec> ends = new HashMap<>();
      input
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
