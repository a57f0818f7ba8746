package dev.medallion.pipelines;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.io.LocalOutputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The progress line's counts on Spark come from the table files written so far: a file still being
 * written counts nothing until it is whole, and one counted is not read again.
 */
class FileCounterTest {
  private static final Schema DEAD =
      SchemaBuilder.record("dead")
          .fields()
          .requiredString("stage")
          .requiredString("reason")
          .endRecord();

  @TempDir Path tmp;

  @Test
  void aLiveCountSkipsAFileNotWholeYetAndCountsItOnceItIs() throws Exception {
    String done = write("done.parquet", 3);
    Path writing = tmp.resolve("writing.parquet");
    Files.write(writing, new byte[] {'P', 'A', 'R', '1', 0, 0, 0}); // a writer's first bytes
    List<String> files = List.of(done, writing.toString());
    FileCounter live = FileCounter.live();

    assertThat(live.rows(files)).isEqualTo(3);
    assertThat(live.deadLetters(files, "_user"))
        .containsOnly(
            Map.entry("silver_user_rejected", 3L),
            Map.entry("silver_user_rejected_missing_user_id", 3L));
    assertThatThrownBy(() -> FileCounter.EXACT.rows(files))
        .as("a report's count reads every file")
        .hasMessageContaining("is not a Parquet file");

    Files.delete(writing);
    write("writing.parquet", 2);
    assertThat(live.rows(files)).isEqualTo(5);

    Files.delete(Path.of(done));
    assertThat(live.rows(files)).as("a file counted once is not read again").isEqualTo(5);
    assertThat(live.deadLetters(files, "_user")).containsEntry("silver_user_rejected", 5L);
  }

  private String write(String name, int rows) throws Exception {
    String path = tmp.resolve(name).toString();
    try (ParquetWriter<GenericRecord> w =
        AvroParquetWriter.<GenericRecord>builder(new LocalOutputFile(Path.of(path)))
            .withSchema(DEAD)
            .withConf(new PlainParquetConfiguration())
            .build()) {
      for (int i = 0; i < rows; i++) {
        GenericRecord r = new GenericData.Record(DEAD);
        r.put("stage", "silver");
        r.put("reason", "missing_user_id");
        w.write(r);
      }
    }
    return path;
  }
}
