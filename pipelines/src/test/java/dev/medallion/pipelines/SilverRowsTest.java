package dev.medallion.pipelines;

import static org.assertj.core.api.Assertions.assertThat;

import dev.medallion.core.RawEvent;
import dev.medallion.iot.BronzeEvent;
import dev.medallion.iot.Heartbeat;
import dev.medallion.iot.IngestToBronze;
import dev.medallion.iot.SensorReading;
import dev.medallion.iot.ValidateAndEnrich;
import dev.medallion.testing.BeamPipelineExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.StreamSupport;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The silver stage's forwarded records ({@link ForwardToKafka#silverRows}, from Silver's kept
 * records in order, {@link ValidateAndEnrich#KEPT}) are the records forwarding Silver's readings
 * and heartbeats outputs gives: the same rows as JSON, keys and Kafka timestamps, and none of the
 * records Silver rejects. Over the IoT test input, which has readings in Fahrenheit, heartbeats,
 * unknown devices, wrong types and out-of-range values.
 */
@ExtendWith(BeamPipelineExtension.class)
class SilverRowsTest {
  private static final Path TESTDATA = Path.of("..", "testdata").toAbsolutePath().normalize();
  private static final String TOPIC = "iot-silver";

  @Test
  void theForwardedRowsAreSilversOwnKeptRows(TestPipeline p) throws Exception {
    List<RawEvent> raw = new ArrayList<>();
    long offset = 0;
    for (String line : Files.readAllLines(TESTDATA.resolve("iot/events.ndjson"))) {
      // arrivals half an hour after the input's first events: some are then too far ahead
      raw.add(
          RawEvent.of(
              line, "kafka", "iot-raw", 0, offset++, Instant.parse("2026-11-29T10:30:00Z")));
    }
    IotOptions o =
        PipelineOptionsFactory.fromArgs("--devices=" + TESTDATA.resolve("devices.csv"))
            .as(IotOptions.class);
    ValidateAndEnrich silver =
        ValidateAndEnrich.withRegistry(IotJob.registry(o))
            .withMaxAheadOfArrival(ValidateAndEnrich.MAX_AHEAD_OF_ARRIVAL);
    PCollection<BronzeEvent> bronze =
        p.apply(Create.of(raw)).apply(IngestToBronze.create()).get(IngestToBronze.EVENTS);

    PCollectionTuple kept = bronze.apply("Silver", silver.withKeptInOrder());
    PCollection<SensorReading> readings = kept.get(ValidateAndEnrich.READINGS);
    PCollection<Heartbeat> heartbeats = kept.get(ValidateAndEnrich.HEARTBEATS);
    PCollection<String> fromOutputs =
        PCollectionList.of(
                text(
                    readings.apply(
                        "Readings",
                        ParDo.of(
                            new ForwardToKafka.ToRecordFn<>(
                                TOPIC,
                                readings.getSchema(),
                                readings.getToRowFunction(),
                                SensorReading::getDeviceId,
                                SensorReading::getReceivedAt))),
                    "ReadingsText"))
            .and(
                text(
                    heartbeats.apply(
                        "Heartbeats",
                        ParDo.of(
                            new ForwardToKafka.ToRecordFn<>(
                                TOPIC,
                                heartbeats.getSchema(),
                                heartbeats.getToRowFunction(),
                                Heartbeat::getDeviceId,
                                Heartbeat::getReceivedAt))),
                    "HeartbeatsText"))
            .apply("FromOutputs", Flatten.pCollections());
    PCollection<String> inOrder =
        text(
            kept.get(ValidateAndEnrich.KEPT)
                .apply("Forward", ParDo.of(new ForwardToKafka.SilverRowFn(TOPIC))),
            "ForwardText");

    PCollection<KV<String, Iterable<String>>> both =
        PCollectionList.of(keyed(fromOutputs, "outputs"))
            .and(keyed(inOrder, "kept"))
            .apply(Flatten.pCollections())
            .apply(GroupByKey.create());
    PAssert.that(both)
        .satisfies(
            groups -> {
              List<String> outputs = new ArrayList<>();
              List<String> inKept = new ArrayList<>();
              for (KV<String, Iterable<String>> g : groups) {
                (g.getKey().equals("outputs") ? outputs : inKept).addAll(sorted(g.getValue()));
              }
              assertThat(outputs).hasSizeGreaterThan(300);
              assertThat(outputs).anyMatch(r -> r.contains("\"original_unit\":\"F\""));
              assertThat(outputs).anyMatch(r -> r.contains("\"battery_pct\""));
              assertThat(inKept).containsExactlyElementsOf(outputs);
              return null;
            });
    p.run().waitUntilFinish();
  }

  private static PCollection<String> text(
      PCollection<ProducerRecord<String, String>> records, String name) {
    records.setCoder(
        org.apache.beam.sdk.io.kafka.ProducerRecordCoder.of(
            org.apache.beam.sdk.coders.StringUtf8Coder.of(),
            org.apache.beam.sdk.coders.StringUtf8Coder.of()));
    return records.apply(
        name,
        MapElements.into(TypeDescriptors.strings())
            .via(r -> r.topic() + "|" + r.key() + "|" + r.timestamp() + "|" + r.value()));
  }

  private static PCollection<KV<String, String>> keyed(PCollection<String> records, String side) {
    return records.apply(
        "Key " + side,
        MapElements.into(TypeDescriptors.kvs(TypeDescriptors.strings(), TypeDescriptors.strings()))
            .via(r -> KV.of(side, r)));
  }

  private static List<String> sorted(Iterable<String> records) {
    return StreamSupport.stream(records.spliterator(), false).sorted().toList();
  }
}
