package dev.medallion.pipelines;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import dev.medallion.core.DeadLetter;
import dev.medallion.core.Rejections;
import dev.medallion.iot.BronzeEvent;
import dev.medallion.iot.IotMedallion;
import dev.medallion.testing.BeamPipelineExtension;
import dev.medallion.testing.Counters;
import java.nio.charset.StandardCharsets;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.coders.ByteArrayCoder;
import org.apache.beam.sdk.coders.NullableCoder;
import org.apache.beam.sdk.io.kafka.KafkaRecord;
import org.apache.beam.sdk.io.kafka.KafkaRecordCoder;
import org.apache.beam.sdk.io.kafka.KafkaTimestampType;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.TupleTagList;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A record on a stage's input topic that is not a forwarded row: a dead letter, counted. */
@ExtendWith(BeamPipelineExtension.class)
class ReadForwardedRowsTest {
  @Test
  void aRecordThatIsNotABronzeRowIsSilversDeadLetterCountedWithItsReason(TestPipeline p)
      throws Exception {
    ReadForwardedRows.ParseFn fn =
        new ReadForwardedRows.ParseFn(
            DeadLetter.SILVER,
            ReadForwardedRows.kind(p.getSchemaRegistry(), BronzeEvent.class, IotMedallion.BRONZE),
            null);
    PCollectionTuple out =
        p.apply(
                Create.of(record(0, "garbage"), record(1, "{\"hello\":1}"), record(2, null))
                    .withCoder(
                        KafkaRecordCoder.of(
                            NullableCoder.of(ByteArrayCoder.of()),
                            NullableCoder.of(ByteArrayCoder.of()))))
            .apply(
                ParDo.of(fn)
                    .withOutputTags(
                        ReadForwardedRows.mainTag(fn), TupleTagList.of(DeadLetter.TAG)));
    out.get(IotMedallion.BRONZE).setCoder(p.getSchemaRegistry().getSchemaCoder(BronzeEvent.class));
    PAssert.that(
            out.get(DeadLetter.TAG)
                .apply(
                    MapElements.into(TypeDescriptors.strings())
                        .via((DeadLetter d) -> d.getSource() + " " + d.getReason())))
        .containsInAnyOrder(
            "kafka:iot-bronze/0#0 not_a_bronze_row",
            "kafka:iot-bronze/0#1 not_a_bronze_row",
            "kafka:iot-bronze/0#2 not_a_bronze_row");
    PipelineResult result = p.run();

    assertThat(Counters.of(result, Rejections.NAMESPACE))
        .contains(
            entry(Progress.KAFKA_IN, 3L),
            entry("silver_rejected", 3L),
            entry("silver_rejected_not_a_bronze_row", 3L));
  }

  private static KafkaRecord<byte[], byte[]> record(long offset, String value) {
    return new KafkaRecord<>(
        "iot-bronze",
        0,
        offset,
        1000L + offset,
        KafkaTimestampType.CREATE_TIME,
        null,
        null,
        value == null ? null : value.getBytes(StandardCharsets.UTF_8));
  }
}
