package dev.medallion.pipelines;

import dev.medallion.core.ReadTable;
import dev.medallion.core.Rejections;
import dev.medallion.iot.Heartbeat;
import dev.medallion.iot.IotMedallion;
import dev.medallion.iot.SensorReading;
import java.util.List;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.Filter;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.transforms.WithTimestamps;
import org.apache.beam.sdk.values.PBegin;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * The committed Silver readings and heartbeats that a Gold stage over Kafka fills its windows with
 * when it starts ({@link GoldSeed}): those from the point's event time on, stamped with their event
 * time, a too-late one only when Gold has not judged it yet and will not read it from its topic.
 * Read as a bounded collection, they hold Gold's watermark until they are all in their windows.
 */
final class SeedFromSilver extends PTransform<PBegin, PCollectionTuple> {
  private static final Counter SEEDED = Metrics.counter(Rejections.NAMESPACE, "gold_seeded");

  private final List<String> readings;
  private final List<String> heartbeats;
  private final GoldSeed.Point point;
  private final Duration lateness;
  private final Duration disorder;

  SeedFromSilver(
      List<String> readings,
      List<String> heartbeats,
      GoldSeed.Point point,
      Duration lateness,
      Duration disorder) {
    this.readings = readings;
    this.heartbeats = heartbeats;
    this.point = point;
    this.lateness = lateness;
    this.disorder = disorder;
  }

  @Override
  public PCollectionTuple expand(PBegin begin) {
    return PCollectionTuple.of(
            IotMedallion.READINGS,
            seed(
                begin,
                "Readings",
                readings,
                SensorReading.class,
                SensorReading::getEventTs,
                SensorReading::getReceivedAt,
                SensorReading::getSource))
        .and(
            IotMedallion.HEARTBEATS,
            seed(
                begin,
                "Heartbeats",
                heartbeats,
                Heartbeat.class,
                Heartbeat::getEventTs,
                Heartbeat::getReceivedAt,
                Heartbeat::getSource));
  }

  private <T> PCollection<T> seed(
      PBegin begin,
      String name,
      List<String> files,
      Class<T> type,
      SerializableFunction<T, Instant> eventTs,
      SerializableFunction<T, Instant> receivedAt,
      SerializableFunction<T, String> source) {
    GoldSeed.Point at = point;
    Duration late = lateness;
    Duration apart = disorder;
    return begin
        .apply("Read " + name, ReadTable.ofFiles(files, type))
        .apply(
            "Wanted " + name,
            Filter.by(
                (T row) -> {
                  Instant ts = eventTs.apply(row);
                  boolean wanted =
                      !ts.isBefore(at.from())
                          && GoldSeed.wanted(
                              ts,
                              receivedAt.apply(row),
                              source.apply(row),
                              late,
                              apart,
                              at.firstArrival(),
                              at.judged());
                  if (wanted) {
                    SEEDED.inc();
                  }
                  return wanted;
                }))
        .apply("EventTime " + name, WithTimestamps.of(eventTs));
  }
}
