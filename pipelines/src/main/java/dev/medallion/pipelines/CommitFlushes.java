package dev.medallion.pipelines;

import dev.medallion.lakehouse.LakeTables;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.AfterProcessingTime;
import org.apache.beam.sdk.transforms.windowing.GlobalWindows;
import org.apache.beam.sdk.transforms.windowing.Repeatedly;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PDone;
import org.joda.time.Duration;

/**
 * Commits the Parquet files the tables' writes produce, each given as its table's name and path, to
 * their Iceberg tables inside the job: a table's file names of all shards and partitions are
 * gathered per flush interval and committed as one append, so a stream makes one snapshot per table
 * and interval (a bounded job: one at its end). One step commits every table, not four steps per
 * table: seventeen fewer steps in the all-in-one job (no measured gain in speed; bench/HISTORY.md).
 */
final class CommitFlushes extends PTransform<PCollection<KV<String, String>>, PDone> {
  private final LakeTables.Config tables;
  private final String runId;
  private final Duration every;

  private CommitFlushes(LakeTables.Config tables, String runId, Duration every) {
    this.tables = tables;
    this.runId = runId;
    this.every = every;
  }

  /** The counter of table commits. */
  static final String COMMITS = "iceberg_commits";

  static CommitFlushes to(LakeTables.Config tables, String runId, Duration every) {
    return new CommitFlushes(tables, runId, every);
  }

  @Override
  public PDone expand(PCollection<KV<String, String>> written) {
    written
        .apply(
            "EachInterval",
            Window.<KV<String, String>>into(new GlobalWindows())
                .triggering(
                    Repeatedly.forever(
                        AfterProcessingTime.pastFirstElementInPane().plusDelayOf(every)))
                .withAllowedLateness(Duration.ZERO)
                .discardingFiredPanes())
        .apply("Gather", GroupByKey.create())
        .apply("Commit", ParDo.of(new CommitFn(tables, runId)));
    return PDone.in(written.getPipeline());
  }

  /** One Iceberg append of a pane's files. */
  static class CommitFn extends DoFn<KV<String, Iterable<String>>, Void> {
    private final LakeTables.Config config;
    private final String runId;
    private final Counter commits = Metrics.counter("medallion", COMMITS);
    private transient LakeTables tables;

    CommitFn(LakeTables.Config config, String runId) {
      this.config = config;
      this.runId = runId;
    }

    @Setup
    public void setup() {
      tables = LakeTables.open(config);
    }

    @ProcessElement
    public void process(@Element KV<String, Iterable<String>> files) {
      List<String> paths = new ArrayList<>();
      files.getValue().forEach(paths::add);
      paths.sort(null);
      tables.append(runId, files.getKey(), paths, Map.of());
      commits.inc();
    }

    @Teardown
    public void teardown() throws Exception {
      if (tables != null) {
        tables.close();
      }
    }
  }
}
