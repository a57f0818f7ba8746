package org.apache.beam.sdk.io.kafka;

import org.apache.beam.sdk.io.UnboundedSource;

/**
 * The {@link UnboundedSource} behind a {@link KafkaIO.Read}, which KafkaIO builds only inside its
 * own {@code expand} ({@code makeSource()} is package-private). Medallion reads that source in
 * batches on the DirectRunner ({@code dev.medallion.pipelines.ReadInBatches}). A compile error here
 * after a Beam upgrade means the method moved: look at {@code ReadFromKafkaViaUnbounded}.
 */
public final class KafkaSources {
  private KafkaSources() {}

  /** The source of {@code read}, whose key and value coders must be set. */
  public static <K, V> UnboundedSource<KafkaRecord<K, V>, KafkaCheckpointMark> of(
      KafkaIO.Read<K, V> read) {
    if (read.getKeyCoder() == null || read.getValueCoder() == null) {
      throw new IllegalArgumentException(
          "set the key and value coders (withKeyDeserializerAndCoder, …)");
    }
    return read.makeSource();
  }
}
