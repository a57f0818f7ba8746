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
      "Kafka consumer group; empty: medallion-<stage> (medallion-bronze, medallion-silver,"
          + " medallion-gold). A stage restarted with the same group resumes after the offsets it"
          + " committed.")
  @Default.String("")
  String getConsumerGroup();

  void setConsumerGroup(String value);

  @Description(
      "bronze, silver: also forward each record the stage kept (its row as JSON, keyed by"
          + " device_id, timestamped with received_at) to this Kafka topic (iot-bronze,"
          + " iot-silver), for the next stage.")
  @Default.String("")
  String getOutputTopic();

  void setOutputTopic(String value);

  @Description(
      "Stop after this many Kafka records (a bounded read, for tests and backfills); 0: read"
          + " until stopped.")
  @Default.Long(0)
  long getMaxRecords();

  void setMaxRecords(long value);

  @Description(
      "Kafka input: how far apart (in seconds of arrival time) the records of different"
          + " partitions may be read. The watermark is the newest arrival read minus this; a"
          + " partition with nothing to read does not hold it back once it has been idle for"
          + " --idlePartitionSeconds.")
  @Default.Long(30)
  long getDisorderSeconds();

  void setDisorderSeconds(long value);

  @Description(
      "Kafka input: a partition with nothing to read follows the newest arrival of the other"
          + " partitions once it has had nothing to read for this many seconds of wall-clock time;"
          + " until then it holds the watermark at its own newest arrival (under a backlog the"
          + " stage before may still be forwarding to it).")
  @Default.Long(10)
  long getIdlePartitionSeconds();

  void setIdlePartitionSeconds(long value);

  @Description(
      "Kafka input: the same for a partition that has had no record yet in this run (at the start"
          + " of a backlog the stage before reaches some partitions later than others); a"
          + " partition that stays empty holds every window this long, once per run.")
  @Default.Long(60)
  long getEmptyPartitionSeconds();

  void setEmptyPartitionSeconds(long value);

  @Description(
      "Kafka input: end the stage (last windows fired, written and committed) once every"
          + " partition has had nothing new for this many seconds; 0: run until Ctrl-C, which"
          + " ends it the same way.")
  @Default.Long(0)
  long getIdleStopSeconds();

  void setIdleStopSeconds(long value);
}
