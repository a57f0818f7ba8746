package dev.medallion.pipelines;

import dev.medallion.core.DeadLetter;
import dev.medallion.iot.Lateness;
import dev.medallion.iot.WindowedDeviceStats;
import dev.medallion.lakehouse.Catalog;
import dev.medallion.lakehouse.LakeTables;
import dev.medallion.lakehouse.Lakehouse;
import dev.medallion.lakehouse.LakehouseLock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * Where a Gold stage fed by Kafka starts its windows again, so that a restart, even after {@code
 * kill -9}, gives the Gold of an uninterrupted run.
 *
 * <p>A Gold run holds its open windows in the runner's memory, and its consumer group's offsets are
 * committed once a bundle is read, before those windows are written. So a restarted Gold fills its
 * windows with the committed Silver rows ({@link SeedFromSilver}) as well as with what it reads
 * from its topic, and Gold counts an event it gets twice once. The Silver rows it takes are those
 * with an event time from {@link Point#from}, the start of the first window that can be short:
 *
 * <ul>
 *   <li>a window that still takes records read from now on ends no earlier than the first arrival
 *       ({@code received_at}, the Kafka timestamp) to be read, less {@code --disorderSeconds} and
 *       the allowed lateness (a record arriving later than its window's end plus the lateness is
 *       too late, whoever reads it);
 *   <li>a Gold run that did not end cleanly may have left any window it read into short: its own
 *       point is kept in Gold's table ({@value #OPEN_SINCE}) from its start until it ends cleanly,
 *       and the next run starts no later than that.
 * </ul>
 */
final class GoldSeed {
  private GoldSeed() {}

  /** The table property a Gold run over Kafka holds while it runs (epoch milliseconds). */
  static final String OPEN_SINCE = "medallion.gold.kafka-open-since";

  /**
   * @param from the first event time (a window start) whose windows are filled from Silver too
   * @param firstArrival the earliest arrival this run reads from its topic (null: the topic is
   *     empty)
   * @param judged the sources of records Gold's quarantine holds as {@code too_late} already
   */
  record Point(Instant from, @Nullable Instant firstArrival, Set<String> judged)
      implements java.io.Serializable {}

  /** The point of this run; empty when its topic is empty and no Gold run was killed. */
  static Optional<Point> find(IotOptions o, LakeTables tables, String name) {
    Duration lateness = Duration.standardSeconds(o.getAllowedLatenessSeconds());
    Duration disorder = Duration.standardSeconds(o.getDisorderSeconds());
    @Nullable Instant firstArrival = firstArrival(o);
    @Nullable Instant from = firstArrival == null ? null : from(firstArrival, disorder, lateness);
    Optional<Table> gold = tables.existing(Catalog.byPath(Lakehouse.GOLD_DEVICE_MINUTE));
    String open = gold.map(t -> t.properties().get(OPEN_SINCE)).orElse(null);
    if (open != null) {
      Instant killed = new Instant(Long.parseLong(open));
      System.err.println(
          name
              + ": the Gold run before this one did not end cleanly; its windows from "
              + killed
              + " are computed again");
      from = from == null || killed.isBefore(from) ? killed : from;
    }
    return from == null
        ? Optional.empty()
        : Optional.of(new Point(from, firstArrival, tooLate(tables)));
  }

  /**
   * The start of the first window that a record arriving at {@code firstArrival} or later (less
   * {@code disorder}) can still change, less one window: a record is too late for any window that
   * ends, plus {@code lateness}, before it arrives.
   */
  static Instant from(Instant firstArrival, Duration disorder, Duration lateness) {
    long window = WindowedDeviceStats.WINDOW.getMillis();
    long end = firstArrival.minus(disorder).minus(lateness).getMillis();
    return new Instant(Math.floorDiv(end, window) * window - window);
  }

  /**
   * Marks Gold's table with {@code point} until {@link #release}: a kill leaves it for the next.
   */
  static void hold(LakeTables tables, Point point) {
    Table gold = tables.table(Catalog.byPath(Lakehouse.GOLD_DEVICE_MINUTE));
    LakeTables.whenNotBusy(
        () -> {
          gold.refresh();
          gold.updateProperties().set(OPEN_SINCE, Long.toString(point.from().getMillis())).commit();
          return null;
        });
  }

  /** The run ended cleanly: every window it held is written and committed. */
  static void release(LakeTables tables) {
    tables
        .existing(Catalog.byPath(Lakehouse.GOLD_DEVICE_MINUTE))
        .filter(t -> t.properties().containsKey(OPEN_SINCE))
        .ifPresent(
            t ->
                LakeTables.whenNotBusy(
                    () -> {
                      t.refresh();
                      t.updateProperties().remove(OPEN_SINCE).commit();
                      return null;
                    }));
  }

  /**
   * A Silver stage running beside this one forwards a row before the flush that commits it; the
   * rows a killed Gold read are committed at the latest one flush after it read them. When Silver
   * is live, wait for its first commit a flush after now (or for it to end), so that they are.
   */
  static void awaitSilverFlush(IotOptions o, LakeTables tables, LakehouseLock lock, String name)
      throws IOException {
    if (lock.holdsOrFree(tables.config(), List.of("silver"))) {
      return;
    }
    long flushed = System.currentTimeMillis() + (o.getFlushSeconds() + 1) * 1000L;
    long deadline = flushed + (2L * o.getFlushSeconds() + 15) * 1000L;
    System.err.println(name + ": waiting for the live Silver stage's next commit");
    while (System.currentTimeMillis() < deadline) {
      if (lock.holdsOrFree(tables.config(), List.of("silver"))
          || lastSilverCommit(tables) >= flushed) {
        return;
      }
      try {
        Thread.sleep(300);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    System.err.println(name + ": Silver committed nothing new; its committed rows are used");
  }

  private static long lastSilverCommit(LakeTables tables) {
    long last = 0;
    for (String path : List.of(Lakehouse.SILVER_READINGS, Lakehouse.SILVER_HEARTBEATS)) {
      Optional<Table> t = tables.existing(Catalog.byPath(path));
      if (t.isPresent()) {
        t.get().refresh();
        Snapshot s = t.get().currentSnapshot();
        last = Math.max(last, s == null ? 0 : s.timestampMillis());
      }
    }
    return last;
  }

  /** The data files of Silver's {@code path} that may hold events from {@code from} on. */
  static List<String> silverFiles(LakeTables tables, String path, Instant from) {
    List<String> files = new ArrayList<>();
    for (DataFile f :
        tables.files(
            Catalog.byPath(path),
            Expressions.greaterThanOrEqual("event_ts", from.getMillis() * 1000))) {
      files.add(f.location());
    }
    return files;
  }

  /** The sources Gold's quarantine holds as too late. */
  private static Set<String> tooLate(LakeTables tables) {
    Set<String> judged = new HashSet<>();
    Catalog.Table def = Catalog.byPath(Lakehouse.QUARANTINE_IOT);
    if (tables.files(def).isEmpty()) {
      return judged;
    }
    try (CloseableIterable<Record> rows =
        IcebergGenerics.read(tables.table(def))
            .select("source")
            .where(
                Expressions.and(
                    Expressions.equal("stage", DeadLetter.GOLD),
                    Expressions.equal("reason", "too_late")))
            .build()) {
      rows.forEach(r -> judged.add((String) r.getField("source")));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read Gold's quarantine", e);
    }
    return judged;
  }

  /**
   * Whether a Silver row the seed holds is given to Gold: a record on time is (Gold counts it once
   * if it reads it from Kafka too); a too-late one only when no run judged it yet and this run will
   * not read it (it arrived before this run's first arrival, less the disorder).
   */
  static boolean wanted(
      Instant eventTs,
      @Nullable Instant receivedAt,
      String source,
      Duration lateness,
      Duration disorder,
      @Nullable Instant firstArrival,
      Set<String> judged) {
    if (!Lateness.isTooLate(eventTs, receivedAt, WindowedDeviceStats.WINDOW, lateness)) {
      return true;
    }
    boolean readNow =
        firstArrival != null
            && receivedAt != null
            && !receivedAt.isBefore(firstArrival.minus(disorder));
    return !readNow && !judged.contains(source);
  }

  /**
   * The earliest Kafka timestamp among the first records this run reads: each partition's record at
   * its group's committed offset (else the partition's start; the partition's last record when it
   * was read up); null when the topic is empty.
   */
  private static @Nullable Instant firstArrival(IotOptions o) {
    try (KafkaConsumer<byte[], byte[]> consumer = KafkaResume.consumer(o, "gold")) {
      List<TopicPartition> partitions = KafkaResume.partitions(consumer, o);
      Map<TopicPartition, OffsetAndMetadata> committed =
          consumer.committed(new HashSet<>(partitions));
      Map<TopicPartition, Long> starts = new HashMap<>(consumer.beginningOffsets(partitions));
      Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
      @Nullable Instant first = null;
      for (TopicPartition tp : partitions) {
        OffsetAndMetadata c = committed.get(tp);
        long start = starts.getOrDefault(tp, 0L);
        long end = ends.getOrDefault(tp, 0L);
        if (end <= start) {
          continue; // nothing ever read there
        }
        // Read up already: what comes next arrives no earlier than the last record, less disorder.
        long at = Math.min(Math.max(start, c == null ? 0L : c.offset()), end - 1);
        consumer.assign(List.of(tp));
        consumer.seek(tp, at);
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (System.nanoTime() < deadline) {
          var records = consumer.poll(java.time.Duration.ofMillis(500)).records(tp);
          if (!records.isEmpty()) {
            ConsumerRecord<byte[], byte[]> r = records.get(0);
            Instant ts = new Instant(r.timestamp());
            first = first == null || ts.isBefore(first) ? ts : first;
            break;
          }
        }
      }
      return first;
    }
  }
}
