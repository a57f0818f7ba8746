package dev.medallion.lakehouse;

import dev.medallion.core.ReadNdjsonLines;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.beam.sdk.options.Default;
import org.apache.beam.sdk.options.DefaultValueFactory;
import org.apache.beam.sdk.options.Description;
import org.apache.beam.sdk.options.PipelineOptions;

/** Options every Medallion pipeline has: where the lakehouse is, what to read, how to write. */
public interface LakehouseOptions extends PipelineOptions {
  @Description("Root folder of the lakehouse (local path or s3://bucket/prefix).")
  @Default.String("lakehouse")
  String getLakehouse();

  void setLakehouse(String value);

  @Description(
      "Raw NDJSON input: a file pattern, or several separated by commas. The IoT pipeline runs its"
          + " built-in generator when it is empty; the users pipeline requires it.")
  @Default.String("")
  String getInput();

  void setInput(String value);

  @Description(
      "A large input file is read in parts of at most 8 MiB, but in at most this many parts"
          + " (larger ones if need be). Default: 4 on the DirectRunner, which reads every part at"
          + " once; 1024 on Spark, which spreads the parts over its tasks (on a cluster, over"
          + " its executors).")
  @Default.InstanceFactory(MaxReadPartsFactory.class)
  int getMaxReadParts();

  void setMaxReadParts(int value);

  @Description(
      "The reads of --input files pause while the heap, after the latest garbage collection, is"
          + " fuller than this (% of -Xmx), so the steps after them catch up: the DirectRunner"
          + " pushes what it reads on without bound, each bundle waiting whole in memory for all"
          + " its consumers. 0: never. Default: 50 on the DirectRunner, 0 on Spark (which pulls"
          + " its input).")
  @Default.InstanceFactory(PauseReadFactory.class)
  int getPauseReadAboveHeapPct();

  void setPauseReadAboveHeapPct(int value);

  /** 50 ({@link #DIRECT_PAUSE_READ_PCT}), or 0 on the SparkRunner. */
  class PauseReadFactory implements DefaultValueFactory<Integer> {
    @Override
    public Integer create(PipelineOptions options) {
      return options.getRunner().getSimpleName().contains("Spark") ? 0 : DIRECT_PAUSE_READ_PCT;
    }
  }

  int DIRECT_PAUSE_READ_PCT = 50;

  @Description(
      "A field-mapping file (YAML or JSON) for the --input records: rename, coerce, defaults and"
          + " constants, applied as Bronze parses them (the raw record is kept as it came). Empty:"
          + " the fields as they are.")
  @Default.String("")
  String getMapping();

  void setMapping(String value);

  @Description(
      "How the input files hold their records: auto (a .csv file as CSV, any other as its first"
          + " lines say), ndjson (one JSON object per line), json (JSON documents over several"
          + " lines: pretty-printed objects one after another, or a JSON array of them) or csv"
          + " (rows under a header line).")
  @Default.String("auto")
  String getInputFormat();

  void setInputFormat(String value);

  @Description(
      "A run exits with code 1 when it rejects more than this share (%) of the lines it read"
          + " (Bronze dead letters and Silver quarantine; duplicates removed are not rejections)."
          + " What it kept is committed all the same. 100 turns the check off.")
  @Default.Double(50)
  double getMaxRejectPct();

  void setMaxRejectPct(double value);

  /** 4 ({@link ReadNdjsonLines#MAX_PARTS}), or 1024 on the SparkRunner. */
  class MaxReadPartsFactory implements DefaultValueFactory<Integer> {
    @Override
    public Integer create(PipelineOptions options) {
      return options.getRunner().getSimpleName().contains("Spark")
          ? 1024
          : ReadNdjsonLines.MAX_PARTS;
    }
  }

  @Description(
      "Iceberg catalog of the tables: jdbc (an embedded SQLite catalog unless --catalogUri names"
          + " another JDBC database) or glue (AWS Glue, tables at their --lakehouse location).")
  @Default.String("jdbc")
  String getCatalog();

  void setCatalog(String value);

  @Description(
      "JDBC URL of the jdbc catalog. Default: jdbc:sqlite:<lakehouse>/_catalog/iceberg.db for a"
          + " local lakehouse, a SQLite file under ~/.medallion/catalogs/ for an s3:// one.")
  @Default.String("")
  String getCatalogUri();

  void setCatalogUri(String value);

  @Description(
      "Streams: at most this many files per partition and flush, written in parallel. (Batch jobs"
          + " and replays write one file per partition and bundle.)")
  @Default.Integer(1)
  int getNumShards();

  void setNumShards(int value);

  @Description("Names this run's files (part-<runId>-…); default: the time it started.")
  @Default.InstanceFactory(RunIdFactory.class)
  String getRunId();

  void setRunId(String value);

  /** {@code run-20261129T101530-ab12}. */
  class RunIdFactory implements DefaultValueFactory<String> {
    @Override
    public String create(PipelineOptions options) {
      return "run-"
          + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss"))
          + "-"
          + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000, 0x10000));
    }
  }
}
