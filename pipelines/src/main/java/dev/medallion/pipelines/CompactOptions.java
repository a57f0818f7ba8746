package dev.medallion.pipelines;

import dev.medallion.lakehouse.LakehouseOptions;
import org.apache.beam.sdk.options.Default;
import org.apache.beam.sdk.options.Description;

/** Options of {@code compact}. */
public interface CompactOptions extends LakehouseOptions {
  @Description(
      "Tables to compact, by SQL name, separated by commas (e.g. gold_device_minute); default: every"
          + " table.")
  @Default.String("")
  String getTables();

  void setTables(String value);

  @Description("A partition is merged into one file when it has at least this many files.")
  @Default.Integer(2)
  int getMinFiles();

  void setMinFiles(int value);
}
