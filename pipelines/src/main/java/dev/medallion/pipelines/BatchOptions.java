package dev.medallion.pipelines;

import org.apache.beam.sdk.options.Default;
import org.apache.beam.sdk.options.Description;

/** Options of the batch user-features pipeline. The same flags work on every runner. */
public interface BatchOptions extends LakehouseOptions {
  @Description(
      "Snapshot date YYYY-MM-DD of gold/user_features; default: the latest event date in Silver.")
  @Default.String("")
  String getAsOf();

  void setAsOf(String value);
}
