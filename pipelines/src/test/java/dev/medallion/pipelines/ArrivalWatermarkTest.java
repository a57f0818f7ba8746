package dev.medallion.pipelines;

import static org.assertj.core.api.Assertions.assertThat;

import dev.medallion.core.StreamEnd;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.beam.sdk.io.kafka.KafkaRecord;
import org.apache.beam.sdk.io.kafka.KafkaTimestampType;
import org.apache.beam.sdk.io.kafka.TimestampPolicy;
import org.apache.beam.sdk.io.kafka.TimestampPolicy.PartitionContext;
import org.apache.beam.sdk.io.kafka.TimestampPolicyFactory;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.kafka.common.TopicPartition;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code --idleStopSeconds}: a Kafka stage ends once every partition has had nothing new for that
 * long, also when the runner makes new readers (and so new policies) in between, as the SparkRunner
 * does whenever its reader cache lets a reader go.
 */
class ArrivalWatermarkTest {
  private static final TopicPartition TP = new TopicPartition("medallion.raw", 0);
  private static final Duration IDLE = Duration.standardSeconds(20);

  /** The wall clock the policies read, moved by the tests. */
  private static final AtomicLong NOW = new AtomicLong(1_000_000L);

  private static final PartitionContext CAUGHT_UP = backlog(0);

  @AfterEach
  void reset() {
    ArrivalWatermark.reset();
  }

  @Test
  void aCaughtUpPartitionEndsTheReadAfterTheIdleTimeEvenAcrossNewReaders() {
    ArrivalWatermark.reset();
    TimestampPolicyFactory<byte[], byte[]> factory =
        ArrivalWatermark.factory(Duration.ZERO, IDLE, BoundedWindow.TIMESTAMP_MAX_VALUE, NOW::get);
    TimestampPolicy<byte[], byte[]> first = factory.createTimestampPolicy(TP, Optional.empty());
    assertThat(first.getWatermark(CAUGHT_UP)).isNotEqualTo(BoundedWindow.TIMESTAMP_MAX_VALUE);
    NOW.addAndGet(IDLE.getMillis() - 1);
    assertThat(first.getWatermark(CAUGHT_UP)).isNotEqualTo(BoundedWindow.TIMESTAMP_MAX_VALUE);

    NOW.addAndGet(1);
    // A new reader of the same partition (Spark's reader cache let the first one go).
    TimestampPolicy<byte[], byte[]> second =
        factory.createTimestampPolicy(TP, Optional.of(new Instant(0)));
    assertThat(second.getWatermark(CAUGHT_UP)).isEqualTo(BoundedWindow.TIMESTAMP_MAX_VALUE);
  }

  @Test
  void aRecordPutsTheIdleClockBackAndABacklogHoldsItBack() {
    ArrivalWatermark.reset();
    // On Spark a stream ends a day short of the global window's end (StreamEnd).
    TimestampPolicyFactory<byte[], byte[]> factory =
        ArrivalWatermark.factory(Duration.ZERO, IDLE, StreamEnd.ON_SPARK, NOW::get);
    TimestampPolicy<byte[], byte[]> first = factory.createTimestampPolicy(TP, Optional.empty());
    first.getWatermark(CAUGHT_UP);
    NOW.addAndGet(IDLE.getMillis() + 1);
    assertThat(first.getWatermark(backlog(5)))
        .as("a partition with records to read is not idle")
        .isNotEqualTo(StreamEnd.ON_SPARK);
    first.getTimestampForRecord(CAUGHT_UP, record(NOW.get()));

    TimestampPolicy<byte[], byte[]> second = factory.createTimestampPolicy(TP, Optional.empty());
    assertThat(second.getWatermark(CAUGHT_UP))
        .as("the record started the idle time again")
        .isNotEqualTo(StreamEnd.ON_SPARK);
    NOW.addAndGet(IDLE.getMillis());
    assertThat(second.getWatermark(CAUGHT_UP)).isEqualTo(StreamEnd.ON_SPARK);
  }

  /**
   * A partition with nothing to read ends nothing while another still has records: the runner stops
   * reading a partition whose watermark ended, so one still empty when the stage started (the stage
   * before had not yet forwarded to it) was never read again in that run. Found by the streaming
   * benchmark: Gold read two of its four partitions.
   */
  @Test
  void theReadEndsWhenEveryPartitionIsIdleNotOne() {
    ArrivalWatermark.reset();
    TopicPartition other = new TopicPartition(TP.topic(), 1);
    TimestampPolicyFactory<byte[], byte[]> factory =
        ArrivalWatermark.factory(Duration.ZERO, IDLE, BoundedWindow.TIMESTAMP_MAX_VALUE, NOW::get);
    TimestampPolicy<byte[], byte[]> empty = factory.createTimestampPolicy(TP, Optional.empty());
    TimestampPolicy<byte[], byte[]> busy = factory.createTimestampPolicy(other, Optional.empty());
    empty.getWatermark(CAUGHT_UP);
    busy.getWatermark(backlog(100));
    NOW.addAndGet(IDLE.getMillis() + 1);
    busy.getTimestampForRecord(backlog(99), record(NOW.get()));
    assertThat(empty.getWatermark(CAUGHT_UP))
        .as("an empty partition while the other has records")
        .isNotEqualTo(BoundedWindow.TIMESTAMP_MAX_VALUE);
    assertThat(busy.getWatermark(CAUGHT_UP)).isNotEqualTo(BoundedWindow.TIMESTAMP_MAX_VALUE);
    NOW.addAndGet(IDLE.getMillis());
    assertThat(empty.getWatermark(CAUGHT_UP)).isEqualTo(BoundedWindow.TIMESTAMP_MAX_VALUE);
    assertThat(busy.getWatermark(CAUGHT_UP)).isEqualTo(BoundedWindow.TIMESTAMP_MAX_VALUE);
  }

  /**
   * A partition read to its end while the stage before is still forwarding to it holds the
   * watermark at its own newest arrival: its next records arrive older than the other partitions'
   * newest, and a watermark past their windows had the runner drop them (Gold over a backlog of 1M
   * held about half its device minutes). Only a partition idle for a while follows the others.
   */
  @Test
  void aCaughtUpPartitionHoldsTheWatermarkUntilItIsIdle() {
    ArrivalWatermark.reset();
    TopicPartition other = new TopicPartition(TP.topic(), 1);
    TimestampPolicyFactory<byte[], byte[]> factory =
        ArrivalWatermark.factory(Duration.ZERO, IDLE, BoundedWindow.TIMESTAMP_MAX_VALUE, NOW::get);
    TimestampPolicy<byte[], byte[]> behind = factory.createTimestampPolicy(TP, Optional.empty());
    TimestampPolicy<byte[], byte[]> ahead = factory.createTimestampPolicy(other, Optional.empty());
    behind.getTimestampForRecord(CAUGHT_UP, record(1_000L));
    ahead.getTimestampForRecord(backlog(50), record(600_000L));
    assertThat(behind.getWatermark(CAUGHT_UP))
        .as("caught up, not idle: its own newest arrival")
        .isEqualTo(new Instant(1_000L));
    NOW.addAndGet(ArrivalWatermark.IDLE_PARTITION_MILLIS - 1);
    assertThat(behind.getWatermark(CAUGHT_UP)).isEqualTo(new Instant(1_000L));
    NOW.addAndGet(1);
    assertThat(behind.getWatermark(CAUGHT_UP))
        .as("idle: the topic's newest arrival")
        .isEqualTo(new Instant(600_000L));
  }

  /**
   * A partition with no record yet waits longer before it follows the others: at the start of a
   * backlog the stage before forwards to it tens of seconds after the others, and its first records
   * came behind the watermark (Gold lost the first 17 minutes of two partitions' devices).
   */
  @Test
  void aPartitionWithNoRecordYetWaitsLongerBeforeItFollows() {
    ArrivalWatermark.reset();
    TopicPartition other = new TopicPartition(TP.topic(), 1);
    TimestampPolicyFactory<byte[], byte[]> factory =
        ArrivalWatermark.factory(Duration.ZERO, IDLE, BoundedWindow.TIMESTAMP_MAX_VALUE, NOW::get);
    TimestampPolicy<byte[], byte[]> empty = factory.createTimestampPolicy(TP, Optional.empty());
    TimestampPolicy<byte[], byte[]> ahead = factory.createTimestampPolicy(other, Optional.empty());
    ahead.getTimestampForRecord(backlog(50), record(600_000L));
    assertThat(empty.getWatermark(CAUGHT_UP)).isEqualTo(BoundedWindow.TIMESTAMP_MIN_VALUE);
    NOW.addAndGet(ArrivalWatermark.IDLE_PARTITION_MILLIS);
    assertThat(empty.getWatermark(CAUGHT_UP))
        .as("no record yet: still waiting after the idle time of a partition that had records")
        .isEqualTo(BoundedWindow.TIMESTAMP_MIN_VALUE);
    NOW.addAndGet(
        ArrivalWatermark.NEVER_READ_PARTITION_MILLIS - ArrivalWatermark.IDLE_PARTITION_MILLIS);
    assertThat(empty.getWatermark(CAUGHT_UP)).isEqualTo(new Instant(600_000L));
  }

  /**
   * A partition that had a record keeps the shorter wait in a new policy of it (the SparkRunner
   * makes new readers, and with them new policies), and {@link ArrivalWatermark#reset} forgets it.
   */
  @Test
  void aNewPolicyOfAPartitionThatHadRecordsWaitsTheShorterTime() {
    ArrivalWatermark.reset();
    TopicPartition other = new TopicPartition(TP.topic(), 1);
    TimestampPolicyFactory<byte[], byte[]> factory =
        ArrivalWatermark.factory(Duration.ZERO, IDLE, BoundedWindow.TIMESTAMP_MAX_VALUE, NOW::get);
    factory
        .createTimestampPolicy(TP, Optional.empty())
        .getTimestampForRecord(CAUGHT_UP, record(1_000L));
    factory
        .createTimestampPolicy(other, Optional.empty())
        .getTimestampForRecord(backlog(9), record(600_000L));
    TimestampPolicy<byte[], byte[]> again = factory.createTimestampPolicy(TP, Optional.empty());
    again.getWatermark(CAUGHT_UP);
    NOW.addAndGet(ArrivalWatermark.IDLE_PARTITION_MILLIS);
    assertThat(again.getWatermark(CAUGHT_UP)).isEqualTo(new Instant(600_000L));

    ArrivalWatermark.reset();
    TimestampPolicy<byte[], byte[]> afterReset =
        factory.createTimestampPolicy(TP, Optional.empty());
    factory
        .createTimestampPolicy(other, Optional.empty())
        .getTimestampForRecord(backlog(9), record(600_000L));
    afterReset.getWatermark(CAUGHT_UP);
    NOW.addAndGet(ArrivalWatermark.IDLE_PARTITION_MILLIS);
    assertThat(afterReset.getWatermark(CAUGHT_UP))
        .as("after reset the partition has had no record in this run")
        .isEqualTo(BoundedWindow.TIMESTAMP_MIN_VALUE);
  }

  /**
   * {@code --idlePartitionSeconds=0 --emptyPartitionSeconds=0}: a caught-up partition follows at
   * once.
   */
  @Test
  void theWaitsAreOptions() {
    ArrivalWatermark.reset();
    TopicPartition other = new TopicPartition(TP.topic(), 1);
    TimestampPolicyFactory<byte[], byte[]> factory =
        ArrivalWatermark.factory(
            Duration.ZERO,
            IDLE,
            Duration.ZERO,
            Duration.ZERO,
            BoundedWindow.TIMESTAMP_MAX_VALUE,
            NOW::get);
    TimestampPolicy<byte[], byte[]> empty = factory.createTimestampPolicy(TP, Optional.empty());
    factory
        .createTimestampPolicy(other, Optional.empty())
        .getTimestampForRecord(backlog(9), record(600_000L));
    assertThat(empty.getWatermark(CAUGHT_UP)).isEqualTo(new Instant(600_000L));
  }

  private static KafkaRecord<byte[], byte[]> record(long timestamp) {
    return new KafkaRecord<>(
        TP.topic(),
        TP.partition(),
        1L,
        timestamp,
        KafkaTimestampType.LOG_APPEND_TIME,
        null,
        new byte[0],
        new byte[0]);
  }

  private static PartitionContext backlog(long messages) {
    return new PartitionContext() {
      @Override
      public long getMessageBacklog() {
        return messages;
      }

      @Override
      public Instant getBacklogCheckTime() {
        return Instant.now();
      }
    };
  }
}
