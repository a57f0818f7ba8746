package dev.medallion.pipelines;

import org.apache.beam.sdk.options.Default;
import org.apache.beam.sdk.options.Description;

/** Options of the streaming IoT pipeline and its stages. The same flags work on every runner. */
public interface IotOptions extends LakehouseOptions {
  @Description("Device registry CSV: device_id,site,zone,latitude,longitude,model,installed_at.")
  @Default.String("testdata/devices.csv")
  String getDevices();

  void setDevices(String value);

  @Description("Allowed lateness of a record after its 1-minute window closed, in seconds.")
  @Default.Integer(120)
  int getAllowedLatenessSeconds();

  void setAllowedLatenessSeconds(int value);

  @Description(
      "Extra lateness given to the runner only (event-time seconds), so a record kept by the"
          + " lateness rule is not dropped because the watermark moved on while it was in flight.")
  @Default.Integer(300)
  int getWatermarkSlackSeconds();

  void setWatermarkSlackSeconds(int value);

  @Description("Seconds between two flushes of the table writers in streaming.")
  @Default.Integer(5)
  int getFlushSeconds();

  void setFlushSeconds(int value);

  // --- the built-in generator (used when --input is empty) ---

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
