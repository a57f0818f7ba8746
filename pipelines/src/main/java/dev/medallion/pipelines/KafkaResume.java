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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Where Bronze and Silver resume a Kafka topic: from what their tables hold, not from what the
 * consumer group last committed. A runner commits a group's offsets once it has read a bundle,
 * which can be before the files of that bundle are committed; a stage killed then would skip
 * records. So before the stage starts, each partition's resume point is its first record (from the
 * partition's start) that the stage's tables and its quarantine do not hold, and that is committed
 * to the group: for Bronze the record's own offset ({@code source} {@code
 * kafka:<topic>/<partition>#<offset>}); for Silver the Bronze row the record carries (its {@code
 * source}), found by reading the topic from its start. Records after that point which the tables
 * already hold are read again: the stage then holds them twice, under the same {@code source} (said
 * at the start and visible in the table), and Gold counts them once.
 */
final class KafkaResume {
  private KafkaResume() {}

  /** Per partition: where to resume, and how many records after it the tables hold already. */
  record Point(long offset, long again) {}

  /**
   * Commits each partition's resume point to the group of {@code o} and says it on stderr.
   *
   * @param forwards whether the stage forwards its rows to {@code --outputTopic} (Bronze; the
   *     all-in-one run does not): then it resumes early enough to forward those it never did
   * @return the resume points, by partition
   */
  static Map<Integer, Point> commitFromTables(
      KafkaOptions o, LakeTables tables, String name, boolean forwards) {
    String topic = o.getInputTopic();
    String prefix = "kafka:" + topic + "/"; // of a source KafkaReads.sourceId names
    Map<Integer, BitSet> rows = new HashMap<>();
    collect(tables, Lakehouse.BRONZE_IOT, Expressions.alwaysTrue(), prefix, rows);
    Map<Integer, BitSet> held = new HashMap<>();
    rows.forEach((partition, offsets) -> held.put(partition, (BitSet) offsets.clone()));
    collect(
        tables,
        Lakehouse.QUARANTINE_IOT,
        Expressions.equal("stage", DeadLetter.BRONZE),
        prefix,
        held);
    try (KafkaConsumer<byte[], byte[]> consumer = consumer(o, "bronze")) {
      List<TopicPartition> partitions = partitions(consumer, o);
      Map<TopicPartition, Long> starts = consumer.beginningOffsets(partitions);
      sameTopic(o, tables, held, consumer.endOffsets(partitions));
      Map<Integer, BitSet> unforwarded =
          forwards && !o.getOutputTopic().isEmpty() ? unforwarded(o, prefix, rows) : Map.of();
      Map<Integer, Point> points = new TreeMap<>();
      long toForward = 0;
      for (TopicPartition tp : partitions) {
        BitSet offsets = held.getOrDefault(tp.partition(), new BitSet());
        int start = (int) Math.min(starts.getOrDefault(tp, 0L), Integer.MAX_VALUE);
        long resume = offsets.nextClearBit(start);
        BitSet gap = unforwarded.getOrDefault(tp.partition(), new BitSet());
        int firstGap = gap.nextSetBit(start);
        if (firstGap >= 0 && firstGap < resume) {
          resume = firstGap;
        }
        toForward += gap.get(start, Math.max(start, gap.length())).cardinality();
        long again =
            offsets.get((int) resume, Math.max((int) resume, offsets.length())).cardinality();
        points.put(tp.partition(), new Point(resume, again));
      }
      commit(consumer, topic, points);
      say(name, topic, points, "Bronze or its quarantine");
      sayUnforwarded(name, "Bronze", topic, o.getOutputTopic(), toForward);
      return points;
    }
  }

  /**
   * Per partition of the input topic, the offsets of the Bronze rows ({@code rows}) that are not on
   * the output topic: a run killed after a flush committed rows and before it forwarded them, or a
   * run without {@code --outputTopic}, left them out of the topic, and the next stage reads only
   * the topic. Found by reading the output topic from its start, as Silver does when it starts.
   * Only rows from the partition's cut-off on count: the latest, over the output topic's
   * partitions, of the first of the partition's rows each holds. Before it, forwarding had not
   * started, or retention (which drops each output partition's oldest records at its own time) may
   * have dropped rows that were forwarded.
   */
  private static Map<Integer, BitSet> unforwarded(
      KafkaOptions o, String prefix, Map<Integer, BitSet> rows) {
    Map<Integer, BitSet> sent = new HashMap<>();
    // per input partition, per output partition: the first (lowest) offset of the rows it holds
    Map<Integer, Map<Integer, Long>> firsts = new HashMap<>();
    eachForwarded(
        o,
        (source, outputPartition) -> {
          long[] at = partitionAndOffset(source, prefix);
          if (at != null) {
            int partition = (int) at[0];
            sent.computeIfAbsent(partition, k -> new BitSet()).set((int) at[1]);
            firsts
                .computeIfAbsent(partition, k -> new HashMap<>())
                .merge(outputPartition, at[1], Math::min);
          }
        });
    Map<Integer, BitSet> gaps = new HashMap<>();
    sent.forEach(
        (partition, on) -> {
          long cut = java.util.Collections.max(firsts.get(partition).values());
          BitSet gap = (BitSet) rows.getOrDefault(partition, new BitSet()).clone();
          gap.andNot(on);
          gap.clear(0, (int) cut);
          if (!gap.isEmpty()) {
            gaps.put(partition, gap);
          }
        });
    return gaps;
  }

  /**
   * The {@code source} of each row on the stage's output topic ({@code --outputTopic}), with the
   * topic partition it is in, read from its start with a consumer that commits nothing.
   */
  private static void eachForwarded(
      KafkaOptions o, java.util.function.ObjIntConsumer<String> each) {
    try (KafkaConsumer<byte[], byte[]> consumer = consumer(o, "forwarded")) {
      List<PartitionInfo> infos =
          consumer.partitionsFor(o.getOutputTopic(), Duration.ofSeconds(20));
      if (infos == null) {
        return;
      }
      List<TopicPartition> partitions = new ArrayList<>();
      infos.forEach(i -> partitions.add(new TopicPartition(o.getOutputTopic(), i.partition())));
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
      while (partitions.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
        for (var r : consumer.poll(Duration.ofSeconds(1))) {
          if (r.value() != null) {
            String source = sourceOf(r.value(), "");
            if (!source.isEmpty()) {
              each.accept(source, r.partition());
            }
          }
        }
      }
    }
  }

  /** The Bronze table's property that keeps the id of the topic it read under a name. */
  static final String TOPIC_ID = "medallion.kafka.topic-id.";

  /**
   * Refuses a topic that is not the one Bronze read under its name: Bronze names a record by topic,
   * partition and offset, and a topic deleted and created again (or another cluster's) numbers its
   * records from 0 again, so Bronze resumed after the offsets it held and skipped the new topic's
   * first records without a word (tried: 225,480 of 300,000). Kafka gives each topic an id when it
   * is created; Bronze keeps the id of the topic it reads in its table's properties and compares it
   * at every start. For a topic it read before it kept ids (or a broker without them), a partition
   * whose held offsets pass the partition's end tells the same.
   */
  private static void sameTopic(
      KafkaOptions o,
      LakeTables tables,
      Map<Integer, BitSet> held,
      Map<TopicPartition, Long> ends) {
    String topic = o.getInputTopic();
    String id = topicId(o);
    Table bronze = tables.table(Catalog.byPath(Lakehouse.BRONZE_IOT));
    String kept = bronze.properties().get(TOPIC_ID + topic);
    String why = null;
    if (kept != null && id != null && !kept.equals(id)) {
      why = "its id was " + kept + " and is " + id;
    }
    for (Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
      BitSet offsets = held.get(end.getKey().partition());
      if (why == null && offsets != null && offsets.length() > end.getValue()) {
        why =
            "Bronze holds its record "
                + end.getKey().partition()
                + "#"
                + (offsets.length() - 1)
                + ", and that partition ends at "
                + end.getValue();
      }
    }
    if (why != null) {
      throw new IllegalArgumentException(
          "Kafka topic "
              + topic
              + " on "
              + o.getBootstrapServers()
              + " is not the topic Bronze read under that name ("
              + why
              + "): it was deleted and created again, or is another cluster's. Bronze names a"
              + " record by its topic, partition and offset, and this topic numbers its records"
              + " from 0 again, so Bronze would skip some and give others the name of a record it"
              + " holds. Read it into another lakehouse (--lakehouse), or under another topic"
              + " name");
    }
    if (id != null && !id.equals(kept)) {
      LakeTables.whenNotBusy(
          () -> {
            bronze.refresh();
            bronze.updateProperties().set(TOPIC_ID + topic, id).commit();
            return null;
          });
    }
  }

  /** The id Kafka gave the input topic when it was created; null from a broker without ids. */
  private static @Nullable String topicId(KafkaOptions o) {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, o.getBootstrapServers());
    try (Admin admin = Admin.create(p)) {
      Uuid id =
          admin
              .describeTopics(List.of(o.getInputTopic()))
              .allTopicNames()
              .get(20, TimeUnit.SECONDS)
              .get(o.getInputTopic())
              .topicId();
      return id == null || Uuid.ZERO_UUID.equals(id) ? null : id.toString();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while asking Kafka for a topic's id", e);
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException(
          "Kafka at "
              + o.getBootstrapServers()
              + " did not describe topic "
              + o.getInputTopic()
              + ": "
              + e.getMessage(),
          e);
    }
  }

  /**
   * Where Silver resumes the topic Bronze forwards to: each partition's first record whose Bronze
   * row ({@code source}; for a record that is no Bronze row, its own topic, partition and offset)
   * neither Silver nor Silver's quarantine holds, found by reading the topic from its start (the
   * offsets of that topic are not in Silver's rows). Committed to Silver's group and said.
   */
  static Map<Integer, Point> commitFromSilver(KafkaOptions o, LakeTables tables, String name) {
    String topic = o.getInputTopic();
    java.util.Set<String> held = new java.util.HashSet<>();
    java.util.Set<String> rows = new java.util.HashSet<>(); // readings and heartbeats
    for (String path : List.of(Lakehouse.SILVER_READINGS, Lakehouse.SILVER_HEARTBEATS)) {
      sources(tables, path, Expressions.alwaysTrue(), rows::add);
    }
    held.addAll(rows);
    sources(
        tables, Lakehouse.QUARANTINE_IOT, Expressions.equal("stage", DeadLetter.SILVER), held::add);
    if (held.isEmpty()) {
      return Map.of(); // a first run: the group's offsets, else the start
    }
    // What the output topic holds (each row's source, with its partition there), to forward the
    // rows a run committed and never forwarded, as Bronze does (see unforwarded); null when the
    // stage does not forward.
    Map<String, Integer> forwarded = null;
    if (!o.getOutputTopic().isEmpty()) {
      Map<String, Integer> on = new HashMap<>();
      eachForwarded(o, on::putIfAbsent);
      forwarded = on;
    }
    java.util.Set<String> toForward = new java.util.HashSet<>();
    try (KafkaConsumer<byte[], byte[]> consumer = consumer(o, "silver")) {
      List<TopicPartition> partitions = partitions(consumer, o);
      Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
      Map<Integer, Point> points = new TreeMap<>();
      for (TopicPartition tp : partitions) {
        long end = ends.getOrDefault(tp, 0L);
        consumer.assign(List.of(tp));
        consumer.seekToBeginning(List.of(tp));
        long firstNew = -1; // the first record neither Silver nor its quarantine holds
        BitSet heldAt = new BitSet();
        // per partition of the output topic, the first record here whose row it holds; and the
        // rows Silver holds that are not there, by offset here
        Map<Integer, Long> firstOn = new HashMap<>();
        TreeMap<Long, String> missing = new TreeMap<>();
        while (consumer.position(tp) < end) {
          for (var r : consumer.poll(Duration.ofSeconds(1))) {
            String id = KafkaReads.sourceId(topic, r.partition(), r.offset());
            String source = r.value() == null ? id : sourceOf(r.value(), id);
            if (held.contains(source) || held.contains(id)) {
              heldAt.set((int) r.offset());
            } else if (firstNew < 0) {
              firstNew = r.offset();
            }
            if (forwarded != null && rows.contains(source)) {
              Integer there = forwarded.get(source);
              if (there != null) {
                firstOn.putIfAbsent(there, r.offset());
              } else {
                missing.put(r.offset(), source);
              }
            }
          }
        }
        long resume = firstNew < 0 ? end : firstNew;
        if (!firstOn.isEmpty()) {
          long cut = java.util.Collections.max(firstOn.values());
          for (Map.Entry<Long, String> m : missing.tailMap(cut, true).entrySet()) {
            resume = Math.min(resume, m.getKey());
            toForward.add(m.getValue());
          }
        }
        long again =
            heldAt.get((int) resume, Math.max((int) resume, heldAt.length())).cardinality();
        points.put(tp.partition(), new Point(resume, again));
      }
      commit(consumer, topic, points);
      say(name, topic, points, "Silver or its quarantine");
      sayUnforwarded(name, "Silver", topic, o.getOutputTopic(), toForward.size());
      return points;
    }
  }

  /** Says how many rows a stage committed and never forwarded, when there are any. */
  private static void sayUnforwarded(
      String name, String layer, String topic, String outputTopic, long rows) {
    if (rows > 0) {
      System.err.println(
          name
              + ": "
              + rows
              + " "
              + layer
              + " row(s) of "
              + topic
              + " were committed but never forwarded to "
              + outputTopic
              + " (a run killed between the two, or one without --outputTopic): they are read"
              + " again from the points above, and forwarded");
    }
  }

  private static final java.util.regex.Pattern SOURCE =
      java.util.regex.Pattern.compile("\"source\":\"([^\"]*)\"");

  /** The {@code source} of a forwarded Bronze row, or {@code otherwise}. */
  private static String sourceOf(byte[] value, String otherwise) {
    java.util.regex.Matcher m =
        SOURCE.matcher(new String(value, java.nio.charset.StandardCharsets.UTF_8));
    return m.find() ? m.group(1) : otherwise;
  }

  /** A consumer in the stage's group that commits nothing by itself. */
  static KafkaConsumer<byte[], byte[]> consumer(KafkaOptions o, String stage) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, o.getBootstrapServers());
    p.put(ConsumerConfig.GROUP_ID_CONFIG, KafkaReads.group(o, stage));
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "20000");
    p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 8 << 20);
    return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  /** The input topic's partitions; a clear error when the topic does not exist. */
  static List<TopicPartition> partitions(KafkaConsumer<byte[], byte[]> consumer, KafkaOptions o) {
    String topic = o.getInputTopic();
    List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofSeconds(20));
    if (infos == null || infos.isEmpty()) {
      throw new IllegalArgumentException(
          "Kafka topic " + topic + " does not exist on " + o.getBootstrapServers());
    }
    List<TopicPartition> partitions = new ArrayList<>();
    infos.forEach(i -> partitions.add(new TopicPartition(topic, i.partition())));
    return partitions;
  }

  private static void commit(
      KafkaConsumer<byte[], byte[]> consumer, String topic, Map<Integer, Point> points) {
    Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
    points.forEach(
        (partition, point) ->
            commit.put(
                new TopicPartition(topic, partition),
                new OffsetAndMetadata(point.offset(), "medallion: resumed from the tables")));
    consumer.assign(commit.keySet());
    consumer.commitSync(commit);
  }

  private static void say(String name, String topic, Map<Integer, Point> points, String tables) {
    long again = points.values().stream().mapToLong(Point::again).sum();
    StringBuilder said = new StringBuilder(name + ": resuming " + topic + " from the tables at");
    points.forEach(
        (partition, point) ->
            said.append(" ").append(partition).append("#").append(point.offset()));
    if (again > 0) {
      said.append("; ")
          .append(again)
          .append(" record(s) after those points are in ")
          .append(tables)
          .append(
              " already and will be there twice, under the same source (Gold counts them once)");
    }
    System.err.println(said);
  }

  private static void collect(
      LakeTables tables, String path, Expression filter, String prefix, Map<Integer, BitSet> held) {
    sources(
        tables,
        path,
        Expressions.and(filter, Expressions.startsWith("source", prefix)),
        source -> {
          long[] at = partitionAndOffset(source, prefix);
          if (at != null) {
            held.computeIfAbsent((int) at[0], k -> new BitSet()).set((int) at[1]);
          }
        });
  }

  /**
   * The partition and offset a source {@code kafka:<topic>/<partition>#<offset>} ({@link
   * KafkaReads#sourceId}) names, when it starts with {@code prefix} ({@code kafka:<topic>/}); else
   * null.
   */
  private static long @Nullable [] partitionAndOffset(String source, String prefix) {
    int hash = source.lastIndexOf('#');
    if (!source.startsWith(prefix) || hash <= prefix.length()) {
      return null;
    }
    return new long[] {
      Integer.parseInt(source.substring(prefix.length(), hash)),
      Long.parseLong(source.substring(hash + 1))
    };
  }

  /** Each {@code source} of the rows of table {@code path} that match {@code filter}. */
  private static void sources(
      LakeTables tables, String path, Expression filter, java.util.function.Consumer<String> each) {
    Catalog.Table def = Catalog.byPath(path);
    if (tables.files(def).isEmpty()) {
      return;
    }
    Table table = tables.table(def);
    try (CloseableIterable<Record> rows =
        IcebergGenerics.read(table).select("source").where(filter).build()) {
      for (Record r : rows) {
        each.accept((String) r.getField("source"));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the sources of " + def.name(), e);
    }
  }
}
