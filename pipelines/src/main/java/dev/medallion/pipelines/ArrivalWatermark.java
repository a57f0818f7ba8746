package dev.medallion.pipelines;

import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.LongSupplier;
import org.apache.beam.sdk.io.kafka.KafkaRecord;
import org.apache.beam.sdk.io.kafka.TimestampPolicy;
import org.apache.beam.sdk.io.kafka.TimestampPolicyFactory;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.kafka.common.TopicPartition;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * The watermark of a Kafka-fed stage, on the records' arrival clock: each record's timestamp is its
 * Kafka timestamp ({@code received_at}; the stage re-stamps it with its event time {@code ts} after
 * parsing), and a partition's watermark is the newest arrival it has read minus {@code disorder},
 * the skew tolerated between partitions and producers. Gold's lateness rule is on the same clock
 * ({@code received_at - ts}), so a record Gold keeps is never behind the watermark by more than the
 * lateness Gold allows.
 *
 * <p>A partition that has had nothing to read (its backlog is 0) for {@link #IDLE_PARTITION_MILLIS}
 * of wall-clock time ({@link #NEVER_READ_PARTITION_MILLIS} before its first record) does not hold
 * the stage back: its watermark follows the newest arrival any partition of the topic has read in
 * this JVM. When every partition has been caught up for {@code idleStop} of wall-clock time, or
 * when the stage is asked to stop ({@link #drain}), the watermark goes to the end of time (on
 * Spark, a day short of the global window's end: {@link dev.medallion.core.StreamEnd}): the runner
 * fires the last windows, writes and commits them, and the job ends. Since when a partition has
 * been caught up is kept per partition in the JVM, not in the policy: the SparkRunner makes a new
 * reader, and with it new policies, whenever its cache of readers lets one go (a micro-batch that
 * ran longer than the cache keeps them), which put the idle clock back to zero every time.
 */
final class ArrivalWatermark extends TimestampPolicy<byte[], byte[]> {
  private static final ConcurrentMap<String, Long> NEWEST = new ConcurrentHashMap<>();
  private static final ConcurrentMap<String, Long> CAUGHT_UP_SINCE = new ConcurrentHashMap<>();

  /** The partitions of each topic read in this JVM: the read ends when all are idle, not one. */
  private static final ConcurrentMap<String, java.util.Set<String>> PARTITIONS =
      new ConcurrentHashMap<>();

  /**
   * How long a partition must have had nothing to read before its watermark follows the newest
   * arrival of the other partitions, by default ({@code --idlePartitionSeconds}). Caught up is not
   * idle: a stage under a backlog reads a partition to its end while the stage before is still
   * forwarding to it, and its next records arrive older than the other partitions' newest.
   * Following them at once put the watermark past those records' windows, and the runner dropped
   * them: Gold over a backlog of 1M on the DirectRunner dropped 5,967 batches and held 32,922 of
   * 61,500 device minutes (the benchmark, 2026-12-05).
   */
  static final long IDLE_PARTITION_MILLIS = 10_000;

  /**
   * The same for a partition that has had no record yet in this run, by default ({@code
   * --emptyPartitionSeconds}): at the start of a backlog the stage before forwards to some
   * partitions tens of seconds before the others (with 10 s, Gold over the backlog of 1M still
   * dropped the first 17 minutes of the 261 devices of two of its partitions, whose first records
   * came later). A partition that stays empty holds the windows back this long once, at the start.
   */
  static final long NEVER_READ_PARTITION_MILLIS = 60_000;

  /** The partitions that have had a record in this JVM (a new policy of one knows it). */
  private static final java.util.Set<String> READ = ConcurrentHashMap.newKeySet();

  private static volatile boolean draining;

  private final String topic;
  private final String partition;
  private final long disorderMillis;
  private final long idleStopMillis;
  private final long idlePartitionMillis;
  private final long emptyPartitionMillis;
  private final LongSupplier clock;
  private final Instant end;
  private long newest = Long.MIN_VALUE;
  private boolean ended;
  private Instant watermark;

  private ArrivalWatermark(
      TopicPartition tp,
      Duration disorder,
      Duration idleStop,
      Duration idlePartition,
      Duration emptyPartition,
      Optional<Instant> previous,
      LongSupplier clock,
      Instant end) {
    this.clock = clock;
    this.end = end;
    this.topic = tp.topic();
    this.partition = tp.toString();
    this.disorderMillis = disorder.getMillis();
    this.idleStopMillis = idleStop.getMillis();
    this.idlePartitionMillis = idlePartition.getMillis();
    this.emptyPartitionMillis = emptyPartition.getMillis();
    this.watermark = previous.orElse(BoundedWindow.TIMESTAMP_MIN_VALUE);
    PARTITIONS.computeIfAbsent(topic, k -> ConcurrentHashMap.newKeySet()).add(partition);
  }

  /**
   * Policies for the partitions of a read.
   *
   * @param idleStop end the read once every partition has had nothing new for this long; zero:
   *     never (until {@link #drain})
   * @param idlePartition how long a partition that had records must have had nothing to read before
   *     it follows the others
   * @param emptyPartition the same for a partition with no record yet in this run
   */
  static TimestampPolicyFactory<byte[], byte[]> factory(
      Duration disorder,
      Duration idleStop,
      Duration idlePartition,
      Duration emptyPartition,
      Instant end) {
    return factory(
        disorder, idleStop, idlePartition, emptyPartition, end, System::currentTimeMillis);
  }

  /**
   * The same, on the given wall clock (milliseconds), with the default waits of an idle and an
   * empty partition.
   *
   * @param end the watermark once the read ends ({@link dev.medallion.core.StreamEnd})
   */
  static TimestampPolicyFactory<byte[], byte[]> factory(
      Duration disorder, Duration idleStop, Instant end, SerializableLongSupplier clock) {
    return factory(
        disorder,
        idleStop,
        Duration.millis(IDLE_PARTITION_MILLIS),
        Duration.millis(NEVER_READ_PARTITION_MILLIS),
        end,
        clock);
  }

  /** The same, with the given waits of an idle and an empty partition. */
  static TimestampPolicyFactory<byte[], byte[]> factory(
      Duration disorder,
      Duration idleStop,
      Duration idlePartition,
      Duration emptyPartition,
      Instant end,
      SerializableLongSupplier clock) {
    return (TopicPartition tp, Optional<Instant> previous) ->
        new ArrivalWatermark(
            tp, disorder, idleStop, idlePartition, emptyPartition, previous, clock, end);
  }

  /** A clock a factory can carry to the workers. */
  interface SerializableLongSupplier extends LongSupplier, java.io.Serializable {}

  /** Ends every Kafka read of this JVM at its next watermark (Ctrl-C: a clean stop). */
  static void drain() {
    draining = true;
  }

  /** Before a stage starts: no stop asked, no arrival seen (an earlier run's stays behind). */
  static void reset() {
    draining = false;
    NEWEST.clear();
    CAUGHT_UP_SINCE.clear();
    PARTITIONS.clear();
    READ.clear();
  }

  /**
   * Whether every partition of the topic read in this JVM has been caught up for the idle time. A
   * partition alone must not end: the runner then stops reading it for the rest of the run, and a
   * partition still empty when the stage started (the stage before had not yet forwarded to it)
   * ended there, and its records were never read (Gold over a backlog of 1M read two of its four
   * partitions).
   */
  private boolean allIdle(long now) {
    for (String p : PARTITIONS.getOrDefault(topic, java.util.Set.of(partition))) {
      Long since = CAUGHT_UP_SINCE.get(p);
      if (since == null || now - since < idleStopMillis) {
        return false;
      }
    }
    return true;
  }

  @Override
  public Instant getTimestampForRecord(PartitionContext ctx, KafkaRecord<byte[], byte[]> r) {
    long arrival = r.getTimestamp();
    newest = Math.max(newest, arrival);
    NEWEST.merge(topic, arrival, Math::max);
    CAUGHT_UP_SINCE.remove(partition);
    READ.add(partition);
    return new Instant(arrival);
  }

  @Override
  public Instant getWatermark(PartitionContext ctx) {
    if (draining || ended) {
      return end;
    }
    long basis = newest;
    if (ctx.getMessageBacklog() == 0) {
      long now = clock.getAsLong();
      long since = CAUGHT_UP_SINCE.computeIfAbsent(partition, k -> now);
      if (idleStopMillis > 0 && allIdle(now)) {
        ended = true; // a watermark never goes back: what arrives later is for the next run
        return end;
      }
      long idle = READ.contains(partition) ? idlePartitionMillis : emptyPartitionMillis;
      if (now - since >= idle) {
        basis = Math.max(basis, NEWEST.getOrDefault(topic, Long.MIN_VALUE));
      }
    }
    if (basis != Long.MIN_VALUE) {
      Instant candidate = new Instant(basis - disorderMillis);
      if (candidate.isAfter(watermark)) {
        watermark = candidate;
      }
    }
    return watermark;
  }
}
