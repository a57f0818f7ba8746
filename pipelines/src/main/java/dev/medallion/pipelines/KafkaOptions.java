package dev.medallion.pipelines;

import org.apache.beam.sdk.options.Default;
import org.apache.beam.sdk.options.Description;
import org.apache.beam.sdk.options.PipelineOptions;

/** Where a stage reads raw lines from Kafka ({@code ./medallion kafka} starts a broker). */
public interface KafkaOptions extends PipelineOptions {
  @Description(
      "Read the raw lines from this Kafka topic (e.g. iot-raw, which generate --sink=kafka"
          + " writes) instead of the generator or --input.")
  @Default.String("")
  String getInputTopic();

  void setInputTopic(String value);

  @Description("The Kafka broker(s), host:port[,host:port].")
  @Default.String("127.0.0.1:9092")
  String getBootstrapServers();

  void setBootstrapServers(String value);

  @Description(
      "Kafka consumer group: a stage restarted with the same group resumes after the offsets it"
          + " committed (committed once its output is durable).")
  @Default.String("medallion-bronze")
  String getConsumerGroup();

  void setConsumerGroup(String value);

  @Description(
      "bronze: also forward each Bronze record (its row as JSON, keyed by device_id) to this"
          + " Kafka topic (e.g. iot-bronze), for the next stage.")
  @Default.String("")
  String getOutputTopic();

  void setOutputTopic(String value);

  @Description(
      "Stop after this many Kafka records (a bounded read, for tests and backfills); 0: read"
          + " until stopped.")
  @Default.Long(0)
  long getMaxRecords();

  void setMaxRecords(long value);
}
