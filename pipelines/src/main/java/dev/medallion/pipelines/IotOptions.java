package dev.medallion.pipelines;

import dev.medallion.lakehouse.LakehouseOptions;
import org.apache.beam.sdk.options.Default;
import org.apache.beam.sdk.options.Description;

/**
 * Options of the streaming IoT pipeline and its stages, composed of small interfaces: where the
 * tables are ({@link LakehouseOptions}), lateness ({@link LatenessOptions}), the built-in generator
 * ({@link GeneratorOptions}). The same flags work on every runner.
 */
public interface IotOptions
    extends LakehouseOptions, LatenessOptions, GeneratorOptions, KafkaOptions {
  @Description(
      "Device registry CSV with a header: device_id,site,zone and optionally"
          + " latitude,longitude,model,installed_at, in any order; required with --input; empty:"
          + " the registry of the built-in generator's devices.")
  @Default.String("")
  String getDevices();

  void setDevices(String value);

  @Description(
      "The registry's own column names for ours, as <its column>=<ours> pairs separated by"
          + " commas, e.g. bridge_id=device_id,city=site. Empty: the columns have our names.")
  @Default.String("")
  String getDeviceColumns();

  void setDeviceColumns(String value);

  @Description(
      "Sensor catalog (YAML or JSON): the sensor types Silver keeps, their units, conversions,"
          + " ranges, default units, and the aggregates Gold keeps of each. Empty: the built-in catalog (temperature, humidity,"
          + " pressure), transforms/src/main/resources/dev/medallion/iot/sensor-catalog.yaml.")
  @Default.String("")
  String getSensorCatalog();

  void setSensorCatalog(String value);

  @Description(
      "run: read again the --input files that changed since a run ingested them; their rows in"
          + " Bronze, Silver and the quarantine are replaced by what the files hold now, and Gold"
          + " is recomputed from the whole of Silver, in the run's commit. Without it they are"
          + " named and skipped.")
  @Default.Boolean(false)
  boolean getReingest();

  void setReingest(boolean value);

  @Description("Seconds between two flushes of the table writers in streaming.")
  @Default.Integer(5)
  int getFlushSeconds();

  void setFlushSeconds(int value);

  @Description(
      "Streams: a table's shard also writes its file as soon as this many batches of a partition"
          + " wait (each up to 2,000 records of one bundle), before --flushSeconds; what a writer"
          + " holds is bounded by it. 0: files only every --flushSeconds.")
  @Default.Integer(16)
  int getFlushBatches();

  void setFlushBatches(int value);
}
