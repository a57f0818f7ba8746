package dev.medallion.iot;

import static dev.medallion.testing.Events.at;
import static dev.medallion.testing.Events.heartbeat;
import static dev.medallion.testing.Events.reading;
import static org.assertj.core.api.Assertions.assertThat;

import dev.medallion.core.DeadLetter;
import dev.medallion.testing.BeamPipelineExtension;
import dev.medallion.testing.Events;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.schemas.NoSuchSchemaException;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.TimestampedValue;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Gold on the DirectRunner with hand-made panes. Expected rows are worked out by hand in each test.
 * Rows are compared as {@code device|timing|pane|readings|t_avg|t_min|t_max|h_avg|p_avg|
 * heartbeats|battery_min|rssi_avg|last_status}.
 */
@ExtendWith(BeamPipelineExtension.class)
class WindowedDeviceStatsTest {
  private static final Duration LATENESS = Duration.standardMinutes(2);
  private static final IntervalWindow W1015 =
      new IntervalWindow(at("2026-11-29T10:15:00Z"), at("2026-11-29T10:16:00Z"));
  private static final IntervalWindow W1016 =
      new IntervalWindow(at("2026-11-29T10:16:00Z"), at("2026-11-29T10:17:00Z"));

  static String describe(DeviceMinute m) {
    return String.join(
        "|",
        m.getDeviceId(),
        m.getPaneTiming(),
        String.valueOf(m.getPaneIndex()),
        String.valueOf(m.getReadingCount()),
        String.valueOf(m.getTemperatureAvg()),
        String.valueOf(m.getTemperatureMin()),
        String.valueOf(m.getTemperatureMax()),
        String.valueOf(m.getHumidityAvg()),
        String.valueOf(m.getPressureAvg()),
        String.valueOf(m.getHeartbeatCount()),
        String.valueOf(m.getBatteryPctMin()),
        String.valueOf(m.getRssiDbmAvg()),
        String.valueOf(m.getLastStatus()),
        m.getWindowStart() + "/" + m.getWindowEnd());
  }

  private static PCollection<String> described(PCollectionTuple gold) {
    return gold.get(WindowedDeviceStats.DEVICE_MINUTE)
        .apply(
            "Describe",
            MapElements.into(TypeDescriptors.strings()).via(WindowedDeviceStatsTest::describe));
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
    return PCollectionTuple.of(ValidateAndEnrich.READINGS, readings)
        .and(ValidateAndEnrich.HEARTBEATS, heartbeats)
        .apply(WindowedDeviceStats.of(LATENESS, slack));
  }

  private static TimestampedValue<SensorReading> stamped(SensorReading r) {
    return TimestampedValue.of(r, r.getEventTs());
  }

  @Test
  void onTimeReadingsFireOnePaneWhenTheWatermarkPassesTheWindow(TestPipeline p) throws Exception {
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
    PCollectionTuple out = gold(p.apply(events), noHeartbeats(p), Duration.ZERO);
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

  @Test
  void aLateRecordWithinTheAllowedLatenessFiresAReplacingPane(TestPipeline p) throws Exception {
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
    PCollectionTuple out = gold(p.apply(events), noHeartbeats(p), Duration.ZERO);

    String window = "|" + W1015.start() + "/" + W1015.end();
    PCollection<String> rows = described(out);
    PAssert.that(rows)
        .inOnTimePane(W1015)
        .containsInAnyOrder(
            "dev-0001|ON_TIME|0|1|20.0|20.0|20.0|null|null|0|null|null|null" + window);
    PAssert.that(rows)
        .inWindow(W1015)
        .containsInAnyOrder(
            "dev-0001|ON_TIME|0|1|20.0|20.0|20.0|null|null|0|null|null|null" + window,
            "dev-0001|LATE|1|2|23.0|20.0|26.0|null|null|0|null|null|null" + window);
    PAssert.that(out.get(WindowedDeviceStats.TOO_LATE)).empty();
    p.run();
  }

  @Test
  void lateRecordsArrivingTogetherFireOneLatePaneNotOneEach(TestPipeline p) throws Exception {
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
    PCollectionTuple out = gold(p.apply(events), noHeartbeats(p), Duration.ZERO);

    String window = "|" + W1015.start() + "/" + W1015.end();
    PAssert.that(described(out))
        .inWindow(W1015)
        .containsInAnyOrder(
            "dev-0001|ON_TIME|0|1|20.0|20.0|20.0|null|null|0|null|null|null" + window,
            "dev-0001|LATE|1|3|22.0|20.0|24.0|null|null|0|null|null|null" + window);
    p.run();
  }

  @Test
  void aRecordLaterThanTheAllowedLatenessIsATooLateDeadLetter(TestPipeline p) throws Exception {
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
    PCollectionTuple out = gold(p.apply(events), noHeartbeats(p), Duration.ZERO);

    PAssert.that(described(out))
        .inWindow(W1015)
        .containsInAnyOrder(
            "dev-0001|ON_TIME|0|1|20.0|20.0|20.0|null|null|0|null|null|null|"
                + W1015.start()
                + "/"
                + W1015.end());
    PAssert.that(
            out.get(WindowedDeviceStats.TOO_LATE)
                .apply(
                    "Reason",
                    MapElements.into(TypeDescriptors.strings())
                        .via(
                            (DeadLetter d) ->
                                d.getStage() + "|" + d.getReason() + "|" + d.getOriginalPayload())))
        .containsInAnyOrder("gold|too_late|" + tooLate.getRawPayload());
    p.run();
  }

  @Test
  void theWatermarkSlackKeepsARecordThatWasInFlightWhenTheWatermarkMovedOn(TestPipeline p)
      throws Exception {
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
    PCollectionTuple out = gold(p.apply(events), noHeartbeats(p), Duration.standardMinutes(1));

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

  @Test
  void aRecordTheRunnerDropsBehindItsWatermarkIsCountedNotSilent(TestPipeline p) throws Exception {
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
    PCollectionTuple out = gold(p.apply(events), noHeartbeats(p), Duration.ZERO);

    PAssert.that(described(out)).empty();
    PAssert.that(out.get(WindowedDeviceStats.TOO_LATE)).empty();
    PipelineResult result = p.run();
    result.waitUntilFinish();
    // Two groupings (per device, per site) each drop the record once.
    assertThat(dev.medallion.core.RunnerDrops.count(result)).isEqualTo(2);
  }

  @Test
  void theJoinIsFullOuterAndResentEventsCountOnce(TestPipeline p) throws Exception {
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
                    stamped(reading("dev-0003", "pressure", 1003.0, "2026-11-29T10:15:31Z", null)))
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
                        at("2026-11-29T10:15:59.999Z")))
                .withCoder(p.getSchemaRegistry().getSchemaCoder(Heartbeat.class)));
    PCollectionTuple out = gold(readings, heartbeats, Duration.ZERO);

    String window = "|" + W1015.start() + "/" + W1015.end();
    PAssert.that(described(out))
        .containsInAnyOrder(
            // readings only: no heartbeat in the window, heartbeat values null
            "dev-0001|ON_TIME|0|2|20.0|20.0|20.0|41.0|null|0|null|null|null" + window,
            // heartbeats only (one resent): readings null, last status of the later heartbeat
            "dev-0002|ON_TIME|0|0|null|null|null|null|null|2|79.5|-65.0|degraded" + window,
            // both sides
            "dev-0003|ON_TIME|0|2|null|null|null|null|1002.0|1|50.0|-80.0|error" + window);
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
                            (SiteMinute s) ->
                                s.getSite()
                                    + "|"
                                    + s.getDeviceCount()
                                    + "|"
                                    + s.getReadingCount()
                                    + "|"
                                    + s.getHeartbeatCount()
                                    + "|"
                                    + s.getBatteryPctMin()
                                    + "|"
                                    + s.getPressureAvg())))
        .containsInAnyOrder("berlin|2|2|2|79.5|null", "paris|1|2|1|50.0|1002.0");
    p.run();
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
