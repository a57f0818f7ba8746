package dev.medallion.pipelines;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.ListCoder;
import org.apache.beam.sdk.io.kafka.KafkaRecord;
import org.apache.beam.sdk.io.kafka.KafkaSources;
import org.apache.beam.sdk.io.kafka.KafkaTimestampType;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/** What a Kafka-fed stage reads, as a runner that encodes its records (Spark) carries it. */
class KafkaReadsTest {
  @Test
  void aRecordWithoutKeyOrValueIsCarriedInABatchAsItIs() throws Exception {
    IotOptions o = PipelineOptionsFactory.fromArgs("--inputTopic=iot-raw").as(IotOptions.class);
    Coder<KafkaRecord<byte[], byte[]>> record =
        KafkaSources.of(KafkaReads.configured(o, "bronze")).getOutputCoder();
    // The coder of ReadInBatches' batches, as the runner encodes them between steps.
    Coder<List<TimestampedValue<KafkaRecord<byte[], byte[]>>>> batch =
        ListCoder.of(TimestampedValue.TimestampedValueCoder.of(record));
    KafkaRecord<byte[], byte[]> noKey =
        new KafkaRecord<>(
            "iot-raw", 2, 41L, 1000L, KafkaTimestampType.CREATE_TIME, null, null, "{".getBytes());
    KafkaRecord<byte[], byte[]> tombstone =
        new KafkaRecord<>(
            "iot-raw",
            2,
            42L,
            2000L,
            KafkaTimestampType.CREATE_TIME,
            null,
            "dev-1".getBytes(),
            null);
    List<TimestampedValue<KafkaRecord<byte[], byte[]>>> read =
        CoderUtils.decodeFromByteArray(
            batch,
            CoderUtils.encodeToByteArray(
                batch,
                List.of(
                    TimestampedValue.of(noKey, new Instant(1000)),
                    TimestampedValue.of(tombstone, new Instant(2000)))));
    assertThat(read.get(0).getValue().getKV().getKey()).isNull();
    assertThat(new String(read.get(0).getValue().getKV().getValue())).isEqualTo("{");
    assertThat(read.get(0).getValue().getOffset()).isEqualTo(41L);
    assertThat(new String(read.get(1).getValue().getKV().getKey())).isEqualTo("dev-1");
    assertThat(read.get(1).getValue().getKV().getValue()).isNull();
    assertThat(read.get(1).getTimestamp()).isEqualTo(new Instant(2000));
  }
}
