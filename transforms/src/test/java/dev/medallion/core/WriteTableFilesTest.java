package dev.medallion.core;

import static dev.medallion.testing.Events.reading;
import static org.assertj.core.api.Assertions.assertThat;

import dev.medallion.iot.SensorReading;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.runners.TransformHierarchy;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.windowing.AfterWatermark;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link WriteTableFiles}: every row lands in a file its manifest lists, in its partition, also
 * when a bundle spans more partitions than it keeps files open; and an empty input lists nothing.
 */
class WriteTableFilesTest {
  @TempDir Path dir;

  @Test
  void everyRowIsInAListedFileOfItsPartitionBeyondTheOpenFileLimit() throws Exception {
    List<SensorReading> rows = new ArrayList<>();
    int days = WriteTableFiles.MAX_OPEN_FILES * 2 + 3;
    for (int d = 1; d <= days; d++) {
      for (String sensor : List.of("temperature", "humidity")) {
        rows.add(reading("dev-0001", sensor, d, String.format("2026-10-%02dT10:15:10Z", d), null));
      }
    }
    String table = dir.resolve("silver/sensor_readings").toString();
    Path manifest = dir.resolve("_written/test/silver/sensor_readings.txt");

    Pipeline write = Pipeline.create(PipelineOptionsFactory.create());
    write
        .apply(Create.of(rows))
        .apply(
            WriteTableFiles.<SensorReading>to(
                table, r -> "date=" + r.getDate(), "test", manifest.toString()));
    write.run().waitUntilFinish();

    List<String> listed = Files.readAllLines(manifest);
    assertThat(listed).allSatisfy(f -> assertThat(Path.of(f)).exists());
    assertThat(listed.stream().map(f -> Path.of(f).getParent().getFileName().toString()))
        .containsAll(rows.stream().map(r -> "date=" + r.getDate()).distinct().toList());

    Pipeline read = Pipeline.create(PipelineOptionsFactory.create());
    PAssert.that(read.apply(ReadTable.ofFiles(listed, SensorReading.class)))
        .containsInAnyOrder(rows);
    read.run().waitUntilFinish();
  }

  @Test
  void anEmptyInputWritesAnEmptyManifest() throws Exception {
    Path manifest = dir.resolve("_written/empty.txt");
    Pipeline write = Pipeline.create(PipelineOptionsFactory.create());
    write
        .apply(Create.empty(org.apache.beam.sdk.values.TypeDescriptor.of(SensorReading.class)))
        .apply(
            WriteTableFiles.<SensorReading>to(
                dir.resolve("t").toString(), r -> "date=" + r.getDate(), "e", manifest.toString()));
    write.run().waitUntilFinish();
    assertThat(Files.readString(manifest)).isEmpty();
  }

  @Test
  void windowedRowsAreListedOnceAndRowsInTheGlobalWindowAreNotWindowedAgain() throws Exception {
    List<SensorReading> rows =
        List.of(
            reading("dev-0001", "temperature", 20.0, "2026-10-01T10:15:10Z", null),
            reading("dev-0001", "temperature", 21.0, "2026-10-01T10:16:10Z", null));
    Path global = dir.resolve("_written/global.txt");
    Path windowed = dir.resolve("_written/windowed.txt");
    Pipeline write = Pipeline.create(PipelineOptionsFactory.create());
    PCollection<SensorReading> input =
        write.apply(
            Create.timestamped(
                rows.stream().map(r -> TimestampedValue.of(r, r.getEventTs())).toList()));
    input.apply(
        "WriteGlobal",
        WriteTableFiles.<SensorReading>to(
            dir.resolve("g").toString(), r -> "date=" + r.getDate(), "g", global.toString()));
    input
        .apply(
            Window.<SensorReading>into(FixedWindows.of(Duration.standardMinutes(1)))
                .triggering(AfterWatermark.pastEndOfWindow())
                .withAllowedLateness(Duration.ZERO)
                .accumulatingFiredPanes())
        .apply(
            "WriteWindowed",
            WriteTableFiles.<SensorReading>to(
                dir.resolve("w").toString(), r -> "date=" + r.getDate(), "w", windowed.toString()));
    List<String> windowSteps = new ArrayList<>();
    write.traverseTopologically(
        new Pipeline.PipelineVisitor.Defaults() {
          @Override
          public CompositeBehavior enterCompositeTransform(TransformHierarchy.Node node) {
            if (node.getFullName().endsWith("/GlobalWindow")) {
              windowSteps.add(node.getFullName());
            }
            return CompositeBehavior.ENTER_TRANSFORM;
          }
        });
    write.run().waitUntilFinish();

    assertThat(windowSteps).containsExactly("WriteWindowed/GlobalWindow");
    for (Path manifest : List.of(global, windowed)) {
      List<String> listed = Files.readAllLines(manifest);
      assertThat(listed).doesNotHaveDuplicates().isNotEmpty();
      Pipeline read = Pipeline.create(PipelineOptionsFactory.create());
      PAssert.that(read.apply(ReadTable.ofFiles(listed, SensorReading.class)))
          .containsInAnyOrder(rows);
      read.run().waitUntilFinish();
    }
  }
}
