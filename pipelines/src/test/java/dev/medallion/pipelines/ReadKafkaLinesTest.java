package dev.medallion.pipelines;

import static org.assertj.core.api.Assertions.assertThat;

import dev.medallion.core.RawEvent;
import dev.medallion.core.Rejections;
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
import org.apache.beam.sdk.values.TypeDescriptors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A Kafka record as Bronze's raw line: its text, why its bytes are not UTF-8 (as a file's lines
 * say), and its count.
 */
@ExtendWith(BeamPipelineExtension.class)
class ReadKafkaLinesTest {
  @Test
  void everyRecordIsALineCountedOnceAndOnlyBytesThatAreNotUtf8AreSaidToBe(TestPipeline p) {
    byte[] notUtf8 = {'{', (byte) 0xC3, '(', '}'}; // 0xC3 starts a pair that '(' cannot end
    PAssert.that(
            p.apply(
                    Create.of(
                            record(0, "{\"device_id\":\"dev-1\"}".getBytes(StandardCharsets.UTF_8)),
                            // a valid line may hold what decoding puts for bytes that are not UTF-8
                            record(
                                1,
                                "{\"note\":\"caf\u00e9 \uFFFD\"}".getBytes(StandardCharsets.UTF_8)),
                            record(2, notUtf8),
                            record(3, null))
                        .withCoder(
                            KafkaRecordCoder.of(
                                NullableCoder.of(ByteArrayCoder.of()),
                                NullableCoder.of(ByteArrayCoder.of()))))
                .apply(ParDo.of(new ReadKafkaLines.ToRawEventFn()))
                .apply(
                    MapElements.into(TypeDescriptors.strings())
                        .via(
                            (RawEvent r) ->
                                r.getSourceOffset()
                                    + " "
                                    + r.getPayload()
                                    + " "
                                    + r.getDecodeError())))
        .containsInAnyOrder(
            "0 {\"device_id\":\"dev-1\"} null",
            "1 {\"note\":\"caf\u00e9 \uFFFD\"} null",
            "2 {\\xC3(} byte 0xC3 at offset 1",
            "3  null");
    PipelineResult result = p.run();
    assertThat(Counters.of(result, Rejections.NAMESPACE)).containsEntry(Progress.KAFKA_IN, 4L);
  }

  private static KafkaRecord<byte[], byte[]> record(long offset, byte[] value) {
    return new KafkaRecord<>(
        "iot-raw", 0, offset, 1000L + offset, KafkaTimestampType.CREATE_TIME, null, null, value);
  }
}
