package dev.medallion.iot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.medallion.core.DeadLetter;
import dev.medallion.core.FieldMapping;
import dev.medallion.core.InvalidRecordException;
import dev.medallion.core.RawEvent;
import dev.medallion.testing.BeamPipelineExtension;
import dev.medallion.users.IngestUserEvents;
import dev.medallion.users.UserEventBronze;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.Reify;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.TimestampedValue;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(BeamPipelineExtension.class)
public class IngestToBronzeTest {
  public static final String READING =
      "{\"device_id\":\"dev-0007\",\"sensor_type\":\"temperature\",\"value\":21.73,\"unit\":\"C\","
          + "\"ts\":\"2026-11-29T10:15:30.123Z\",\"seq\":1042}";
  public static final String HEARTBEAT =
      "{\"device_id\":\"dev-0007\",\"battery_pct\":87.5,\"rssi_dbm\":-67,\"status\":\"ok\","
          + "\"ts\":1795947330123}";

  /** Every way a line can fail Bronze, with the reason it must get. */
  static final List<KV<String, String>> INVALID =
      List.of(
          KV.of("", "empty_line"),
          KV.of("   ", "empty_line"),
          KV.of("{\"device_id\":\"dev-0007\",", "not_json"),
          KV.of("not json at all", "not_json"),
          KV.of("[1,2,3]", "not_object"),
          KV.of("\"a string\"", "not_object"),
          KV.of("{\"sensor_type\":\"humidity\",\"ts\":1795947330123}", "missing_device_id"),
          KV.of(
              "{\"device_id\":null,\"sensor_type\":\"humidity\",\"ts\":1795947330123}",
              "missing_device_id"),
          KV.of(
              "{\"device_id\":\"\",\"sensor_type\":\"humidity\",\"ts\":1795947330123}",
              "missing_device_id"),
          KV.of(
              "{\"device_id\":7,\"sensor_type\":\"humidity\",\"ts\":1795947330123}",
              "wrong_type:device_id"),
          KV.of("{\"device_id\":\"dev-0001\",\"sensor_type\":\"humidity\"}", "missing_ts"),
          KV.of(
              "{\"device_id\":\"dev-0001\",\"sensor_type\":\"humidity\",\"ts\":\"2026-11-29T10:15:30\"}",
              "invalid_ts"),
          KV.of(
              "{\"device_id\":\"dev-0001\",\"sensor_type\":\"humidity\",\"ts\":\"1795947330123\"}",
              "invalid_ts"),
          KV.of(
              "{\"device_id\":\"dev-0001\",\"sensor_type\":\"humidity\",\"ts\":1795947330.5}",
              "invalid_ts"),
          KV.of(
              "{\"device_id\":\"dev-0001\",\"ts\":1795947330123,\"foo\":1}", "unknown_event_type"),
          KV.of(
              "{\"device_id\":\"dev-0001\",\"pad\":\"" + "x".repeat(1_000_000) + "\"}",
              "too_large"),
          KV.of("{\"device_id\":\"dev-0001\",\"device_id\":\"dev-0002\",\"ts\":1}", "not_json"),
          // Two objects on one line: the second would be lost if the first were taken.
          KV.of(
              "{\"device_id\":\"dev-0008\",\"sensor_type\":\"humidity\",\"ts\":1}"
                  + "{\"device_id\":\"dev-0007\",\"sensor_type\":\"humidity\",\"ts\":2}",
              "trailing_data"),
          KV.of(
              "{\"device_id\":\"dev-0008\",\"sensor_type\":\"humidity\",\"ts\":1} garbage",
              "trailing_data"),
          KV.of(
              "{\"device_id\":\"dev-0008\",\"sensor_type\":\"humidity\",\"ts\":1},",
              "trailing_data"));

  @Test
  void theParseChecksAnEventTimeAgainstALineAtTheEarliestTimestampWithoutOverflow() {
    Duration skew = new IngestToBronze.ParseRawEventFn(FieldMapping.NONE).getAllowedTimestampSkew();
    // what the runner computes for each stamped event: the line's timestamp minus the skew; a
    // file's lines are at the earliest timestamp, and an overflow there throws for every event
    Instant lowest = BoundedWindow.TIMESTAMP_MIN_VALUE.minus(skew);
    assertThat(lowest).isLessThan(BoundedWindow.TIMESTAMP_MIN_VALUE);
    assertThat(BoundedWindow.TIMESTAMP_MAX_VALUE.minus(skew))
        .isLessThanOrEqualTo(BoundedWindow.TIMESTAMP_MIN_VALUE);
  }

  @Test
  void everyInvalidLineIsADeadLetterWithItsReason(TestPipeline p) {
    List<RawEvent> lines = new ArrayList<>();
    List<KV<String, String>> expected = new ArrayList<>();
    long offset = 0;
    for (KV<String, String> c : INVALID) {
      RawEvent raw = RawEvent.of(c.getKey(), "file", "bad.ndjson", null, ++offset, null);
      lines.add(raw);
      expected.add(KV.of(raw.lineId(), c.getValue()));
    }
    PCollectionTuple out = p.apply(Create.of(lines)).apply(IngestToBronze.create());

    PAssert.that(out.get(IngestToBronze.EVENTS)).empty();
    PAssert.that(
            out.get(IngestToBronze.DEAD_LETTERS)
                .apply(
                    "SourceAndReason",
                    MapElements.into(
                            TypeDescriptors.kvs(
                                TypeDescriptors.strings(), TypeDescriptors.strings()))
                        .via((DeadLetter d) -> KV.of(d.getSource(), d.getReason()))))
        .containsInAnyOrder(expected);
    PAssert.that(
            out.get(IngestToBronze.DEAD_LETTERS)
                .apply(
                    "StageAndPayload",
                    MapElements.into(TypeDescriptors.strings())
                        .via((DeadLetter d) -> d.getStage() + "|" + d.getOriginalPayload())))
        .containsInAnyOrder(
            INVALID.stream().map(c -> "bronze|" + c.getKey()).toArray(String[]::new));
    p.run();
  }

  @Test
  void validLinesKeepTheirPayloadAndAreStampedWithEventTime(TestPipeline p) {
    Instant arrival = new Instant(1795947400000L);
    PCollectionTuple out =
        p.apply(
                Create.of(
                    RawEvent.of(READING, "kafka", "iot.raw", 3, 17, arrival),
                    RawEvent.of(HEARTBEAT, "file", "/data/a.ndjson", null, 2, null)))
            .apply(IngestToBronze.create());

    PCollection<TimestampedValue<String>> stamped =
        out.get(IngestToBronze.EVENTS)
            .apply(
                MapElements.into(TypeDescriptors.strings())
                    .via(
                        (BronzeEvent e) ->
                            String.join(
                                "|",
                                e.getEventKind(),
                                e.getDeviceId(),
                                e.getRawPayload(),
                                e.getSource(),
                                String.valueOf(e.getReceivedAt()),
                                e.getDate(),
                                String.valueOf(e.getHour()),
                                String.valueOf(e.getSchemaVersion()))))
            .apply(Reify.timestamps());
    Instant ts = new Instant(1795947330123L);
    PAssert.that(stamped)
        .containsInAnyOrder(
            TimestampedValue.of(
                "reading|dev-0007|"
                    + READING
                    + "|kafka:iot.raw/3#17|"
                    + arrival
                    + "|2026-11-29|10|1",
                ts),
            TimestampedValue.of(
                "heartbeat|dev-0007|" + HEARTBEAT + "|file:/data/a.ndjson#2|null|2026-11-29|10|1",
                ts));
    PAssert.that(out.get(IngestToBronze.DEAD_LETTERS)).empty();
    p.run();
  }

  @Test
  void aRecordKeyedByAnotherDeviceIsRejected() {
    RawEvent raw = RawEvent.of(READING, "kafka", "iot-raw", 2, 41, new Instant(0));
    assertThat(IngestToBronze.classify(raw.withSourceKey("dev-0007"), new Instant(0)).getDeviceId())
        .isEqualTo("dev-0007");
    assertThatThrownBy(() -> IngestToBronze.classify(raw.withSourceKey("dev-0003"), new Instant(0)))
        .isInstanceOfSatisfying(
            InvalidRecordException.class, e -> assertThat(e.getReason()).isEqualTo("key_mismatch"))
        .hasMessageContaining("dev-0003")
        .hasMessageContaining("dev-0007");
  }

  @Test
  void classifyIsTheWholeRule() {
    RawEvent raw = RawEvent.of(READING, "file", "x", null, 1, null);
    BronzeEvent e = IngestToBronze.classify(raw, new Instant(0));
    assertThat(e.getEventKind()).isEqualTo("reading");
    assertThat(e.getEventTs()).isEqualTo(new Instant(1795947330123L));
    assertThat(e.getSensorType()).isEqualTo("temperature");
    assertThat(e.getValue()).isEqualTo(21.73);
    assertThat(e.getSeq()).isEqualTo(1042L);
    assertThat(e.getBatteryPct()).isNull();
    assertThat(e.getTypeErrors()).isNull();
    assertThat(e.getExtra()).isNull(); // every field of the line is a known one
  }

  @Test
  void fieldsNoRuleKnowsAreKeptAsOneJsonObjectInBronzeAndSilver() {
    String line =
        READING.replace("}", ",\"firmware\":\"1.2\",\"calib\":{\"offset\":0.5},\"tags\":[1,2]}");
    BronzeEvent e =
        IngestToBronze.classify(RawEvent.of(line, "file", "x", null, 1, null), new Instant(0));
    assertThat(e.getExtra())
        .isEqualTo("{\"firmware\":\"1.2\",\"calib\":{\"offset\":0.5},\"tags\":[1,2]}");
    // a heartbeat's reading fields are known ones, even when absent or null
    BronzeEvent h =
        IngestToBronze.classify(
            RawEvent.of(
                HEARTBEAT.replace("}", ",\"value\":null,\"fw\":2}"), "file", "x", null, 2, null),
            new Instant(0));
    assertThat(h.getExtra()).isEqualTo("{\"fw\":2}");
    assertThat(
            ValidateAndEnrich.toReading(
                    e,
                    java.util.Map.of(
                        "dev-0007", Device.of("dev-0007", "berlin", "z1", null, null, null, null)),
                    SensorCatalog.DEFAULT)
                .getExtra())
        .isEqualTo(e.getExtra());
    UserEventBronze u =
        IngestUserEvents.parse(
            RawEvent.of(
                "{\"user_id\":\"u1\",\"event_type\":\"view\",\"event_timestamp\":1,"
                    + "\"model_input_flag\":true,\"price\":null}",
                "file",
                "x",
                null,
                3,
                null),
            new Instant(0));
    assertThat(u.getExtra()).isEqualTo("{\"model_input_flag\":true}");
  }

  @Test
  void fieldsOfTheWrongJsonTypeAreNullAndNamedForSilver() {
    String line =
        "{\"device_id\":\"dev-0001\",\"sensor_type\":\"humidity\",\"value\":\"40\",\"unit\":7,"
            + "\"seq\":1.5,\"ts\":1795947330123}";
    BronzeEvent e =
        IngestToBronze.classify(RawEvent.of(line, "file", "x", null, 1, null), new Instant(0));
    assertThat(e.getValue()).isNull();
    assertThat(e.getUnit()).isNull();
    assertThat(e.getSeq()).isNull();
    assertThat(e.getTypeErrors()).isEqualTo("value:string,unit:number,seq:number");
    assertThat(e.getRawPayload()).isEqualTo(line);
  }

  @Test
  void aUserEventLineWithTwoObjectsLosesNeitherItIsRejectedWhole() {
    RawEvent twoUsers =
        RawEvent.of(
            "{\"user_id\":\"u8\",\"event_type\":\"view\",\"event_timestamp\":1}"
                + "{\"user_id\":\"u7\",\"event_type\":\"view\",\"event_timestamp\":2}",
            "file",
            "x",
            null,
            1,
            null);
    assertThatThrownBy(() -> IngestUserEvents.parse(twoUsers, new Instant(0)))
        .isInstanceOf(InvalidRecordException.class)
        .extracting(e -> ((InvalidRecordException) e).getReason())
        .isEqualTo("trailing_data");
  }

  @Test
  void aLineThatDidNotDecodeIsInvalidUtf8EvenWhenItsTextParses() {
    RawEvent raw =
        RawEvent.of(
            READING.replace("dev-0007", "dev-\\xFF"),
            "file",
            "x",
            null,
            2,
            null,
            "byte 0xFF at offset 18");
    for (Runnable rule :
        List.<Runnable>of(
            () -> IngestToBronze.classify(raw, new Instant(0)),
            () -> IngestUserEvents.parse(raw, new Instant(0)))) {
      assertThatThrownBy(rule::run)
          .isInstanceOf(InvalidRecordException.class)
          .hasMessage("line is not valid UTF-8 (byte 0xFF at offset 18)")
          .extracting("reason")
          .isEqualTo("invalid_utf8");
    }
  }

  @Test
  void numbersBeyondTheRangeOfADoubleAreNullAndNamedOutOfRange() {
    String reading =
        "{\"device_id\":\"dev-0001\",\"sensor_type\":\"humidity\",\"value\":1e400,"
            + "\"unit\":\"%\",\"ts\":1795947330123}";
    BronzeEvent r =
        IngestToBronze.classify(RawEvent.of(reading, "file", "x", null, 1, null), new Instant(0));
    assertThat(r.getValue()).isNull();
    assertThat(r.getTypeErrors()).isEqualTo("value:out_of_range");

    String heartbeat =
        "{\"device_id\":\"dev-0001\",\"battery_pct\":-1"
            + "0".repeat(400)
            + ",\"rssi_dbm\":-67,\"status\":\"ok\",\"ts\":1795947330123}";
    BronzeEvent h =
        IngestToBronze.classify(RawEvent.of(heartbeat, "file", "x", null, 2, null), new Instant(0));
    assertThat(h.getBatteryPct()).isNull();
    assertThat(h.getTypeErrors()).isEqualTo("battery_pct:out_of_range");
  }
}
