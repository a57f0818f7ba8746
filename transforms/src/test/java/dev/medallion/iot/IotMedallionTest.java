package dev.medallion.iot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.medallion.core.DeadLetter;
import dev.medallion.core.RawEvent;
import dev.medallion.testing.BeamPipelineExtension;
import dev.medallion.testing.Events;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.Count;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The whole IoT medallion as one composite, with no sink: a test (like the jobs and the Kafka
 * stages) reads its layers straight from the returned tuple.
 */
@ExtendWith(BeamPipelineExtension.class)
class IotMedallionTest {
  private static final List<String> LINES =
      List.of(
          "{\"device_id\":\"dev-0001\",\"sensor_type\":\"temperature\",\"value\":21.5,\"unit\":\"C\",\"ts\":\"2026-11-29T10:15:10Z\"}",
          "{\"device_id\":\"dev-0001\",\"sensor_type\":\"temperature\",\"value\":22.5,\"unit\":\"C\",\"ts\":\"2026-11-29T10:15:50Z\"}",
          "{\"device_id\":\"dev-0001\",\"battery_pct\":80,\"rssi_dbm\":-60,\"status\":\"ok\",\"ts\":\"2026-11-29T10:15:30Z\"}",
          "{\"device_id\":\"dev-0404\",\"sensor_type\":\"humidity\",\"value\":40,\"unit\":\"%\",\"ts\":\"2026-11-29T10:15:20Z\"}",
          "not json");

  @Test
  void rawLinesBecomeEveryLayerAndTheirDeadLetters(TestPipeline p) {
    List<RawEvent> raw = new ArrayList<>();
    for (int i = 0; i < LINES.size(); i++) {
      raw.add(RawEvent.of(LINES.get(i), "file", "t.ndjson", null, i + 1, null));
    }
    PCollectionTuple layers =
        p.apply(Create.of(raw)).apply(IotMedallion.withRegistry(Events.DEVICES));

    PAssert.thatSingleton(layers.get(IotMedallion.BRONZE).apply("CountBronze", Count.globally()))
        .isEqualTo(4L);
    PAssert.thatSingleton(
            layers.get(IotMedallion.READINGS).apply("CountReadings", Count.globally()))
        .isEqualTo(2L);
    PAssert.thatSingleton(
            layers.get(IotMedallion.HEARTBEATS).apply("CountHeartbeats", Count.globally()))
        .isEqualTo(1L);
    PAssert.that(
            layers
                .get(IotMedallion.DEAD_LETTERS)
                .apply(
                    "StageAndReason",
                    MapElements.into(TypeDescriptors.strings())
                        .via((DeadLetter d) -> d.getStage() + "/" + d.getReason())))
        .containsInAnyOrder("bronze/not_json", "silver/unknown_device");
    PAssert.thatSingleton(layers.get(IotMedallion.DEVICE_MINUTE))
        .satisfies(
            m -> {
              assertThat(m.getString("device_id")).isEqualTo("dev-0001");
              assertThat(m.getDateTime("window_start").toInstant())
                  .isEqualTo(Events.at("2026-11-29T10:15:00Z"));
              assertThat(m.getInt64("reading_count")).isEqualTo(2);
              assertThat(m.getDouble("temperature_avg")).isEqualTo(22.0);
              assertThat(m.getInt64("heartbeat_count")).isEqualTo(1);
              assertThat(m.getString("last_status")).isEqualTo("ok");
              return null;
            });
    PAssert.thatSingleton(layers.get(IotMedallion.SITE_MINUTE))
        .satisfies(
            m -> {
              assertThat(m.getString("site")).isEqualTo("berlin");
              assertThat(m.getInt64("device_count")).isEqualTo(1);
              return null;
            });
    p.run().waitUntilFinish();
  }
}
