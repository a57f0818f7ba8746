package dev.medallion.iot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.medallion.core.BatchBytesCoder;
import dev.medallion.core.DeadLetter;
import dev.medallion.testing.BeamPipelineExtension;
import dev.medallion.testing.Events;
import java.util.List;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.IterableCoder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.join.CoGbkResult;
import org.apache.beam.sdk.transforms.join.CoGbkResultSchema;
import org.apache.beam.sdk.transforms.join.UnionCoder;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.Row;
import org.apache.beam.sdk.values.TupleTagList;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A device-minute row that cannot be computed (here: a group that reaches the row step outside a
 * minute window, a wiring bug) sends the group's records to the quarantine instead of failing; a
 * site-minute row, whose records are in its devices' rows, one dead letter for the site.
 */
@ExtendWith(BeamPipelineExtension.class)
class GoldFailsafeTest {
  /**
   * The device-row step applied to one joined group outside any minute window, as a wiring bug
   * would hand it on: every row it tries throws.
   */
  private static PCollectionTuple deviceRowsOutsideAWindow(
      TestPipeline p, String key, List<SensorReading> readings, List<Heartbeat> heartbeats)
      throws Exception {
    Coder<SensorReading> readingCoder = p.getSchemaRegistry().getSchemaCoder(SensorReading.class);
    Coder<Heartbeat> heartbeatCoder = p.getSchemaRegistry().getSchemaCoder(Heartbeat.class);
    CoGbkResult group =
        CoGbkResult.of(WindowedDeviceStats.READINGS_SIDE, readings)
            .and(WindowedDeviceStats.HEARTBEATS_SIDE, heartbeats);
    Coder<CoGbkResult> groupCoder =
        CoGbkResult.CoGbkResultCoder.of(
            CoGbkResultSchema.of(
                List.of(WindowedDeviceStats.READINGS_SIDE, WindowedDeviceStats.HEARTBEATS_SIDE)),
            UnionCoder.of(List.of(readingCoder, heartbeatCoder)));
    return rows(
        p.apply(
            Create.of(KV.of(key, group)).withCoder(KvCoder.of(StringUtf8Coder.of(), groupCoder))),
        new WindowedDeviceStats.DeviceMinuteFn(SensorCatalog.DEFAULT));
  }

  private static PCollection<String> quarantinedPayloads(PCollectionTuple rows) {
    return rows.get(DeadLetter.TAG)
        .apply(
            "Payloads",
            MapElements.into(TypeDescriptors.strings()).via(DeadLetter::getOriginalPayload));
  }

  /** The device rows, dead letters and sensor rows of a row step applied to {@code groups}. */
  private static PCollectionTuple rows(
      PCollection<KV<String, CoGbkResult>> groups, DoFn<KV<String, CoGbkResult>, Row> step) {
    PCollectionTuple out =
        groups.apply(
            "Rows",
            ParDo.of(step)
                .withOutputTags(
                    WindowedDeviceStats.DEVICE_MINUTE,
                    TupleTagList.of(DeadLetter.TAG).and(WindowedDeviceStats.SENSOR_MINUTE)));
    out.get(WindowedDeviceStats.DEVICE_MINUTE)
        .setRowSchema(GoldColumns.deviceMinute(SensorCatalog.DEFAULT));
    return out;
  }

  @Test
  void aGroupWhoseRowThrowsBecomesGoldDeadLetters(TestPipeline p) throws Exception {
    SensorReading r = Events.reading("dev-0001", "temperature", 21.5, "2026-11-29T10:15:10Z", null);
    Heartbeat h = Events.heartbeat("dev-0001", 80, -60, "ok", "2026-11-29T10:15:30Z", null);
    PCollectionTuple out = deviceRowsOutsideAWindow(p, "dev-0001", List.of(r), List.of(h));

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

  /**
   * A group of a bounded input's devices, joined record by record: every record of every failed
   * device is quarantined with its raw payload.
   */
  @Test
  void eachDeviceOfAGroupWhoseRowsThrowIsQuarantinedWithAllItsRecords(TestPipeline p)
      throws Exception {
    SensorReading r1 =
        Events.reading("dev-0001", "temperature", 21.5, "2026-11-29T10:15:10Z", null);
    SensorReading r2 = Events.reading("dev-0002", "humidity", 40.0, "2026-11-29T10:15:20Z", null);
    SensorReading r3 = Events.reading("dev-0002", "humidity", 41.0, "2026-11-29T10:15:40Z", null);
    Heartbeat h = Events.heartbeat("dev-0003", 80, -60, "ok", "2026-11-29T10:15:30Z", null);
    PCollectionTuple out =
        deviceRowsOutsideAWindow(
            p, WindowedDeviceStats.joinKey("dev-0001", 1), List.of(r1, r2, r3), List.of(h));

    PAssert.that(out.get(WindowedDeviceStats.DEVICE_MINUTE)).empty();
    PAssert.that(quarantinedPayloads(out))
        .containsInAnyOrder(
            r1.getRawPayload(), r2.getRawPayload(), r3.getRawPayload(), h.getRawPayload());
    p.run().waitUntilFinish();
  }

  /** One joined group of Gold's batches, as the grouping hands it on outside any window. */
  private static PCollection<KV<String, CoGbkResult>> batchedGroup(
      TestPipeline p, List<SensorReading> readings, List<Heartbeat> heartbeats) throws Exception {
    byte[] readingBatch = CoderUtils.encodeToByteArray(IotRecordCoders.READING_BATCH, readings);
    byte[] heartbeatBatch =
        CoderUtils.encodeToByteArray(IotRecordCoders.HEARTBEAT_BATCH, heartbeats);
    CoGbkResult group =
        CoGbkResult.of(WindowedDeviceStats.READING_BATCHES_SIDE, List.of(readingBatch))
            .and(WindowedDeviceStats.HEARTBEAT_BATCHES_SIDE, List.of(heartbeatBatch));
    Coder<CoGbkResult> groupCoder =
        CoGbkResult.CoGbkResultCoder.of(
            CoGbkResultSchema.of(
                List.of(
                    WindowedDeviceStats.READING_BATCHES_SIDE,
                    WindowedDeviceStats.HEARTBEAT_BATCHES_SIDE)),
            UnionCoder.of(List.of(BatchBytesCoder.of(), BatchBytesCoder.of())));
    return p.apply(
        Create.of(KV.of(WindowedDeviceStats.joinKey("dev-0001", 1), group))
            .withCoder(KvCoder.of(StringUtf8Coder.of(), groupCoder)));
  }

  private static PCollection<String> quarantinedSources(PCollectionTuple rows) {
    return rows.get(DeadLetter.TAG)
        .apply("Sources", MapElements.into(TypeDescriptors.strings()).via(DeadLetter::getSource));
  }

  /**
   * A group of a bounded input's devices in batches, which carry no raw payload: each record the
   * row step quarantines has the fields Gold read of it as its payload (a reading's {@code seq}
   * when it has one), and its line's source.
   */
  @Test
  void aBatchedDeviceWhoseRowThrowsIsQuarantinedWithWhatGoldReadOfEachRecord(TestPipeline p)
      throws Exception {
    SensorReading r =
        Events.reading("dev-0001", "temperature", 21.5, "2026-11-29T10:15:10Z", null, 7L);
    Heartbeat h = Events.heartbeat("dev-0001", 80, -60, "ok", "2026-11-29T10:15:30Z", null);
    PCollectionTuple rows =
        rows(
            batchedGroup(p, List.of(r), List.of(h)),
            new WindowedDeviceStats.DeviceMinuteFn(SensorCatalog.DEFAULT).inBatches());

    PAssert.that(rows.get(WindowedDeviceStats.DEVICE_MINUTE)).empty();
    PAssert.that(quarantinedPayloads(rows))
        .containsInAnyOrder(
            "{\"device_id\":\"dev-0001\",\"sensor_type\":\"temperature\",\"value\":21.5,"
                + "\"unit\":\"C\",\"ts\":\"2026-11-29T10:15:10.000Z\",\"seq\":7}",
            "{\"device_id\":\"dev-0001\",\"battery_pct\":80.0,\"rssi_dbm\":-60,"
                + "\"status\":\"ok\",\"ts\":\"2026-11-29T10:15:30.000Z\"}");
    PAssert.that(quarantinedSources(rows)).containsInAnyOrder(r.getSource(), h.getSource());
    p.run().waitUntilFinish();
  }

  /**
   * A stream's group of devices outside a minute window: the row step quarantines the device's
   * records (from its batches: each with the fields Gold read and its source), and the step that
   * hands the sites every device's aggregates gives its site none, so no record is both quarantined
   * and counted in a site row.
   */
  @Test
  void aStreamDeviceWhoseRowThrowsIsQuarantinedAndGivesItsSiteNothing(TestPipeline p)
      throws Exception {
    SensorReading r = Events.reading("dev-0001", "temperature", 21.5, "2026-11-29T10:15:10Z", null);
    PCollection<KV<String, CoGbkResult>> groups = batchedGroup(p, List.of(r), List.of());

    PCollectionTuple rows =
        rows(groups, new WindowedDeviceStats.StreamDeviceMinuteFn(SensorCatalog.DEFAULT));
    PCollection<KV<String, KV<Long, MinuteStats>>> siteParts =
        groups
            .apply(
                "SiteParts",
                ParDo.of(new WindowedDeviceStats.StreamSitePartsFn(SensorCatalog.DEFAULT)))
            .setCoder(
                KvCoder.of(StringUtf8Coder.of(), KvCoder.of(VarLongCoder.of(), MinuteStats.CODER)));

    PAssert.that(rows.get(WindowedDeviceStats.DEVICE_MINUTE)).empty();
    PAssert.that(quarantinedPayloads(rows))
        .containsInAnyOrder(
            "{\"device_id\":\"dev-0001\",\"sensor_type\":\"temperature\",\"value\":21.5,"
                + "\"unit\":\"C\",\"ts\":\"2026-11-29T10:15:10.000Z\"}");
    PAssert.that(quarantinedSources(rows)).containsInAnyOrder(r.getSource());
    PAssert.that(siteParts).empty();
    p.run().waitUntilFinish();
  }

  @Test
  void aSiteWhoseRowThrowsBecomesOneGoldDeadLetterNamingItsDevices(TestPipeline p) {
    MinuteStats dev1 =
        MinuteStats.of(
            List.of(Events.reading("dev-0001", "temperature", 21.5, "2026-11-29T10:15:10Z", null)),
            List.of());
    MinuteStats dev2 =
        MinuteStats.of(
            List.of(),
            List.of(Events.heartbeat("dev-0002", 80, -60, "ok", "2026-11-29T10:15:30Z", null)));
    Coder<KV<String, Iterable<KV<Long, MinuteStats>>>> coder =
        KvCoder.of(
            StringUtf8Coder.of(),
            IterableCoder.of(KvCoder.of(VarLongCoder.of(), MinuteStats.CODER)));

    PCollectionTuple out =
        p.apply(
                Create.of(
                        KV.<String, Iterable<KV<Long, MinuteStats>>>of(
                            "berlin", List.of(KV.of(0L, dev1), KV.of(0L, dev2))))
                    .withCoder(coder))
            .apply(
                ParDo.of(new WindowedDeviceStats.SiteMinuteFn(SensorCatalog.DEFAULT))
                    .withOutputTags(
                        WindowedDeviceStats.SITE_MINUTE, TupleTagList.of(DeadLetter.TAG)));
    out.get(WindowedDeviceStats.SITE_MINUTE)
        .setRowSchema(GoldColumns.siteMinute(SensorCatalog.DEFAULT));

    PAssert.that(out.get(WindowedDeviceStats.SITE_MINUTE)).empty();
    PAssert.that(out.get(DeadLetter.TAG))
        .satisfies(
            letters -> {
              assertThat(letters).hasSize(1);
              DeadLetter d = letters.iterator().next();
              assertThat(d.getStage()).isEqualTo("gold");
              assertThat(d.getReason()).isEqualTo("unexpected_error");
              assertThat(d.getDetail()).contains("ClassCastException", "\tat ");
              assertThat(d.getOriginalPayload())
                  .startsWith("site_minute of berlin in ")
                  .endsWith("from devices [dev-0001, dev-0002]");
              return null;
            });
    p.run().waitUntilFinish();
  }
}
