package dev.medallion.pipelines;

import dev.medallion.core.DeadLetter;
import dev.medallion.lakehouse.Catalog;
import dev.medallion.lakehouse.LakeTables;
import dev.medallion.lakehouse.Lakehouse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Where Bronze resumes a Kafka topic: from what its tables hold, not from what the consumer group
 * last committed. A runner commits a group's offsets once it has read a bundle, which can be before
 * the Bronze files of that bundle are committed; a stage killed then would skip records. So before
 * Bronze starts, each partition's resume point is its first offset (from the partition's start)
 * that neither Bronze nor Bronze's quarantine holds ({@code source} {@code
 * kafka:<topic>/<partition>#<offset>}), and that is committed to the group. Records after that
 * point which the tables already hold are read again: Bronze then has them twice, under the same
 * {@code source} (said at the start and visible in the table), and Gold counts them once.
 */
final class KafkaResume {
  private KafkaResume() {}

  /** Per partition: where to resume, and how many records after it the tables hold already. */
  record Point(long offset, long again) {}

  /**
   * Commits each partition's resume point to the group of {@code o} and says it on stderr.
   *
   * @return the resume points, by partition
   */
  static Map<Integer, Point> commitFromTables(KafkaOptions o, LakeTables tables, String name) {
    String topic = o.getInputTopic();
    Map<Integer, BitSet> held = held(tables, topic);
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, o.getBootstrapServers());
    p.put(ConsumerConfig.GROUP_ID_CONFIG, KafkaReads.group(o, "bronze"));
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "20000");
    Map<Integer, Point> points = new TreeMap<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofSeconds(20));
      if (infos == null || infos.isEmpty()) {
        throw new IllegalArgumentException(
            "Kafka topic " + topic + " does not exist on " + o.getBootstrapServers());
      }
      List<TopicPartition> partitions = new ArrayList<>();
      infos.forEach(i -> partitions.add(new TopicPartition(topic, i.partition())));
      Map<TopicPartition, Long> starts = consumer.beginningOffsets(partitions);
      Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
      for (TopicPartition tp : partitions) {
        BitSet offsets = held.getOrDefault(tp.partition(), new BitSet());
        long start = starts.getOrDefault(tp, 0L);
        long resume = offsets.nextClearBit((int) Math.min(start, Integer.MAX_VALUE));
        long again = offsets.get((int) resume, offsets.length()).cardinality();
        points.put(tp.partition(), new Point(resume, again));
        commit.put(tp, new OffsetAndMetadata(resume, "medallion: resumed from the tables"));
      }
      consumer.assign(partitions);
      consumer.commitSync(commit);
    }
    long again = points.values().stream().mapToLong(Point::again).sum();
    StringBuilder said = new StringBuilder(name + ": resuming " + topic + " from the tables at");
    points.forEach(
        (partition, point) ->
            said.append(" ").append(partition).append("#").append(point.offset()));
    if (again > 0) {
      said.append("; ")
          .append(again)
          .append(
              " record(s) after those points are in Bronze or its quarantine already and will"
                  + " be there twice, under the same source (Gold counts them once)");
    }
    System.err.println(said);
    return points;
  }

  /** The offsets of {@code topic} Bronze and its quarantine hold, by partition. */
  static Map<Integer, BitSet> held(LakeTables tables, String topic) {
    String prefix = "kafka:" + topic + "/";
    Map<Integer, BitSet> held = new HashMap<>();
    collect(tables, Lakehouse.BRONZE_IOT, Expressions.startsWith("source", prefix), prefix, held);
    collect(
        tables,
        Lakehouse.QUARANTINE_IOT,
        Expressions.and(
            Expressions.equal("stage", DeadLetter.BRONZE),
            Expressions.startsWith("source", prefix)),
        prefix,
        held);
    return held;
  }

  private static void collect(
      LakeTables tables, String path, Expression filter, String prefix, Map<Integer, BitSet> held) {
    Catalog.Table def = Catalog.byPath(path);
    if (tables.files(def).isEmpty()) {
      return;
    }
    Table table = tables.table(def);
    try (CloseableIterable<Record> rows =
        IcebergGenerics.read(table).select("source").where(filter).build()) {
      for (Record r : rows) {
        String source = (String) r.getField("source");
        int hash = source.lastIndexOf('#');
        int partition = Integer.parseInt(source.substring(prefix.length(), hash));
        long offset = Long.parseLong(source.substring(hash + 1));
        held.computeIfAbsent(partition, k -> new BitSet()).set((int) offset);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the sources of " + def.name(), e);
    }
  }
}
