package dev.medallion.pipelines;

import dev.medallion.core.DeadLetter;
import dev.medallion.core.WriteTable;
import dev.medallion.core.WriteTableFiles;
import dev.medallion.iot.BronzeEvent;
import dev.medallion.iot.IotMedallion;
import dev.medallion.lakehouse.Catalog;
import dev.medallion.lakehouse.LakeTables;
import dev.medallion.lakehouse.Lakehouse;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.PDone;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Duration;

/**
 * The IoT pipeline's lakehouse sink: writes every layer a tuple holds ({@link IotMedallion}'s, or
 * one stage's) to its table, append-only, and the dead letters of all layers to {@code
 * quarantine/iot_events/stage=…/date=…}. A stream writes new files per flush ({@link WriteTable});
 * a bounded layer (a replay, a rerun stage) is written per bundle ({@link WriteTableFiles}) and
 * committed after the job.
 */
public final class WriteIotTables extends PTransform<PCollectionTuple, PDone> {
  private final Lakehouse lake;
  private final String runId;
  private final int numShards;
  private final Duration flushEvery;
  private final int flushBatches;
  private final LakeTables.@Nullable Config commitTo;

  private WriteIotTables(
      Lakehouse lake,
      String runId,
      int numShards,
      Duration flushEvery,
      int flushBatches,
      LakeTables.@Nullable Config commitTo) {
    this.lake = lake;
    this.runId = runId;
    this.numShards = numShards;
    this.flushEvery = flushEvery;
    this.flushBatches = flushBatches;
    this.commitTo = commitTo;
  }

  /**
   * Writes to {@code lake}, naming files after this run, with its shards, flush interval and
   * batches per file ({@link WriteTable#withFlushBatches}). The files stay uncommitted (invisible
   * to readers) until the run commits them after the job.
   */
  public static WriteIotTables to(Lakehouse lake, IotOptions o) {
    return new WriteIotTables(
        lake,
        o.getRunId(),
        o.getNumShards(),
        Duration.standardSeconds(o.getFlushSeconds()),
        o.getFlushBatches(),
        null);
  }

  /**
   * Commits each flush's files inside the job, one Iceberg append per table and flush ({@link
   * CommitFlushes}): for a stream, whose job does not end.
   */
  public WriteIotTables committingEachFlush(LakeTables.Config tables) {
    return new WriteIotTables(lake, runId, numShards, flushEvery, flushBatches, tables);
  }

  @Override
  public PDone expand(PCollectionTuple layers) {
    List<PCollection<KV<String, String>>> written = new ArrayList<>();
    write(
        layers, written, IotMedallion.BRONZE, Lakehouse.BRONZE_IOT, WriteIotTables::hourPartition);
    write(
        layers,
        written,
        IotMedallion.READINGS,
        Lakehouse.SILVER_READINGS,
        r -> "date=" + r.getDate());
    write(
        layers,
        written,
        IotMedallion.HEARTBEATS,
        Lakehouse.SILVER_HEARTBEATS,
        h -> "date=" + h.getDate());
    write(
        layers,
        written,
        IotMedallion.DEVICE_MINUTE,
        Lakehouse.GOLD_DEVICE_MINUTE,
        m -> "date=" + m.getString("date"));
    write(
        layers,
        written,
        IotMedallion.SITE_MINUTE,
        Lakehouse.GOLD_SITE_MINUTE,
        m -> "date=" + m.getString("date"));
    write(
        layers,
        written,
        IotMedallion.SENSOR_MINUTE,
        Lakehouse.GOLD_SENSOR_MINUTE,
        m -> "date=" + m.getDate());
    write(
        layers,
        written,
        IotMedallion.DEAD_LETTERS,
        Lakehouse.QUARANTINE_IOT,
        WriteIotTables::stagePartition);
    if (commitTo != null && !written.isEmpty()) {
      PCollectionList.of(written)
          .apply("AllWrittenFiles", Flatten.pCollections())
          .apply("Commit", CommitFlushes.to(commitTo, runId, flushEvery));
    }
    return PDone.in(layers.getPipeline());
  }

  /**
   * Writes one layer to its table; a stream's files go to {@code written} as their table's name and
   * path, for the one commit step of all tables.
   */
  private <T> void write(
      PCollectionTuple layers,
      List<PCollection<KV<String, String>>> written,
      TupleTag<T> layer,
      String table,
      SerializableFunction<T, String> partition) {
    if (!layers.has(layer)) {
      return;
    }
    PCollection<T> rows = layers.get(layer);
    if (commitTo == null && rows.isBounded() == PCollection.IsBounded.BOUNDED) {
      // A replay: one commit after the job, from the files its bundles wrote (no shuffle).
      rows.apply(
          "Write " + table,
          WriteTableFiles.to(lake.table(table), partition, runId, lake.written(runId, table)));
      return;
    }
    PCollection<KV<String, String>> files =
        rows.apply(
            "Write " + table,
            WriteTable.to(lake.table(table), partition, runId)
                .withNumShards(numShards)
                .withFlushEvery(flushEvery)
                .withFlushBatches(flushBatches));
    if (commitTo != null) {
      String name = Catalog.byPath(table).name();
      written.add(
          files
              .apply(
                  "Files of " + table,
                  MapElements.into(
                          TypeDescriptors.kvs(TypeDescriptors.strings(), TypeDescriptors.strings()))
                      .via((KV<String, String> file) -> KV.of(name, file.getValue())))
              .setCoder(KvCoder.of(StringUtf8Coder.of(), StringUtf8Coder.of())));
    }
  }

  /**
   * {@code date=…/hour=HH}. Not {@code String.format}: it parses its pattern for every row, 3 % of
   * the CPU of the IoT replay on the DirectRunner (JFR, 2026-12-04).
   */
  static String hourPartition(BronzeEvent e) {
    int hour = e.getHour();
    return "date=" + e.getDate() + (hour < 10 ? "/hour=0" : "/hour=") + hour;
  }

  /** {@code stage=…/date=…}: the partition of a dead letter in either pipeline's quarantine. */
  static String stagePartition(DeadLetter d) {
    return "stage=" + d.getStage() + "/date=" + d.getDate();
  }
}
