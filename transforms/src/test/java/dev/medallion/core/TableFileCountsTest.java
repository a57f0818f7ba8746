package dev.medallion.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.hadoop.ParquetWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Counting a run's rows and dead letters in its Parquet files, as the users report does. */
class TableFileCountsTest {
  private static final Schema DEAD =
      SchemaBuilder.record("dead")
          .fields()
          .requiredString("stage")
          .requiredString("reason")
          .optionalString("original_payload")
          .endRecord();

  @TempDir Path tmp;

  @Test
  void rowsComeFromTheFootersAndDeadLettersByStageAndReasonCode() throws Exception {
    String a = write("a.parquet", List.of("bronze|not_json", "silver|missing_user_id"));
    String b =
        write(
            "b.parquet",
            List.of("silver|missing_user_id", "silver|out_of_range:value", "silver|duplicate"));

    assertThat(TableFileCounts.rows(List.of(a, b))).isEqualTo(5);
    assertThat(TableFileCounts.rows(List.of())).isZero();
    assertThat(TableFileCounts.deadLetters(List.of(a, b), "_user"))
        .containsOnly(
            Map.entry("bronze_user_rejected", 1L),
            Map.entry("bronze_user_rejected_not_json", 1L),
            Map.entry("silver_user_rejected", 4L),
            Map.entry("silver_user_rejected_missing_user_id", 2L),
            Map.entry("silver_user_rejected_out_of_range", 1L),
            Map.entry("silver_user_rejected_duplicate", 1L));
  }

  private String write(String name, List<String> stageAndReason) throws Exception {
    String path = tmp.resolve(name).toString();
    try (ParquetWriter<GenericRecord> w = WriteTableFiles.open(path, DEAD)) {
      for (String sr : stageAndReason) {
        GenericRecord r = new GenericData.Record(DEAD);
        r.put("stage", sr.substring(0, sr.indexOf('|')));
        r.put("reason", sr.substring(sr.indexOf('|') + 1));
        r.put("original_payload", "{}");
        w.write(r);
      }
    }
    return path;
  }
}
