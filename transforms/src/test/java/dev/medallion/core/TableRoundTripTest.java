package dev.medallion.core;

import static dev.medallion.testing.Events.reading;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.medallion.iot.SensorReading;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.Keys;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Records written by {@link WriteTable} read back equal through {@link ReadTable}. */
class TableRoundTripTest {
  @TempDir Path dir;

  @Test
  void recordsSurviveParquetAndLandInTheirPartitions() throws Exception {
    List<SensorReading> rows =
        List.of(
            reading(
                "dev-0001", "temperature", 21.5, "2026-11-29T10:15:10Z", "2026-11-29T10:15:11Z"),
            reading("dev-0002", "humidity", 40.0, "2026-11-30T00:00:00Z", null));
    String table = dir.resolve("silver/sensor_readings").toString();

    Pipeline write = Pipeline.create(PipelineOptionsFactory.create());
    write
        .apply(Create.of(rows))
        .apply(WriteTable.<SensorReading>to(table, r -> "date=" + r.getDate(), "test"));
    write.run().waitUntilFinish();

    try (Stream<Path> files = Files.walk(dir)) {
      List<String> partitions =
          files
              .filter(f -> f.toString().endsWith(".parquet"))
              .map(f -> dir.relativize(f.getParent()).toString())
              .sorted()
              .toList();
      assertThat(partitions)
          .containsExactly(
              "silver/sensor_readings/date=2026-11-29", "silver/sensor_readings/date=2026-11-30");
    }

    Pipeline read = Pipeline.create(PipelineOptionsFactory.create());
    PAssert.that(read.apply(ReadTable.of(table, SensorReading.class))).containsInAnyOrder(rows);
    read.run().waitUntilFinish();
  }

  /**
   * A stream's records reach the files in batches per partition ({@link WriteTable.WriteFileFn}):
   * more records than a batch holds, over three partitions and several bundles, each read back
   * once.
   */
  @Test
  void aStreamsRecordsAreWrittenOnceEachThroughTheirBatches() throws Exception {
    List<SensorReading> rows = new ArrayList<>();
    for (int i = 0; i < 2 * KeyedBatches.MAX_RECORDS + 1; i++) {
      String day = "2026-11-" + (27 + i % 3);
      rows.add(reading("dev-000" + (1 + i % 3), "temperature", i, day + "T10:15:10Z", null));
    }
    String table = dir.resolve("silver/sensor_readings").toString();
    Pipeline write = Pipeline.create(PipelineOptionsFactory.create());
    write
        .apply(inBundlesOf1000(write, rows))
        .apply(WriteTable.<SensorReading>to(table, r -> "date=" + r.getDate(), "test"));
    write.run().waitUntilFinish();

    Pipeline read = Pipeline.create(PipelineOptionsFactory.create());
    PAssert.that(read.apply(ReadTable.of(table, SensorReading.class))).containsInAnyOrder(rows);
    read.run().waitUntilFinish();
  }

  /**
   * A flush writes at most {@code numShards} files per partition (here five bundles' batches of
   * three partitions, in one pane, over two shards), and the write's output names exactly the files
   * it wrote, each under its partition: what a stream commits.
   */
  @Test
  void aFlushWritesAtMostItsShardsPerPartitionAndNamesEachFile() throws Exception {
    List<SensorReading> rows = new ArrayList<>();
    for (int i = 0; i < 5000; i++) {
      String day = "2026-11-" + (27 + i % 3);
      rows.add(reading("dev-000" + (1 + i % 3), "humidity", i % 100, day + "T08:00:00Z", null));
    }
    String table = dir.resolve("silver/sensor_readings").toString();
    Pipeline write = Pipeline.create(PipelineOptionsFactory.create());
    PCollection<KV<String, String>> written =
        write
            .apply(inBundlesOf1000(write, rows))
            .apply(
                WriteTable.<SensorReading>to(table, r -> "date=" + r.getDate(), "test")
                    .withNumShards(2));
    PAssert.that(written)
        .satisfies(
            files -> {
              Map<String, List<String>> byPartition = new TreeMap<>();
              files.forEach(
                  f ->
                      byPartition
                          .computeIfAbsent(f.getKey(), k -> new ArrayList<>())
                          .add(f.getValue()));
              assertThat(byPartition)
                  .containsOnlyKeys("date=2026-11-27", "date=2026-11-28", "date=2026-11-29");
              byPartition.forEach(
                  (part, paths) -> {
                    assertThat(paths).as(part).hasSizeBetween(1, 2);
                    assertThat(paths)
                        .allSatisfy(
                            f ->
                                assertThat(f)
                                    .startsWith(table + "/" + part + "/part-test-")
                                    .endsWith(".parquet"));
                  });
              try (Stream<Path> onDisk = Files.walk(Path.of(table))) {
                assertThat(onDisk.map(Path::toString).filter(f -> f.endsWith(".parquet")))
                    .containsExactlyInAnyOrderElementsOf(
                        byPartition.values().stream().flatMap(List::stream).toList());
              } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
              return null;
            });
    write.run().waitUntilFinish();

    Pipeline read = Pipeline.create(PipelineOptionsFactory.create());
    PAssert.that(read.apply(ReadTable.of(table, SensorReading.class))).containsInAnyOrder(rows);
    read.run().waitUntilFinish();
  }

  /**
   * With {@link WriteTable#withFlushBatches}, a shard writes its file as soon as that many batches
   * wait, before the flush interval: five bundles of 1,000 records of one partition, a batch each,
   * make files of two, two and one batch, and every record is read back once. Without it, the same
   * stream makes one file.
   */
  @Test
  void aShardWritesAFileWheneverItsBatchesWait() throws Exception {
    List<SensorReading> rows = new ArrayList<>();
    for (int i = 0; i < 5000; i++) {
      rows.add(reading("dev-000" + (1 + i % 3), "humidity", i % 100, "2026-11-27T08:00:00Z", null));
    }
    assertThat(filesWritten(rows, w -> w.withFlushBatches(2), "bounded")).hasSize(3);
    assertThat(filesWritten(rows, w -> w, "interval")).hasSize(1);
  }

  /**
   * The files {@code rows}, 1,000 to a bundle, make through {@code write} in a table of their own
   * (named {@code name}), after checking that the table reads back exactly the rows.
   */
  private List<String> filesWritten(
      List<SensorReading> rows, UnaryOperator<WriteTable<SensorReading>> write, String name)
      throws Exception {
    String table = dir.resolve(name + "/sensor_readings").toString();
    Pipeline p = Pipeline.create(PipelineOptionsFactory.create());
    p.apply(inBundlesOf1000(p, rows))
        .apply(
            write.apply(WriteTable.<SensorReading>to(table, r -> "date=" + r.getDate(), "test")));
    p.run().waitUntilFinish();

    Pipeline read = Pipeline.create(PipelineOptionsFactory.create());
    PAssert.that(read.apply(ReadTable.of(table, SensorReading.class))).containsInAnyOrder(rows);
    read.run().waitUntilFinish();
    try (Stream<Path> onDisk = Files.walk(Path.of(table))) {
      return onDisk.map(Path::toString).filter(f -> f.endsWith(".parquet")).toList();
    }
  }

  /**
   * A partition whose records all went out in an early flush gets no second, empty file when the
   * input ends (its last pane holds no batch); a partition with records after that flush gets its
   * second file.
   */
  @Test
  void aPartitionWithNothingSinceItsLastFlushGetsNoEmptyFile() throws Exception {
    SensorReading a1 = reading("dev-0001", "temperature", 20.0, "2026-11-27T10:00:00Z", null);
    SensorReading b1 = reading("dev-0002", "temperature", 21.0, "2026-11-28T10:00:00Z", null);
    SensorReading a2 = reading("dev-0003", "temperature", 22.0, "2026-11-27T10:00:01Z", null);
    String table = dir.resolve("silver/sensor_readings").toString();
    Pipeline write = Pipeline.create(PipelineOptionsFactory.create());
    TestStream<SensorReading> stream =
        TestStream.create(write.getSchemaRegistry().getSchemaCoder(SensorReading.class))
            .addElements(
                TimestampedValue.of(a1, a1.getEventTs()), TimestampedValue.of(b1, b1.getEventTs()))
            .advanceProcessingTime(Duration.standardSeconds(11)) // past the 10 s flush
            .addElements(TimestampedValue.of(a2, a2.getEventTs()))
            .advanceWatermarkToInfinity();
    PCollection<KV<String, String>> written =
        write
            .apply(stream)
            .apply(WriteTable.<SensorReading>to(table, r -> "date=" + r.getDate(), "test"));
    PAssert.that(written.apply(Keys.create()))
        .containsInAnyOrder("date=2026-11-27", "date=2026-11-27", "date=2026-11-28");
    write.run().waitUntilFinish();

    Pipeline read = Pipeline.create(PipelineOptionsFactory.create());
    PAssert.that(read.apply(ReadTable.of(table, SensorReading.class)))
        .containsInAnyOrder(a1, b1, a2);
    read.run().waitUntilFinish();
  }

  /** {@code rows} as a stream, 1,000 to a bundle, stamped with their event time. */
  private static TestStream<SensorReading> inBundlesOf1000(Pipeline p, List<SensorReading> rows)
      throws Exception {
    TestStream.Builder<SensorReading> stream =
        TestStream.create(p.getSchemaRegistry().getSchemaCoder(SensorReading.class));
    for (int from = 0; from < rows.size(); from += 1000) {
      stream =
          stream.addElements(
              TimestampedValue.of(rows.get(from), rows.get(from).getEventTs()),
              rows.subList(from + 1, Math.min(from + 1000, rows.size())).stream()
                  .map(r -> TimestampedValue.of(r, r.getEventTs()))
                  .toArray(TimestampedValue[]::new));
    }
    return stream.advanceWatermarkToInfinity();
  }

  @Test
  void aTruncatedFileStopsTheReadWithItsPath() throws Exception {
    String table = dir.resolve("silver/sensor_readings").toString();
    Pipeline write = Pipeline.create(PipelineOptionsFactory.create());
    write
        .apply(Create.of(reading("dev-0001", "humidity", 40.0, "2026-11-29T10:16:00Z", null)))
        .apply(WriteTable.<SensorReading>to(table, r -> "date=" + r.getDate(), "test"));
    write.run().waitUntilFinish();
    Path file;
    try (Stream<Path> files = Files.walk(dir)) {
      file = files.filter(f -> f.toString().endsWith(".parquet")).findFirst().orElseThrow();
    }
    byte[] bytes = Files.readAllBytes(file);
    Files.write(file, java.util.Arrays.copyOf(bytes, bytes.length / 2));

    Pipeline read = Pipeline.create(PipelineOptionsFactory.create());
    read.apply(ReadTable.of(table, SensorReading.class));
    Throwable failure = catchThrowable(() -> read.run().waitUntilFinish());
    MedallionException cause = MedallionException.findIn(failure);
    assertThat(cause).as("failure: %s", failure).isNotNull();
    assertThat(cause.getMessage()).contains(file.toString()).contains("not readable Parquet");
  }
}
