package dev.medallion.pipelines;

import dev.medallion.core.BundleCounter;
import dev.medallion.iot.Heartbeat;
import dev.medallion.iot.SensorReading;
import dev.medallion.iot.ValidateAndEnrich;
import java.util.Map;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.io.kafka.KafkaIO;
import org.apache.beam.sdk.io.kafka.ProducerRecordCoder;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.transforms.join.RawUnionValue;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PDone;
import org.apache.beam.sdk.values.Row;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * Forwards a layer's records to a Kafka topic for the next stage: each record as one JSON object
 * (its table row, as {@link RowJsonCodec} writes it, the text of Beam's {@code RowJson}, and {@link
 * ReadForwardedRows} reads it back), keyed by its device (so a device's records stay in one
 * partition, in order), with its {@code received_at} as the Kafka timestamp (the next stage's
 * arrival clock; the broker's clock when the record has none). At least once: a retried bundle
 * sends its records again, which the next stage tells by their {@code source} and Gold counts once.
 */
public final class ForwardToKafka<T> extends PTransform<PCollection<T>, PDone> {
  private final String servers;
  private final String topic;
  private final SerializableFunction<T, String> key;
  private final SerializableFunction<T, @Nullable Instant> arrival;

  private ForwardToKafka(
      String servers,
      String topic,
      SerializableFunction<T, String> key,
      SerializableFunction<T, @Nullable Instant> arrival) {
    this.servers = servers;
    this.topic = topic;
    this.key = key;
    this.arrival = arrival;
  }

  /** To {@code topic} on {@code servers}, keyed by {@code key}, timestamped by {@code arrival}. */
  public static <T> ForwardToKafka<T> to(
      String servers,
      String topic,
      SerializableFunction<T, String> key,
      SerializableFunction<T, @Nullable Instant> arrival) {
    return new ForwardToKafka<>(servers, topic, key, arrival);
  }

  /**
   * Silver's kept readings and heartbeats ({@link ValidateAndEnrich#KEPT}, as Silver's step kept
   * them, in the order of their Bronze records) to {@code topic}, in that order, so the arrivals in
   * a partition stay in order. Sent from Silver's two outputs, each kind by its own steps, under a
   * backlog the heartbeats reached {@code iot-silver} seconds behind the readings of the same
   * devices, which on the arrival clock of a backlog read at full speed was more than Gold's
   * disorder, lateness and slack together: the runner dropped them (the heartbeats of a partition's
   * first 14 minutes in the benchmark's backlog of 1M; also with the two kinds flattened into one
   * writer, in one run of two).
   */
  public static PTransform<PCollection<RawUnionValue>, PDone> silverRows(
      String servers, String topic) {
    return new PTransform<PCollection<RawUnionValue>, PDone>() {
      @Override
      public PDone expand(PCollection<RawUnionValue> kept) {
        return send(
            kept.apply("SilverRowsToJson", ParDo.of(new SilverRowFn(topic)))
                .setCoder(ProducerRecordCoder.of(StringUtf8Coder.of(), StringUtf8Coder.of())),
            servers,
            topic);
      }
    };
  }

  @Override
  public PDone expand(PCollection<T> records) {
    return send(
        records
            .apply(
                "ToJson",
                ParDo.of(
                    new ToRecordFn<>(
                        topic, records.getSchema(), records.getToRowFunction(), key, arrival)))
            .setCoder(ProducerRecordCoder.of(StringUtf8Coder.of(), StringUtf8Coder.of())),
        servers,
        topic);
  }

  /** The forwarded rows a copy of a DoFn counts as sent, a bundle at a time. */
  private static BundleCounter sent() {
    return new BundleCounter(dev.medallion.core.Rejections.NAMESPACE, Progress.KAFKA_OUT);
  }

  /** The Kafka record of one forwarded row. */
  static ProducerRecord<String, String> record(
      String topic, @Nullable Instant at, String key, String json) {
    return new ProducerRecord<>(topic, null, at == null ? null : at.getMillis(), key, json);
  }

  /** Sends {@code records} to {@code topic} on {@code servers}. */
  private static PDone send(
      PCollection<ProducerRecord<String, String>> records, String servers, String topic) {
    return records.apply(
        "WriteKafka " + topic,
        KafkaIO.<String, String>writeRecords()
            .withBootstrapServers(servers)
            .withTopic(topic)
            .withKeySerializer(StringSerializer.class)
            .withValueSerializer(StringSerializer.class)
            // A broker that goes away, or a topic deleted under the stage, is waited for,
            // not a failed bundle (which would end the stage): the records go out when it is
            // back. Retries are Kafka's default again (KafkaIO sets 3, after which a record
            // sent while its topic was gone failed the stage). The records go out in
            // batches of up to 512 KiB (under the 1 MB a broker takes by default) that wait up
            // to 20 ms to fill, LZ4-compressed: the broker then handles a few large requests,
            // not one per 16 KiB, and writes about a third of the bytes. Over a backlog of 1M
            // events the broker spent 11 s of CPU against 24 s, and the three stages moved
            // 18,975 events/s end to end against 15,337 and 15,480 (uncompressed: 17,391).
            .withProducerConfigUpdates(
                Map.of(
                    ProducerConfig.MAX_BLOCK_MS_CONFIG,
                    Integer.MAX_VALUE,
                    ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG,
                    Integer.MAX_VALUE,
                    ProducerConfig.RETRIES_CONFIG,
                    Integer.MAX_VALUE,
                    ProducerConfig.LINGER_MS_CONFIG,
                    20,
                    ProducerConfig.BATCH_SIZE_CONFIG,
                    512 << 10,
                    ProducerConfig.COMPRESSION_TYPE_CONFIG,
                    "lz4")));
  }

  /** One record: its row as JSON, its key and its arrival. */
  static class ToRecordFn<T> extends DoFn<T, ProducerRecord<String, String>> {
    private final String topic;
    private final RowJsonCodec json;
    private final SerializableFunction<T, Row> toRow;
    private final SerializableFunction<T, String> key;
    private final SerializableFunction<T, @Nullable Instant> arrival;
    private final BundleCounter sent = sent();

    ToRecordFn(
        String topic,
        Schema schema,
        SerializableFunction<T, Row> toRow,
        SerializableFunction<T, String> key,
        SerializableFunction<T, @Nullable Instant> arrival) {
      this.topic = topic;
      this.json = RowJsonCodec.of(schema);
      this.toRow = toRow;
      this.key = key;
      this.arrival = arrival;
    }

    @ProcessElement
    public void process(@Element T record, OutputReceiver<ProducerRecord<String, String>> out) {
      sent.add();
      out.output(
          record(topic, arrival.apply(record), key.apply(record), json.write(toRow.apply(record))));
    }

    @FinishBundle
    public void finish() {
      sent.flush();
    }
  }

  /** A kept Silver record as JSON, keyed by its device, at its arrival. */
  static class SilverRowFn extends DoFn<RawUnionValue, ProducerRecord<String, String>> {
    private final String topic;
    private transient @Nullable RowJsonCodec readings;
    private transient @Nullable RowJsonCodec heartbeats;
    private final BundleCounter sent = sent();

    SilverRowFn(String topic) {
      this.topic = topic;
    }

    @ProcessElement
    public void process(
        @Element RawUnionValue kept, OutputReceiver<ProducerRecord<String, String>> out) {
      Row row = ValidateAndEnrich.keptRow(kept);
      RowJsonCodec json;
      String device;
      @Nullable Instant at;
      if (kept.getValue() instanceof SensorReading r) {
        json = readings == null ? (readings = RowJsonCodec.of(row.getSchema())) : readings;
        device = r.getDeviceId();
        at = r.getReceivedAt();
      } else {
        Heartbeat h = (Heartbeat) kept.getValue();
        json = heartbeats == null ? (heartbeats = RowJsonCodec.of(row.getSchema())) : heartbeats;
        device = h.getDeviceId();
        at = h.getReceivedAt();
      }
      sent.add();
      out.output(record(topic, at, device, json.write(row)));
    }

    @FinishBundle
    public void finish() {
      sent.flush();
    }
  }
}
