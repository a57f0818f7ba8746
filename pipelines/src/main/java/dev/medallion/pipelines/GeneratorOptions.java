package dev.medallion.pipelines;

import org.apache.beam.sdk.options.Default;
import org.apache.beam.sdk.options.Description;
import org.apache.beam.sdk.options.PipelineOptions;

/** The built-in generator's knobs, used when a pipeline has no {@code --input}. */
public interface GeneratorOptions extends PipelineOptions {
  @Description("Generator: event time runs this many times faster than real time.")
  @Default.Double(60)
  double getSpeedup();

  void setSpeedup(double value);

  @Description("Generator: minutes of event time to generate; the job ends after them.")
  @Default.Integer(10)
  int getDurationMinutes();

  void setDurationMinutes(int value);

  @Description("Generator: number of devices (the first N of the registry).")
  @Default.Integer(20)
  int getGeneratorDevices();

  void setGeneratorDevices(int value);

  @Description("Generator: random seed.")
  @Default.Long(42)
  long getSeed();

  void setSeed(long value);

  @Description("Generator: event time of the first event (ISO-8601).")
  @Default.String("2026-11-29T10:00:00Z")
  String getStart();

  void setStart(String value);

  @Description("Generator: share of malformed lines.")
  @Default.Double(0.01)
  double getMalformedRate();

  void setMalformedRate(double value);

  @Description("Generator: share of events resent a few seconds later.")
  @Default.Double(0.02)
  double getDuplicateRate();

  void setDuplicateRate(double value);

  @Description("Generator: share of events that arrive late.")
  @Default.Double(0.02)
  double getLateRate();

  void setLateRate(double value);

  @Description(
      "Generator: how late a late event arrives, in event-time seconds. With the default 150 and"
          + " 120 s of allowed lateness, a late event from the first half of its minute is too late"
          + " and one from the second half still updates its window.")
  @Default.Integer(150)
  int getLateDelaySeconds();

  void setLateDelaySeconds(int value);

  @Description("Generator: share of readings with an out-of-range value.")
  @Default.Double(0.01)
  double getOutOfRangeRate();

  void setOutOfRangeRate(double value);

  @Description("Generator: share of events from devices missing from the registry.")
  @Default.Double(0.01)
  double getUnknownDeviceRate();

  void setUnknownDeviceRate(double value);

  @Description("Generator: share of heartbeats that are never sent.")
  @Default.Double(0.05)
  double getMissingHeartbeatRate();

  void setMissingHeartbeatRate(double value);
}
