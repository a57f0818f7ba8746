package dev.medallion.pipelines;

import org.apache.beam.sdk.options.Default;
import org.apache.beam.sdk.options.Description;
import org.apache.beam.sdk.options.PipelineOptions;

/** How late a record may be, for Gold's windows. */
public interface LatenessOptions extends PipelineOptions {
  @Description("Allowed lateness of a record after its 1-minute window closed, in seconds.")
  @Default.Integer(120)
  int getAllowedLatenessSeconds();

  void setAllowedLatenessSeconds(int value);

  @Description(
      "Seconds an event's time may be ahead of its arrival on the source's clock (received_at);"
          + " later is quarantined as future_ts. File replays have no arrival time.")
  @Default.Integer(3600)
  int getMaxFutureSeconds();

  void setMaxFutureSeconds(int value);

  @Description(
      "Extra lateness given to the runner only (event-time seconds), so a record kept by the"
          + " lateness rule is not dropped because the watermark moved on while it was in flight.")
  @Default.Integer(300)
  int getWatermarkSlackSeconds();

  void setWatermarkSlackSeconds(int value);
}
