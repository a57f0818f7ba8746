package dev.medallion.iot;

import static dev.medallion.testing.Events.at;
import static dev.medallion.testing.Events.heartbeat;
import static dev.medallion.testing.Events.reading;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import dev.medallion.core.DeadLetter;
import dev.medallion.core.Rejections;
import dev.medallion.testing.BeamPipelineExtension;
import dev.medallion.testing.Counters;
import dev.medallion.testing.Events;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.schemas.NoSuchSchemaException;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.join.CoGbkResult;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.Row;
import org.apache.beam.sdk.values.TimestampedValue;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Gold on the DirectRunner with hand-made panes. Expected rows are worked out by hand in each test.
 * Rows are compared as {@code device|timing|pane|readings|t_avg|t_min|t_max|h_avg|p_avg|
 * heartbeats|battery_min|rssi_avg|last_status}.
 */
@ExtendWith(BeamPipelineExtension.class)
class WindowedDeviceStatsTest {
  @TempDir Path tmp;

  private static final Duration LATENESS = Duration.standardMinutes(2);
  private static final IntervalWindow W1015 =
      new IntervalWindow(at("2026-11-29T10:15:00Z"), at("2026-11-29T10:16:00Z"));
  private static final IntervalWindow W1016 =
      new IntervalWindow(at("2026-11-29T10:16:00Z"), at("2026-11-29T10:17:00Z"));

  static String describe(Row m) {
    return String.join(
        "|",
        m.getString("device_id"),
        m.getString("pane_timing"),
        String.valueOf(m.getInt64("pane_index")),
        String.valueOf(m.getInt64("reading_count")),
        String.valueOf(m.getDouble("temperature_avg")),
        String.valueOf(m.getDouble("temperature_min")),
        String.valueOf(m.getDouble("temperature_max")),
        String.valueOf(m.getDouble("humidity_avg")),
        String.valueOf(m.getDouble("pressure_avg")),
        String.valueOf(m.getInt64("heartbeat_count")),
        String.valueOf(m.getDouble("battery_pct_min")),
        String.valueOf(m.getDouble("rssi_dbm_avg")),
        String.valueOf(m.getString("last_status")),
        m.getDateTime("window_start").toInstant() + "/" + m.getDateTime("window_end").toInstant());
  }

  private static PCollection<String> described(PCollectionTuple gold) {
    return gold.get(WindowedDeviceStats.DEVICE_MINUTE)
        .apply(
            "Describe",
            MapElements.into(TypeDescriptors.strings()).via(WindowedDeviceStatsTest::describe));
  }

  /** A site row: site, pane timing and index, device and reading count, temperature average. */
  private static PCollection<String> describedSites(PCollectionTuple gold) {
    return gold.get(WindowedDeviceStats.SITE_MINUTE)
        .apply(
            "DescribeSiteRows",
            MapElements.into(TypeDescriptors.strings())
                .via(
                    (Row s) ->
                        String.join(
                            "|",
                            s.getString("site"),
                            s.getString("pane_timing"),
                            String.valueOf(s.getInt64("pane_index")),
                            String.valueOf(s.getInt64("device_count")),
                            String.valueOf(s.getInt64("reading_count")),
                            String.valueOf(s.getDouble("temperature_avg")))));
  }

  private static Coder<SensorReading> readingCoder(TestPipeline p) throws NoSuchSchemaException {
    return p.getSchemaRegistry().getSchemaCoder(SensorReading.class);
  }

  private static PCollection<Heartbeat> noHeartbeats(TestPipeline p) throws NoSuchSchemaException {
    return p.apply(
        "NoHeartbeats", Create.empty(p.getSchemaRegistry().getSchemaCoder(Heartbeat.class)));
  }

  private static PCollectionTuple gold(
      PCollection<SensorReading> readings, PCollection<Heartbeat> heartbeats, Duration slack) {
    return gold(readings, heartbeats, slack, 0);
  }

  /**
   * How a stream is joined: device by device, or in groups ({@link
   * WindowedDeviceStats#withStreamsInGroups}) of all the test's devices together (2 expected) or of
   * the default number of groups (the number of devices not known).
   */
  enum StreamJoin {
    DEVICE_BY_DEVICE,
    ONE_GROUP,
    DEFAULT_GROUPS;

    WindowedDeviceStats applied(WindowedDeviceStats gold) {
      return switch (this) {
        case DEVICE_BY_DEVICE -> gold;
        case ONE_GROUP -> gold.withExpectedDevices(2).withStreamsInGroups();
        case DEFAULT_GROUPS -> gold.withStreamsInGroups();
      };
    }
  }

  private static PCollectionTuple gold(
      PCollection<SensorReading> readings,
      PCollection<Heartbeat> heartbeats,
      Duration slack,
      StreamJoin join) {
    return gold(readings, heartbeats, join.applied(WindowedDeviceStats.of(LATENESS, slack)));
  }

  private static PCollectionTuple gold(
      PCollection<SensorReading> readings,
      PCollection<Heartbeat> heartbeats,
      Duration slack,
      int expectedDevices) {
    return gold(
        readings,
        heartbeats,
        WindowedDeviceStats.of(LATENESS, slack).withExpectedDevices(expectedDevices));
  }

  private static PCollectionTuple gold(
      PCollection<SensorReading> readings,
      PCollection<Heartbeat> heartbeats,
      WindowedDeviceStats gold) {
    return PCollectionTuple.of(ValidateAndEnrich.READINGS, readings)
        .and(ValidateAndEnrich.HEARTBEATS, heartbeats)
        .apply(gold);
  }

  /**
   * Of a minute (10:15) with one on-time record and one too late: the on-time one's device row
   * ({@code row}, as {@link #describe} gives it, without its window) is the window's only row; the
   * late one is a {@code too_late} dead letter of Gold with its payload, counted once however its
   * bundle reports it (the counts reach the metrics when a bundle ends), with its example.
   */
  private static void assertOnlyTheOnTimeRowAndOneTooLate(
      TestPipeline p, PCollectionTuple out, String row, String tooLatePayload) {
    PAssert.that(described(out))
        .inWindow(W1015)
        .containsInAnyOrder(row + "|" + W1015.start() + "/" + W1015.end());
    PAssert.that(
            out.get(WindowedDeviceStats.TOO_LATE)
                .apply(
                    "Reason",
                    MapElements.into(TypeDescriptors.strings())
                        .via(
                            (DeadLetter d) ->
                                d.getStage() + "|" + d.getReason() + "|" + d.getOriginalPayload())))
        .containsInAnyOrder("gold|too_late|" + tooLatePayload);
    PipelineResult result = p.run();

    assertThat(Counters.of(result, Rejections.NAMESPACE))
        .contains(entry("gold_rejected", 1L), entry("gold_rejected_too_late", 1L));
    assertThat(Counters.stringSetSizes(result, Rejections.NAMESPACE))
        .contains(entry("gold_example_too_late", 1));
  }

  private static TimestampedValue<SensorReading> stamped(SensorReading r) {
    return TimestampedValue.of(r, r.getEventTs());
  }

  @ParameterizedTest
  @EnumSource(StreamJoin.class)
  void onTimeReadingsFireOnePaneWhenTheWatermarkPassesTheWindow(StreamJoin join, TestPipeline p)
      throws Exception {
    TestStream<SensorReading> events =
        TestStream.create(readingCoder(p))
            .advanceWatermarkTo(at("2026-11-29T10:15:00Z"))
            .addElements(
                stamped(
                    reading(
                        "dev-0001",
                        "temperature",
                        20.0,
                        "2026-11-29T10:15:10Z",
                        "2026-11-29T10:15:10Z")),
                stamped(
                    reading(
                        "dev-0001",
                        "temperature",
                        23.0,
                        "2026-11-29T10:15:40Z",
                        "2026-11-29T10:15:40Z")),
                // exactly on the minute: the 10:16 window, not 10:15
                stamped(
                    reading(
                        "dev-0001",
                        "humidity",
                        40.0,
                        "2026-11-29T10:16:00Z",
                        "2026-11-29T10:16:00Z")))
            .advanceWatermarkToInfinity();
    PCollectionTuple out = gold(p.apply(events), noHeartbeats(p), Duration.ZERO, join);
    PCollection<String> rows = described(out);

    PAssert.that(rows)
        .inOnTimePane(W1015)
        .containsInAnyOrder(
            "dev-0001|ON_TIME|0|2|21.5|20.0|23.0|null|null|0|null|null|null|"
                + W1015.start()
                + "/"
                + W1015.end());
    PAssert.that(rows)
        .inOnTimePane(W1016)
        .containsInAnyOrder(
            "dev-0001|ON_TIME|0|1|null|null|null|40.0|null|0|null|null|null|"
                + W1016.start()
                + "/"
                + W1016.end());
    PAssert.that(out.get(WindowedDeviceStats.TOO_LATE)).empty();
    p.run();
  }

  @ParameterizedTest
  @EnumSource(StreamJoin.class)
  void aLateRecordWithinTheAllowedLatenessFiresAReplacingPane(StreamJoin join, TestPipeline p)
      throws Exception {
    TestStream<SensorReading> events =
        TestStream.create(readingCoder(p))
            .advanceWatermarkTo(at("2026-11-29T10:15:00Z"))
            .addElements(
                stamped(
                    reading(
                        "dev-0001",
                        "temperature",
                        20.0,
                        "2026-11-29T10:15:10Z",
                        "2026-11-29T10:15:10Z")),
                // another device of the site, in another of the site's parts
                stamped(
                    reading(
                        "dev-0002",
                        "temperature",
                        30.0,
                        "2026-11-29T10:15:20Z",
                        "2026-11-29T10:15:20Z")))
            .advanceWatermarkTo(at("2026-11-29T10:17:30Z"))
            // 1m30s after the window closed, within the 2 minutes allowed
            .addElements(
                stamped(
                    reading(
                        "dev-0001",
                        "temperature",
                        26.0,
                        "2026-11-29T10:15:50Z",
                        "2026-11-29T10:17:30Z")))
            .advanceWatermarkToInfinity();
    PCollectionTuple out = gold(p.apply(events), noHeartbeats(p), Duration.ZERO, join);

    String window = "|" + W1015.start() + "/" + W1015.end();
    PCollection<String> rows = described(out);
    PAssert.that(rows)
        .inOnTimePane(W1015)
        .containsInAnyOrder(
            "dev-0001|ON_TIME|0|1|20.0|20.0|20.0|null|null|0|null|null|null" + window,
            "dev-0002|ON_TIME|0|1|30.0|30.0|30.0|null|null|0|null|null|null" + window);
    PAssert.that(rows)
        .inWindow(W1015)
        .containsInAnyOrder(
            "dev-0001|ON_TIME|0|1|20.0|20.0|20.0|null|null|0|null|null|null" + window,
            "dev-0002|ON_TIME|0|1|30.0|30.0|30.0|null|null|0|null|null|null" + window,
            "dev-0001|LATE|1|2|23.0|20.0|26.0|null|null|0|null|null|null" + window);
    // The site's late pane has dev-0001's late pane instead of its on-time one, and dev-0002's
    // on-time one: 3 readings (20, 26, 30), not 1 + 2 + 1.
    PAssert.that(describedSites(out))
        .inWindow(W1015)
        .containsInAnyOrder(
            "berlin|ON_TIME|0|2|2|25.0", "berlin|LATE|1|2|3|" + (20.0 + 26.0 + 30.0) / 3);
    PAssert.that(out.get(WindowedDeviceStats.TOO_LATE)).empty();
    p.run();
  }

  @ParameterizedTest
  @EnumSource(StreamJoin.class)
  void lateRecordsArrivingTogetherFireOneLatePaneNotOneEach(StreamJoin join, TestPipeline p)
      throws Exception {
    TestStream<SensorReading> events =
        TestStream.create(readingCoder(p))
            .advanceWatermarkTo(at("2026-11-29T10:15:00Z"))
            .addElements(
                stamped(
                    reading(
                        "dev-0001",
                        "temperature",
                        20.0,
                        "2026-11-29T10:15:10Z",
                        "2026-11-29T10:15:10Z")))
            .advanceWatermarkTo(at("2026-11-29T10:17:00Z"))
            // Two late records within the allowed lateness, a second apart in processing time.
            .addElements(
                stamped(
                    reading(
                        "dev-0001",
                        "temperature",
                        22.0,
                        "2026-11-29T10:15:30Z",
                        "2026-11-29T10:17:00Z")))
            .advanceProcessingTime(Duration.standardSeconds(1))
            .addElements(
                stamped(
                    reading(
                        "dev-0001",
                        "temperature",
                        24.0,
                        "2026-11-29T10:15:40Z",
                        "2026-11-29T10:17:01Z")))
            .advanceProcessingTime(Duration.standardSeconds(10))
            .advanceWatermarkToInfinity();
    PCollectionTuple out = gold(p.apply(events), noHeartbeats(p), Duration.ZERO, join);

    String window = "|" + W1015.start() + "/" + W1015.end();
    PAssert.that(described(out))
        .inWindow(W1015)
        .containsInAnyOrder(
            "dev-0001|ON_TIME|0|1|20.0|20.0|20.0|null|null|0|null|null|null" + window,
            "dev-0001|LATE|1|3|22.0|20.0|24.0|null|null|0|null|null|null" + window);
    p.run();
  }

  @ParameterizedTest
  @EnumSource(StreamJoin.class)
  void aRecordLaterThanTheAllowedLatenessIsATooLateDeadLetter(StreamJoin join, TestPipeline p)
      throws Exception {
    SensorReading tooLate =
        reading("dev-0001", "temperature", 99.0, "2026-11-29T10:15:55Z", "2026-11-29T10:18:30Z");
    TestStream<SensorReading> events =
        TestStream.create(readingCoder(p))
            .advanceWatermarkTo(at("2026-11-29T10:15:00Z"))
            .addElements(
                stamped(
                    reading(
                        "dev-0001",
                        "temperature",
                        20.0,
                        "2026-11-29T10:15:10Z",
                        "2026-11-29T10:15:10Z")))
            .advanceWatermarkTo(at("2026-11-29T10:18:30Z"))
            .addElements(stamped(tooLate))
            .advanceWatermarkToInfinity();
    PCollectionTuple out = gold(p.apply(events), noHeartbeats(p), Duration.ZERO, join);

    assertOnlyTheOnTimeRowAndOneTooLate(
        p,
        out,
        "dev-0001|ON_TIME|0|1|20.0|20.0|20.0|null|null|0|null|null|null",
        tooLate.getRawPayload());
  }

  @ParameterizedTest
  @EnumSource(StreamJoin.class)
  void aHeartbeatLaterThanTheAllowedLatenessIsATooLateDeadLetter(StreamJoin join, TestPipeline p)
      throws Exception {
    Heartbeat tooLate =
        heartbeat("dev-0002", 10.0, -90, "error", "2026-11-29T10:15:55Z", "2026-11-29T10:18:30Z");
    TestStream<Heartbeat> events =
        TestStream.create(p.getSchemaRegistry().getSchemaCoder(Heartbeat.class))
            .advanceWatermarkTo(at("2026-11-29T10:15:00Z"))
            .addElements(
                TimestampedValue.of(
                    heartbeat(
                        "dev-0002",
                        80.0,
                        -70,
                        "ok",
                        "2026-11-29T10:15:10Z",
                        "2026-11-29T10:15:10Z"),
                    at("2026-11-29T10:15:10Z")))
            .advanceWatermarkTo(at("2026-11-29T10:18:30Z"))
            .addElements(TimestampedValue.of(tooLate, tooLate.getEventTs()))
            .advanceWatermarkToInfinity();
    PCollection<SensorReading> noReadings = p.apply("NoReadings", Create.empty(readingCoder(p)));
    PCollectionTuple out = gold(noReadings, p.apply(events), Duration.ZERO, join);

    assertOnlyTheOnTimeRowAndOneTooLate(
        p,
        out,
        "dev-0002|ON_TIME|0|0|null|null|null|null|null|1|80.0|-70.0|ok",
        tooLate.getRawPayload());
  }

  @ParameterizedTest
  @EnumSource(StreamJoin.class)
  void theWatermarkSlackKeepsARecordThatWasInFlightWhenTheWatermarkMovedOn(
      StreamJoin join, TestPipeline p) throws Exception {
    // Received at 10:17:00 (allowed: the window's lateness runs to 10:17:59.999) but reaches the
    // grouping only after the watermark is at 10:18:30. The runner must not drop it.
    TestStream<SensorReading> events =
        TestStream.create(readingCoder(p))
            .advanceWatermarkTo(at("2026-11-29T10:18:30Z"))
            .addElements(
                stamped(
                    reading(
                        "dev-0002",
                        "pressure",
                        1000.0,
                        "2026-11-29T10:15:20Z",
                        "2026-11-29T10:17:00Z")))
            .advanceWatermarkToInfinity();
    PCollectionTuple out =
        gold(p.apply(events), noHeartbeats(p), Duration.standardMinutes(1), join);

    PAssert.that(described(out))
        .inWindow(W1015)
        .containsInAnyOrder(
            "dev-0002|LATE|0|1|null|null|null|null|1000.0|0|null|null|null|"
                + W1015.start()
                + "/"
                + W1015.end());
    PAssert.that(out.get(WindowedDeviceStats.TOO_LATE)).empty();
    p.run();
  }

  @ParameterizedTest
  @EnumSource(StreamJoin.class)
  void aRecordTheRunnerDropsBehindItsWatermarkIsCountedNotSilent(StreamJoin join, TestPipeline p)
      throws Exception {
    // As above, but with no slack: the watermark (10:18:30) is past the window's end plus the
    // allowed lateness (10:17:59.999), so the runner drops the record Medallion kept. The run
    // still tells: RunnerDrops reads the runner's own counter.
    TestStream<SensorReading> events =
        TestStream.create(readingCoder(p))
            .advanceWatermarkTo(at("2026-11-29T10:18:30Z"))
            .addElements(
                stamped(
                    reading(
                        "dev-0002",
                        "pressure",
                        1000.0,
                        "2026-11-29T10:15:20Z",
                        "2026-11-29T10:17:00Z")))
            .advanceWatermarkToInfinity();
    PCollectionTuple out = gold(p.apply(events), noHeartbeats(p), Duration.ZERO, join);

    PAssert.that(described(out)).empty();
    PAssert.that(out.get(WindowedDeviceStats.TOO_LATE)).empty();
    PipelineResult result = p.run();
    result.waitUntilFinish();
    // The grouping per device drops the record once (sites group the devices' aggregates).
    assertThat(dev.medallion.core.RunnerDrops.count(result)).isEqualTo(1);
  }

  /**
   * The same rows whether a bounded input is joined device by device (0), all its devices in one
   * group (3 expected devices), or in four groups (200); with the groups keyed per minute too
   * (perMinute, as on Spark) or not.
   */
  @ParameterizedTest
  @CsvSource({"0,false", "3,false", "200,false", "3,true", "200,true"})
  void theJoinIsFullOuterAndResentEventsCountOnce(
      int expectedDevices, boolean perMinute, TestPipeline p) throws Exception {
    SensorReading t1 = reading("dev-0001", "temperature", 20.0, "2026-11-29T10:15:10Z", null);
    SensorReading t1Resent =
        reading("dev-0001", "temperature", 20.0, "2026-11-29T10:15:10Z", "2026-11-29T10:15:12Z");
    PCollection<SensorReading> readings =
        p.apply(
            "Readings",
            Create.timestamped(
                    stamped(t1),
                    stamped(t1Resent),
                    stamped(reading("dev-0001", "humidity", 41.0, "2026-11-29T10:15:20Z", null)),
                    stamped(reading("dev-0003", "pressure", 1001.0, "2026-11-29T10:15:30Z", null)),
                    stamped(reading("dev-0003", "pressure", 1003.0, "2026-11-29T10:15:31Z", null)),
                    // the next minute: its own key when keyed per minute, its own row either way
                    stamped(reading("dev-0001", "temperature", 22.0, "2026-11-29T10:16:10Z", null)))
                .withCoder(readingCoder(p)));
    PCollection<Heartbeat> heartbeats =
        p.apply(
            "Heartbeats",
            Create.timestamped(
                    TimestampedValue.of(
                        heartbeat("dev-0002", 80.0, -70, "ok", "2026-11-29T10:15:05Z", null),
                        at("2026-11-29T10:15:05Z")),
                    TimestampedValue.of(
                        heartbeat("dev-0002", 79.5, -60, "degraded", "2026-11-29T10:15:45Z", null),
                        at("2026-11-29T10:15:45Z")),
                    TimestampedValue.of(
                        heartbeat("dev-0002", 79.5, -60, "degraded", "2026-11-29T10:15:45Z", null),
                        at("2026-11-29T10:15:45Z")),
                    TimestampedValue.of(
                        heartbeat("dev-0003", 50.0, -80, "error", "2026-11-29T10:15:59.999Z", null),
                        at("2026-11-29T10:15:59.999Z")),
                    TimestampedValue.of(
                        heartbeat("dev-0001", 77.0, -55, "ok", "2026-11-29T10:16:30Z", null),
                        at("2026-11-29T10:16:30Z")))
                .withCoder(p.getSchemaRegistry().getSchemaCoder(Heartbeat.class)));
    WindowedDeviceStats stats =
        WindowedDeviceStats.of(LATENESS, Duration.ZERO).withExpectedDevices(expectedDevices);
    PCollectionTuple out =
        gold(readings, heartbeats, perMinute ? stats.withKeysPerMinute() : stats);

    String window = "|" + W1015.start() + "/" + W1015.end();
    String window16 = "|" + W1016.start() + "/" + W1016.end();
    PAssert.that(described(out))
        .containsInAnyOrder(
            // readings only: no heartbeat in the window, heartbeat values null
            "dev-0001|ON_TIME|0|2|20.0|20.0|20.0|41.0|null|0|null|null|null" + window,
            // heartbeats only (one resent): readings null, last status of the later heartbeat
            "dev-0002|ON_TIME|0|0|null|null|null|null|null|2|79.5|-65.0|degraded" + window,
            // both sides
            "dev-0003|ON_TIME|0|2|null|null|null|null|1002.0|1|50.0|-80.0|error" + window,
            // both sides, the next minute
            "dev-0001|ON_TIME|0|1|22.0|22.0|22.0|null|null|1|77.0|-55.0|ok" + window16);
    // per device and sensor type: only types with readings, a resent reading once
    PAssert.that(
            out.get(WindowedDeviceStats.SENSOR_MINUTE)
                .apply(
                    "DescribeSensors",
                    MapElements.into(TypeDescriptors.strings())
                        .via(
                            (SensorMinute m) ->
                                String.join(
                                    "|",
                                    m.getDeviceId(),
                                    m.getSensorType(),
                                    m.getUnit(),
                                    String.valueOf(m.getReadingCount()),
                                    String.valueOf(m.getValueAvg()),
                                    String.valueOf(m.getValueMin()),
                                    String.valueOf(m.getValueMax()),
                                    m.getPaneTiming(),
                                    m.getSite(),
                                    m.getDate(),
                                    m.getWindowStart() + "/" + m.getWindowEnd()))))
        .containsInAnyOrder(
            "dev-0001|temperature|C|1|20.0|20.0|20.0|ON_TIME|berlin|2026-11-29" + window,
            "dev-0001|humidity|%|1|41.0|41.0|41.0|ON_TIME|berlin|2026-11-29" + window,
            "dev-0001|temperature|C|1|22.0|22.0|22.0|ON_TIME|berlin|2026-11-29" + window16,
            "dev-0003|pressure|hPa|2|1002.0|1001.0|1003.0|ON_TIME|"
                + Events.DEVICES.get("dev-0003").getSite()
                + "|2026-11-29"
                + window);
    PAssert.that(
            out.get(WindowedDeviceStats.SITE_MINUTE)
                .apply(
                    "DescribeSites",
                    MapElements.into(TypeDescriptors.strings())
                        .via(
                            (Row s) ->
                                s.getString("site")
                                    + "|"
                                    + s.getInt64("device_count")
                                    + "|"
                                    + s.getInt64("reading_count")
                                    + "|"
                                    + s.getInt64("heartbeat_count")
                                    + "|"
                                    + s.getDouble("battery_pct_min")
                                    + "|"
                                    + s.getDouble("pressure_avg"))))
        .containsInAnyOrder(
            "berlin|2|2|2|79.5|null", "paris|1|2|1|50.0|1002.0", "berlin|1|1|1|77.0|null");
    p.run();
  }

  @Test
  void aStreamIsJoinedInGroupsOfDevicesOnlyWhenAsked() throws Exception {
    Pipeline p = Pipeline.create(); // built, not run
    Coder<SensorReading> coder = p.getSchemaRegistry().getSchemaCoder(SensorReading.class);
    PCollection<SensorReading> bounded = p.apply("Bounded", Create.empty(coder));
    PCollection<SensorReading> unbounded =
        p.apply("Unbounded", TestStream.create(coder).advanceWatermarkToInfinity());
    WindowedDeviceStats gold = WindowedDeviceStats.of(LATENESS, Duration.ZERO);

    assertThat(gold.deviceGroups(bounded)).isZero(); // the number of devices is not known
    assertThat(gold.withExpectedDevices(1).deviceGroups(bounded)).isEqualTo(1);
    assertThat(gold.withExpectedDevices(64).deviceGroups(bounded)).isEqualTo(1);
    assertThat(gold.withExpectedDevices(65).deviceGroups(bounded)).isEqualTo(2);
    assertThat(gold.withExpectedDevices(1000).deviceGroups(bounded)).isEqualTo(16);
    assertThat(gold.withExpectedDevices(1000).deviceGroups(unbounded)).isZero();
    assertThat(gold.withExpectedDevices(1000).deviceGroups(bounded, unbounded)).isZero();
    assertThat(gold.withExpectedDevices(1000).deviceGroups(bounded, bounded)).isEqualTo(16);
    WindowedDeviceStats streams = gold.withStreamsInGroups();
    assertThat(streams.deviceGroups(unbounded)).isEqualTo(WindowedDeviceStats.STREAM_GROUPS);
    assertThat(streams.withExpectedDevices(65).deviceGroups(unbounded)).isEqualTo(2);
    assertThat(streams.withExpectedDevices(1000).deviceGroups(bounded, unbounded)).isEqualTo(16);
    assertThat(streams.deviceGroups(bounded)).isZero(); // a bounded input as before
    PCollection<SensorReading> windowed =
        bounded.apply(Window.into(FixedWindows.of(Duration.standardMinutes(1))));
    assertThat(gold.withExpectedDevices(1000).deviceGroups(windowed)).isZero();
    assertThat(WindowedDeviceStats.joinKey("dev-0001", 0)).isEqualTo("dev-0001");
    assertThat(WindowedDeviceStats.joinKey("dev-0001", 1)).isEqualTo("group-0");
  }

  @Test
  void aGroupsRecordsAreSplitByDevice() {
    SensorReading a1 = reading("dev-0001", "temperature", 20.0, "2026-11-29T10:15:10Z", null);
    SensorReading b1 = reading("dev-0002", "temperature", 21.0, "2026-11-29T10:15:11Z", null);
    SensorReading a2 = reading("dev-0001", "humidity", 40.0, "2026-11-29T10:15:12Z", null);
    Heartbeat c = heartbeat("dev-0003", 80.0, -70, "ok", "2026-11-29T10:15:05Z", null);
    Heartbeat a = heartbeat("dev-0001", 70.0, -70, "ok", "2026-11-29T10:15:06Z", null);
    CoGbkResult group =
        CoGbkResult.of(WindowedDeviceStats.READINGS_SIDE, List.of(a1, b1, a2))
            .and(WindowedDeviceStats.HEARTBEATS_SIDE, List.of(c, a));

    List<WindowedDeviceStats.DeviceRecords> devices =
        List.copyOf(WindowedDeviceStats.DeviceRecords.of(group));

    assertThat(devices)
        .extracting(d -> d.deviceId)
        .containsExactly("dev-0001", "dev-0002", "dev-0003");
    assertThat(devices.get(0).readings).containsExactly(a1, a2);
    assertThat(devices.get(0).heartbeats).containsExactly(a);
    assertThat(devices.get(1).readings).containsExactly(b1);
    assertThat(devices.get(1).heartbeats).isEmpty();
    assertThat(devices.get(2).readings).isEmpty();
    assertThat(devices.get(2).heartbeats).containsExactly(c);
  }

  @Test
  void theWideRowsHaveTheColumnsTheCatalogAsksFor(TestPipeline p) throws Exception {
    Path file = tmp.resolve("bridges.yaml");
    Files.writeString(
        file,
        "sensors:\n"
            + "  temperature: {unit: C}\n"
            + "  vibration: {unit: mm/s, gold: [count, avg, max]}\n"
            + "  tilt: {unit: deg, gold: [min]}\n");
    SensorCatalog bridges = SensorCatalog.load(file.toString());
    PCollection<SensorReading> readings =
        p.apply(
            "Readings",
            Create.timestamped(
                    stamped(reading("dev-0001", "vibration", 2.0, "2026-11-29T10:15:10Z", null)),
                    stamped(reading("dev-0001", "vibration", 6.0, "2026-11-29T10:15:20Z", null)),
                    stamped(reading("dev-0001", "tilt", -1.5, "2026-11-29T10:15:30Z", null)),
                    stamped(reading("dev-0003", "tilt", 0.25, "2026-11-29T10:15:40Z", null)))
                .withCoder(readingCoder(p)));
    PCollectionTuple out =
        PCollectionTuple.of(ValidateAndEnrich.READINGS, readings)
            .and(ValidateAndEnrich.HEARTBEATS, noHeartbeats(p))
            .apply(WindowedDeviceStats.of(LATENESS, Duration.ZERO).withCatalog(bridges));
    String columns =
        "reading_count,temperature_avg,temperature_min,temperature_max,"
            + "vibration_count,vibration_avg,vibration_max,tilt_min,heartbeat_count";
    assertThat(
            String.join(
                ",", out.get(WindowedDeviceStats.DEVICE_MINUTE).getSchema().getFieldNames()))
        .contains(columns)
        .doesNotContain("humidity")
        .doesNotContain("pressure");
    assertThat(
            String.join(",", out.get(WindowedDeviceStats.SITE_MINUTE).getSchema().getFieldNames()))
        .contains(columns);
    PAssert.that(
            out.get(WindowedDeviceStats.DEVICE_MINUTE)
                .apply(
                    "DescribeWide",
                    MapElements.into(TypeDescriptors.strings())
                        .via((Row m) -> m.getString("device_id") + "|" + sensorColumns(m))))
        .containsInAnyOrder(
            "dev-0001|3|null|null|null|2|4.0|6.0|-1.5|0",
            "dev-0003|1|null|null|null|0|null|null|0.25|0");
    PAssert.that(
            out.get(WindowedDeviceStats.SITE_MINUTE)
                .apply(
                    "DescribeWideSites",
                    MapElements.into(TypeDescriptors.strings())
                        .via((Row m) -> m.getString("site") + "|" + sensorColumns(m))))
        .containsInAnyOrder(
            "berlin|3|null|null|null|2|4.0|6.0|-1.5|0",
            "paris|1|null|null|null|0|null|null|0.25|0");
    p.run();
  }

  /** The values from reading_count to heartbeat_count, both included. */
  private static String sensorColumns(Row m) {
    java.util.List<String> names = m.getSchema().getFieldNames();
    return String.join(
        "|",
        names.subList(names.indexOf("reading_count"), names.indexOf("heartbeat_count") + 1).stream()
            .map(n -> String.valueOf((Object) m.getValue(n)))
            .toList());
  }

  @Test
  void readingsAtOneInstantWithDifferentSeqBothCountAndAResendOnce(TestPipeline p)
      throws Exception {
    String ts = "2026-11-29T10:15:10Z";
    PCollection<SensorReading> readings =
        p.apply(
            "Readings",
            Create.timestamped(
                    // two readings at one instant, seq 1 and 2: both count
                    stamped(reading("dev-0001", "temperature", 20.0, ts, null, 1L)),
                    stamped(reading("dev-0001", "temperature", 23.0, ts, null, 2L)),
                    // seq 1 resent: counts once
                    stamped(
                        reading("dev-0001", "temperature", 20.0, ts, "2026-11-29T10:15:13Z", 1L)),
                    // no seq, one instant: one reading, the smaller value kept
                    stamped(reading("dev-0001", "humidity", 44.0, ts, null)),
                    stamped(reading("dev-0001", "humidity", 40.0, ts, null)))
                .withCoder(readingCoder(p)));
    PCollectionTuple out = gold(readings, noHeartbeats(p), Duration.ZERO);

    PAssert.that(described(out))
        .containsInAnyOrder(
            "dev-0001|ON_TIME|0|3|21.5|20.0|23.0|40.0|null|0|null|null|null|"
                + W1015.start()
                + "/"
                + W1015.end());
    PAssert.that(out.get(WindowedDeviceStats.TOO_LATE)).empty();
    p.run();
  }
}
