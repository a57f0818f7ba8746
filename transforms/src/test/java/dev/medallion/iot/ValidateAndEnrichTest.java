package dev.medallion.iot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.medallion.core.DeadLetter;
import dev.medallion.core.InvalidRecordException;
import dev.medallion.core.RawEvent;
import dev.medallion.testing.BeamPipelineExtension;
import dev.medallion.testing.Events;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.View;
import org.apache.beam.sdk.util.SerializableUtils;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.PCollectionView;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(BeamPipelineExtension.class)
class ValidateAndEnrichTest {
  private static final String TS = "\"ts\":\"2026-11-29T10:15:30.123Z\"";

  private static String reading(String device, String type, String value, String unit) {
    return "{\"device_id\":\""
        + device
        + "\",\"sensor_type\":"
        + type
        + ",\"value\":"
        + value
        + ",\"unit\":"
        + unit
        + ","
        + TS
        + "}";
  }

  private static String heartbeat(String battery, String rssi, String status) {
    return "{\"device_id\":\"dev-0001\",\"battery_pct\":"
        + battery
        + ",\"rssi_dbm\":"
        + rssi
        + ",\"status\":"
        + status
        + ","
        + TS
        + "}";
  }

  /** Every way a Bronze event can fail Silver, with the reason it must get. */
  static final List<KV<String, String>> INVALID =
      List.of(
          KV.of(reading("dev-0001", "\"temperature\"", "\"21.5\"", "\"C\""), "wrong_type:value"),
          KV.of(reading("dev-0001", "\"temperature\"", "null", "\"C\""), "missing_value"),
          KV.of(
              "{\"device_id\":\"dev-0001\",\"sensor_type\":\"humidity\",\"unit\":\"%\"," + TS + "}",
              "missing_value"),
          KV.of(reading("dev-0001", "\"temperature\"", "21.5", "\"K\""), "invalid_unit"),
          KV.of(reading("dev-0001", "\"humidity\"", "40", "\"C\""), "invalid_unit"),
          KV.of(reading("dev-0001", "\"pressure\"", "1000", "\"bar\""), "invalid_unit"),
          KV.of(reading("dev-0001", "\"temperature\"", "21.5", "null"), "missing_unit"),
          KV.of(reading("dev-0001", "\"temperature\"", "21.5", "3"), "wrong_type:unit"),
          KV.of(reading("dev-0001", "\"wind\"", "3", "\"m/s\""), "invalid_sensor_type"),
          KV.of(reading("dev-0001", "42", "3", "\"C\""), "wrong_type:sensor_type"),
          KV.of(reading("dev-0001", "\"temperature\"", "125.01", "\"C\""), "out_of_range:value"),
          KV.of(reading("dev-0001", "\"temperature\"", "-40.5", "\"F\""), "out_of_range:value"),
          KV.of(reading("dev-0001", "\"temperature\"", "258", "\"F\""), "out_of_range:value"),
          KV.of(reading("dev-0001", "\"humidity\"", "100.5", "\"%\""), "out_of_range:value"),
          KV.of(reading("dev-0001", "\"humidity\"", "-1", "\"%\""), "out_of_range:value"),
          KV.of(reading("dev-0001", "\"pressure\"", "299.9", "\"hPa\""), "out_of_range:value"),
          KV.of(reading("dev-0001", "\"pressure\"", "1100.1", "\"hPa\""), "out_of_range:value"),
          KV.of(reading("dev-0001", "\"humidity\"", "1e400", "\"%\""), "out_of_range:value"),
          KV.of(reading("dev-0001", "\"temperature\"", "-1E+400", "\"C\""), "out_of_range:value"),
          KV.of(
              reading("dev-0001", "\"pressure\"", "1" + "0".repeat(400), "\"hPa\""),
              "out_of_range:value"),
          KV.of(reading("dev-9999", "\"humidity\"", "40", "\"%\""), "unknown_device"),
          KV.of(
              reading("dev-0001", "\"humidity\"", "40", "\"%\"").replace("}", ",\"seq\":\"7\"}"),
              "wrong_type:seq"),
          KV.of(heartbeat("\"87\"", "-67", "\"ok\""), "wrong_type:battery_pct"),
          KV.of(heartbeat("101", "-67", "\"ok\""), "out_of_range:battery_pct"),
          KV.of(heartbeat("-0.1", "-67", "\"ok\""), "out_of_range:battery_pct"),
          KV.of(heartbeat("1e400", "-67", "\"ok\""), "out_of_range:battery_pct"),
          KV.of(heartbeat("50", "-67.5", "\"ok\""), "wrong_type:rssi_dbm"),
          KV.of(heartbeat("50", "null", "\"ok\""), "missing_rssi_dbm"),
          KV.of(heartbeat("50", "-67", "\"fine\""), "invalid_status"),
          KV.of(heartbeat("50", "-67", "null"), "missing_status"),
          KV.of(
              heartbeat("50", "-67", "\"ok\"").replace("dev-0001", "dev-4242"), "unknown_device"));

  private static BronzeEvent bronze(String line, long offset) {
    return IngestToBronze.classify(
        RawEvent.of(line, "file", "t.ndjson", null, offset, null), new Instant(0));
  }

  @Test
  void everyInvalidRecordIsQuarantinedWithItsReasonAndPayload(TestPipeline p) {
    List<BronzeEvent> events = new ArrayList<>();
    List<KV<String, String>> expected = new ArrayList<>();
    long n = 0;
    for (KV<String, String> c : INVALID) {
      BronzeEvent e = bronze(c.getKey(), ++n);
      events.add(e);
      expected.add(KV.of(e.getRawPayload(), "silver|" + c.getValue()));
    }
    PCollectionView<Map<String, Device>> devices =
        p.apply("Devices", Create.of(Events.DEVICES)).apply(View.asMap());
    PCollectionTuple out =
        p.apply("Bronze", Create.of(events)).apply(ValidateAndEnrich.withDevices(devices));

    PAssert.that(out.get(ValidateAndEnrich.READINGS)).empty();
    PAssert.that(out.get(ValidateAndEnrich.HEARTBEATS)).empty();
    PAssert.that(
            out.get(ValidateAndEnrich.QUARANTINE)
                .apply(
                    MapElements.into(
                            TypeDescriptors.kvs(
                                TypeDescriptors.strings(), TypeDescriptors.strings()))
                        .via(
                            (DeadLetter d) ->
                                KV.of(d.getOriginalPayload(), d.getStage() + "|" + d.getReason()))))
        .containsInAnyOrder(expected);
    p.run();
  }

  @Test
  void validRecordsAreEnrichedAndFahrenheitBecomesCelsius(TestPipeline p) {
    PCollectionView<Map<String, Device>> devices =
        p.apply("Devices", Create.of(Events.DEVICES)).apply(View.asMap());
    PCollectionTuple out =
        p.apply(
                "Bronze",
                Create.of(
                    bronze(reading("dev-0003", "\"temperature\"", "212", "\"F\""), 1),
                    bronze(reading("dev-0001", "\"humidity\"", "0", "\"%\""), 2),
                    bronze(heartbeat("0", "-90", "\"degraded\""), 3)))
            .apply(ValidateAndEnrich.withDevices(devices));

    PAssert.that(
            out.get(ValidateAndEnrich.READINGS)
                .apply(
                    "Describe",
                    MapElements.into(TypeDescriptors.strings())
                        .via(
                            (SensorReading r) ->
                                r.getDeviceId()
                                    + "|"
                                    + r.getSite()
                                    + "|"
                                    + r.getZone()
                                    + "|"
                                    + r.getSensorType()
                                    + "|"
                                    + r.getValue()
                                    + "|"
                                    + r.getUnit()
                                    + "|"
                                    + r.getOriginalValue()
                                    + "|"
                                    + r.getOriginalUnit())))
        .containsInAnyOrder(
            "dev-0003|paris|z1|temperature|100.0|C|212.0|F",
            "dev-0001|berlin|z1|humidity|0.0|%|0.0|%");
    PAssert.that(out.get(ValidateAndEnrich.HEARTBEATS))
        .satisfies(
            hs -> {
              var h = hs.iterator().next();
              assertThat(h.getStatus()).isEqualTo("degraded");
              assertThat(h.getBatteryPct()).isEqualTo(0.0);
              assertThat(h.getSite()).isEqualTo("berlin");
              return null;
            });
    PAssert.that(out.get(ValidateAndEnrich.QUARANTINE)).empty();
    p.run();
  }

  @Test
  void rangeBoundsAreInclusive() {
    assertThat(SensorCatalog.DEFAULT.canonical("temperature", -40, "F").value())
        .isCloseTo(-40.0, within(1e-9));
    assertThat(SensorCatalog.DEFAULT.canonical("temperature", 125, "C").value()).isEqualTo(125.0);
    assertThat(SensorCatalog.DEFAULT.canonical("humidity", 100, "%").value()).isEqualTo(100.0);
    assertThat(SensorCatalog.DEFAULT.canonical("pressure", 300, "hPa").value()).isEqualTo(300.0);
    assertThat(SensorCatalog.DEFAULT.canonical("pressure", 1100, "hPa").value()).isEqualTo(1100.0);
  }

  @Test
  void aNumberBeyondADoubleIsNamedAsWritten() {
    assertThatThrownBy(
            () ->
                ValidateAndEnrich.toReading(
                    bronze(reading("dev-0001", "\"humidity\"", "1e400", "\"%\""), 1),
                    Events.DEVICES,
                    SensorCatalog.DEFAULT))
        .isInstanceOf(InvalidRecordException.class)
        .hasMessage("value 1e400 is beyond the range of a double")
        .extracting("reason")
        .isEqualTo("out_of_range:value");
    assertThatThrownBy(
            () ->
                ValidateAndEnrich.toHeartbeat(
                    bronze(heartbeat("-2e308", "-67", "\"ok\""), 2), Events.DEVICES))
        .isInstanceOf(InvalidRecordException.class)
        .hasMessage("battery_pct -2e308 is beyond the range of a double")
        .extracting("reason")
        .isEqualTo("out_of_range:battery_pct");
  }

  /** A reading of 10:15:30.123Z that arrived over Kafka at {@code arrival}. */
  private static BronzeEvent arrived(String arrival) {
    return IngestToBronze.classify(
        RawEvent.of(
            reading("dev-0001", "\"humidity\"", "40", "\"%\""),
            "kafka",
            "iot.raw",
            0,
            7,
            Instant.parse(arrival)),
        new Instant(0));
  }

  @Test
  void aRegistryLoadedBeforeTheJobTravelsAsBytesNotAsDevices() {
    Map<String, Device> devices = new HashMap<>(Events.DEVICES);
    devices.put("dev-0004", Device.of("dev-0004", "oslo", "z9", null, null, null, null));
    // A Device is not Serializable: a copy of the registry carries its encoded bytes only.
    ValidateAndEnrich.FixedRegistry copy =
        SerializableUtils.clone(ValidateAndEnrich.FixedRegistry.of(devices));
    assertThat(copy.devices()).isEqualTo(devices);
    assertThat(Serializable.class.isAssignableFrom(Device.class)).isFalse();
  }

  @Test
  void anEventFarAheadOfItsArrivalIsQuarantinedAsFutureTs(TestPipeline p) {
    BronzeEvent twoHoursAhead = arrived("2026-11-29T08:15:30.123Z");
    BronzeEvent oneHourAhead = arrived("2026-11-29T09:15:30.123Z");
    BronzeEvent replayed = bronze(reading("dev-0001", "\"humidity\"", "40", "\"%\""), 1);
    PCollectionTuple out =
        p.apply(Create.of(twoHoursAhead, oneHourAhead, replayed))
            .apply(ValidateAndEnrich.withRegistry(Events.DEVICES));
    // The default bound is one hour, inclusive; a file replay has no arrival time to compare.
    PAssert.that(
            out.get(ValidateAndEnrich.READINGS)
                .apply(
                    "Sources",
                    MapElements.into(TypeDescriptors.strings()).via(SensorReading::getSource)))
        .containsInAnyOrder("kafka:iot.raw/0#7", "file:t.ndjson#1");
    PAssert.thatSingleton(out.get(ValidateAndEnrich.QUARANTINE))
        .satisfies(
            d -> {
              assertThat(d.getReason()).isEqualTo("future_ts");
              assertThat(d.getDetail())
                  .isEqualTo(
                      "event at 2026-11-29T10:15:30.123Z is more than 3600 s ahead of its arrival"
                          + " at 2026-11-29T08:15:30.123Z (--maxFutureSeconds)");
              return null;
            });
    p.run();
  }

  @Test
  void theBoundIsAnOption() {
    assertThatThrownBy(
            () ->
                ValidateAndEnrich.requireNotAheadOfArrival(
                    arrived("2026-11-29T10:14:30.123Z"), Duration.standardSeconds(30)))
        .isInstanceOf(InvalidRecordException.class)
        .extracting("reason")
        .isEqualTo("future_ts");
    ValidateAndEnrich.requireNotAheadOfArrival(
        arrived("2026-11-29T10:14:30.123Z"), Duration.standardSeconds(60));
  }
}
