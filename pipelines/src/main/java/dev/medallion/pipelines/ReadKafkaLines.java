package dev.medallion.pipelines;

import dev.medallion.core.RawEvent;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.beam.sdk.io.kafka.KafkaIO;
import org.apache.beam.sdk.io.kafka.KafkaRecord;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.PBegin;
import org.apache.beam.sdk.values.PCollection;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.joda.time.Instant;

/**
 * Raw lines from a Kafka topic, read with Beam's {@link KafkaIO}: each record's value is a line
 * ({@code source} {@code kafka:<topic>/<partition>#<offset>}), its timestamp the line's arrival
 * ({@code received_at}). A value that is not UTF-8 keeps its bytes visible and is rejected by
 * Bronze ({@code invalid_utf8}); an empty or null value is an {@code empty_line}. Offsets are
 * committed to the consumer group when the runner finalizes what it read (after the output of the
 * bundle is durable), so a stage restarted with the same group resumes there.
 */
public final class ReadKafkaLines extends PTransform<PBegin, PCollection<RawEvent>> {
  private final String servers;
  private final String topic;
  private final String group;
  private final long maxRecords;

  private ReadKafkaLines(String servers, String topic, String group, long maxRecords) {
    this.servers = servers;
    this.topic = topic;
    this.group = group;
    this.maxRecords = maxRecords;
  }

  public static ReadKafkaLines from(KafkaOptions o) {
    return new ReadKafkaLines(
        o.getBootstrapServers(), o.getInputTopic(), o.getConsumerGroup(), o.getMaxRecords());
  }

  @Override
  public PCollection<RawEvent> expand(PBegin begin) {
    KafkaIO.Read<byte[], byte[]> read =
        KafkaIO.<byte[], byte[]>read()
            .withBootstrapServers(servers)
            .withTopic(topic)
            .withKeyDeserializer(ByteArrayDeserializer.class)
            .withValueDeserializer(ByteArrayDeserializer.class)
            .withConsumerConfigUpdates(
                Map.of(
                    ConsumerConfig.GROUP_ID_CONFIG,
                    group,
                    ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                    "earliest"))
            .withCreateTime(org.joda.time.Duration.standardMinutes(2))
            .commitOffsetsInFinalize();
    if (maxRecords > 0) {
      read = read.withMaxNumRecords(maxRecords);
    }
    return begin
        .apply("ReadKafka " + topic, read)
        .apply("ToRawEvents", ParDo.of(new ToRawEventFn()));
  }

  /** A Kafka record as a raw line. */
  static class ToRawEventFn extends DoFn<KafkaRecord<byte[], byte[]>, RawEvent> {
    @ProcessElement
    public void process(@Element KafkaRecord<byte[], byte[]> r, OutputReceiver<RawEvent> out) {
      byte[] value = r.getKV().getValue();
      String payload = "";
      String decodeError = null;
      if (value != null) {
        try {
          payload =
              StandardCharsets.UTF_8
                  .newDecoder()
                  .onMalformedInput(CodingErrorAction.REPORT)
                  .onUnmappableCharacter(CodingErrorAction.REPORT)
                  .decode(ByteBuffer.wrap(value))
                  .toString();
        } catch (CharacterCodingException e) {
          payload = new String(value, StandardCharsets.UTF_8);
          decodeError = "not valid UTF-8";
        }
      }
      out.output(
          RawEvent.of(
              payload,
              "kafka",
              r.getTopic(),
              r.getPartition(),
              r.getOffset(),
              new Instant(r.getTimestamp()),
              decodeError));
    }
  }
}
