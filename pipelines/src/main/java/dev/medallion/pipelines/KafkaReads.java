package dev.medallion.pipelines;

import dev.medallion.core.StreamEnd;
import java.util.Map;
import org.apache.beam.sdk.coders.ByteArrayCoder;
import org.apache.beam.sdk.coders.NullableCoder;
import org.apache.beam.sdk.io.Read;
import org.apache.beam.sdk.io.kafka.KafkaIO;
import org.apache.beam.sdk.io.kafka.KafkaRecord;
import org.apache.beam.sdk.io.kafka.KafkaSources;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.values.PBegin;
import org.apache.beam.sdk.values.PCollection;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.joda.time.Duration;

/**
 * How every Kafka-fed stage reads its topic with {@link KafkaIO}: bytes in, the consumer group's
 * committed offsets (else the earliest) as the start, offsets committed when the runner finalizes
 * what it read, and the arrival-clock watermark of {@link ArrivalWatermark}.
 */
final class KafkaReads {
  private KafkaReads() {}

  /** The consumer group of {@code stage}: {@code --consumerGroup}, else medallion-{stage}. */
  static String group(KafkaOptions o, String stage) {
    return o.getConsumerGroup().isEmpty() ? "medallion-" + stage : o.getConsumerGroup();
  }

  /**
   * Records a reader hands on together at most (see {@link ReadInBatches}); a batch holds what the
   * reader has at hand, so a stage that keeps up with its topic hands on small ones. Each batch is
   * a bundle, and the DirectRunner pays a fixed cost for every bundle of every step (it translates
   * each step to its proto again, for one): over a backlog of 1M events the three stages moved
   * 26,110 events/s end to end with 5,000 against 21,413 with 1,000; 25,063 with 20,000 (one run).
   */
  static final int BATCH = 5000;

  /**
   * The records of {@code --inputTopic}: a bounded read of {@code --maxRecords} by one reader of
   * every partition ({@link OneSplit}: split, a part of the read waited forever for its equal share
   * of the records when its partitions held fewer), else KafkaIO's unbounded source read in batches
   * of what is at hand ({@link ReadInBatches}).
   */
  static PTransform<PBegin, PCollection<KafkaRecord<byte[], byte[]>>> of(
      KafkaOptions o, String stage) {
    KafkaIO.Read<byte[], byte[]> read = configured(o, stage);
    if (o.getMaxRecords() > 0) {
      return Read.from(OneSplit.of(KafkaSources.of(read))).withMaxNumRecords(o.getMaxRecords());
    }
    return ReadInBatches.of(KafkaSources.of(read), BATCH);
  }

  static KafkaIO.Read<byte[], byte[]> configured(KafkaOptions o, String stage) {
    if (o.getDisorderSeconds() < 0
        || o.getIdleStopSeconds() < 0
        || o.getIdlePartitionSeconds() < 0
        || o.getEmptyPartitionSeconds() < 0) {
      throw new IllegalArgumentException(
          "--disorderSeconds, --idleStopSeconds, --idlePartitionSeconds and"
              + " --emptyPartitionSeconds must be 0 or more");
    }
    return KafkaIO.<byte[], byte[]>read()
        .withBootstrapServers(o.getBootstrapServers())
        .withTopic(o.getInputTopic())
        // A record may have no key (a line without device_id) or no value (a tombstone): a runner
        // that encodes the records (Spark) must take both as null.
        .withKeyDeserializerAndCoder(
            ByteArrayDeserializer.class, NullableCoder.of(ByteArrayCoder.of()))
        .withValueDeserializerAndCoder(
            ByteArrayDeserializer.class, NullableCoder.of(ByteArrayCoder.of()))
        // Kafka's calls wait 15 s at most, not 60 (KafkaIO's reader also takes it as the time a
        // partition may take to set up at its start): a reader commits what it read as it
        // closes, and a reader of a topic deleted under the stage (which then stops, see
        // Progress) waited a minute for each of its parts before the stage could end. A commit
        // that fails is made again by the next read's, and Bronze and Silver resume from their
        // tables, not from these offsets.
        .withConsumerConfigUpdates(
            Map.of(
                ConsumerConfig.GROUP_ID_CONFIG,
                group(o, stage),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "earliest",
                ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                15_000))
        .withTimestampPolicyFactory(
            ArrivalWatermark.factory(
                Duration.standardSeconds(o.getDisorderSeconds()),
                Duration.standardSeconds(o.getIdleStopSeconds()),
                Duration.standardSeconds(o.getIdlePartitionSeconds()),
                Duration.standardSeconds(o.getEmptyPartitionSeconds()),
                // A bounded read (--maxRecords) ends at the end of time, on every runner.
                o.getMaxRecords() > 0
                    ? BoundedWindow.TIMESTAMP_MAX_VALUE
                    : StreamEnd.watermark(RunnerDefaults.isSpark(o))))
        .commitOffsetsInFinalize();
  }

  /** {@code kafka:<topic>/<partition>#<offset>}, the source id of a record. */
  static String sourceId(String topic, int partition, long offset) {
    return dev.medallion.core.RawEvent.sourceId("kafka", topic, partition, offset);
  }
}
