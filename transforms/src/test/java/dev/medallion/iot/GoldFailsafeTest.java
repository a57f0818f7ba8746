package dev.medallion.iot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.medallion.core.DeadLetter;
import dev.medallion.testing.BeamPipelineExtension;
import dev.medallion.testing.Events;
import java.util.List;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.join.CoGbkResult;
import org.apache.beam.sdk.transforms.join.CoGbkResultSchema;
import org.apache.beam.sdk.transforms.join.UnionCoder;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.TupleTagList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A device-minute row that cannot be computed (here: a group that reaches the row step outside a
 * minute window, a wiring bug) sends the group's records to the quarantine instead of failing.
 */
@ExtendWith(BeamPipelineExtension.class)
class GoldFailsafeTest {
  @Test
  void aGroupWhoseRowThrowsBecomesGoldDeadLetters(TestPipeline p) throws Exception {
    SensorReading r = Events.reading("dev-0001", "temperature", 21.5, "2026-11-29T10:15:10Z", null);
    Heartbeat h = Events.heartbeat("dev-0001", 80, -60, "ok", "2026-11-29T10:15:30Z", null);
    Coder<SensorReading> readingCoder = p.getSchemaRegistry().getSchemaCoder(SensorReading.class);
    Coder<Heartbeat> heartbeatCoder = p.getSchemaRegistry().getSchemaCoder(Heartbeat.class);
    CoGbkResult group =
        CoGbkResult.of(WindowedDeviceStats.READINGS_SIDE, List.of(r))
            .and(WindowedDeviceStats.HEARTBEATS_SIDE, List.of(h));
    Coder<CoGbkResult> groupCoder =
        CoGbkResult.CoGbkResultCoder.of(
            CoGbkResultSchema.of(
                List.of(WindowedDeviceStats.READINGS_SIDE, WindowedDeviceStats.HEARTBEATS_SIDE)),
            UnionCoder.of(List.of(readingCoder, heartbeatCoder)));

    PCollectionTuple out =
        p.apply(
                Create.of(KV.of("dev-0001", group))
                    .withCoder(KvCoder.of(StringUtf8Coder.of(), groupCoder)))
            .apply(
                ParDo.of(new WindowedDeviceStats.DeviceMinuteFn(SensorCatalog.DEFAULT))
                    .withOutputTags(
                        WindowedDeviceStats.DEVICE_MINUTE,
                        TupleTagList.of(DeadLetter.TAG).and(WindowedDeviceStats.SENSOR_MINUTE)));
    out.get(WindowedDeviceStats.DEVICE_MINUTE)
        .setRowSchema(GoldColumns.deviceMinute(SensorCatalog.DEFAULT));

    String readingPayload = r.getRawPayload();
    String heartbeatPayload = h.getRawPayload();
    PAssert.that(out.get(WindowedDeviceStats.DEVICE_MINUTE)).empty();
    PAssert.that(out.get(WindowedDeviceStats.SENSOR_MINUTE)).empty();
    PAssert.that(out.get(DeadLetter.TAG))
        .satisfies(
            letters -> {
              assertThat(letters).hasSize(2);
              for (DeadLetter d : letters) {
                assertThat(d.getStage()).isEqualTo("gold");
                assertThat(d.getReason()).isEqualTo("unexpected_error");
                assertThat(d.getDetail()).contains("ClassCastException", "\tat ");
              }
              assertThat(letters)
                  .extracting(DeadLetter::getOriginalPayload)
                  .containsExactlyInAnyOrder(readingPayload, heartbeatPayload);
              return null;
            });
    p.run().waitUntilFinish();
  }
}
