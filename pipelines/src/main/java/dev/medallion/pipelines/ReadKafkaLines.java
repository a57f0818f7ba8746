package dev.medallion.pipelines;

import dev.medallion.core.BundleCounter;
import dev.medallion.core.RawEvent;
import dev.medallion.core.Rejections;
import dev.medallion.core.Utf8Lines;
import java.nio.charset.StandardCharsets;
import org.apache.beam.sdk.io.kafka.KafkaIO;
import org.apache.beam.sdk.io.kafka.KafkaRecord;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.PBegin;
import org.apache.beam.sdk.values.PCollection;
import org.joda.time.Instant;

/**
 * Raw lines from a Kafka topic, read with Beam's {@link KafkaIO} as {@link KafkaReads} sets it up:
 * each record's value is a line ({@code source} {@code kafka:<topic>/<partition>#<offset>}), its
 * timestamp the line's arrival ({@code received_at}), its key the key Bronze checks against {@code
 * device_id}. A value that is not UTF-8 keeps its bytes visible and is rejected by Bronze ({@code
 * invalid_utf8}); an empty or null value is an {@code empty_line}.
 */
public final class ReadKafkaLines extends PTransform<PBegin, PCollection<RawEvent>> {
  private final KafkaOptions options;

  private ReadKafkaLines(KafkaOptions options) {
    this.options = options;
  }

  public static ReadKafkaLines from(KafkaOptions o) {
    return new ReadKafkaLines(o);
  }

  @Override
  public PCollection<RawEvent> expand(PBegin begin) {
    return begin
        .apply("ReadKafka " + options.getInputTopic(), KafkaReads.of(options, "bronze"))
        .apply("ToRawEvents", ParDo.of(new ToRawEventFn()));
  }

  /**
   * What decoding puts for bytes that are not UTF-8. A line without it decoded cleanly; one with it
   * is decoded again strictly, as a file's lines are ({@link Utf8Lines#decode}), since a valid line
   * may hold it too (a strict decoder for every record copied each line twice more).
   */
  private static final char REPLACEMENT = '\uFFFD';

  /** A Kafka record as a raw line. */
  static class ToRawEventFn extends DoFn<KafkaRecord<byte[], byte[]>, RawEvent> {
    private final BundleCounter read = new BundleCounter(Rejections.NAMESPACE, Progress.KAFKA_IN);

    @ProcessElement
    public void process(@Element KafkaRecord<byte[], byte[]> r, OutputReceiver<RawEvent> out) {
      read.add();
      byte[] value = r.getKV().getValue();
      String payload = "";
      String decodeError = null;
      if (value != null) {
        payload = new String(value, StandardCharsets.UTF_8);
        if (payload.indexOf(REPLACEMENT) >= 0) {
          Utf8Lines.Line line = Utf8Lines.decode(value);
          payload = line.text();
          decodeError = line.decodeError();
        }
      }
      byte[] key = r.getKV().getKey();
      out.output(
          RawEvent.of(
                  payload,
                  "kafka",
                  r.getTopic(),
                  r.getPartition(),
                  r.getOffset(),
                  new Instant(r.getTimestamp()),
                  decodeError)
              .withSourceKey(key == null ? null : new String(key, StandardCharsets.UTF_8)));
    }

    @FinishBundle
    public void finish() {
      read.flush();
    }
  }
}
