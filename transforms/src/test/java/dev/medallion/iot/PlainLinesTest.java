package dev.medallion.iot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.medallion.core.FieldMapping;
import dev.medallion.core.InvalidRecordException;
import dev.medallion.core.RawEvent;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.values.KV;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * The one-pass read of a plain line ({@link PlainLines}) against Bronze's rule through the tree
 * ({@link IngestToBronze#classifyTree}): where the one pass gives a row, the tree gives the same
 * row, every column; where a line is not plain, the one pass gives nothing and leaves the line to
 * the tree.
 */
class PlainLinesTest {
  private static final Instant INGEST = new Instant(1_795_947_400_000L);
  private static final String BASE =
      "\"device_id\":\"dev-0007\",\"ts\":\"2026-11-29T10:15:30.123Z\"";

  /** Lines the one pass must read, each a different corner of a plain line. */
  static final List<String> PLAIN =
      List.of(
          IngestToBronzeTest.READING,
          IngestToBronzeTest.HEARTBEAT,
          "{" + BASE + ",\"sensor_type\":\"temperature\"}",
          "{" + BASE + ",\"sensor_type\":null,\"value\":null,\"unit\":null,\"seq\":null}",
          "{" + BASE + ",\"status\":null}",
          "{" + BASE + ",\"rssi_dbm\":-67}",
          "{" + BASE + ",\"battery_pct\":100}",
          "{" + BASE + ",\"battery_pct\":-0.0,\"status\":\"degraded\"}",
          "{\"ts\":1795947330123,\"device_id\":\"dev-0001\",\"sensor_type\":\"humidity\"}",
          "{" + BASE + ",\"sensor_type\":\"humidity\",\"value\":1e2,\"unit\":\"%\"}",
          "{" + BASE + ",\"sensor_type\":\"humidity\",\"value\":1E-400}",
          "{"
              + BASE
              + ",\"sensor_type\":\"humidity\",\"value\":0.1000000000000000055511151231257827}",
          "{" + BASE + ",\"sensor_type\":\"pressure\",\"value\":9007199254740993}",
          "{" + BASE + ",\"sensor_type\":\"pressure\",\"seq\":9223372036854775807}",
          "{" + BASE + ",\"sensor_type\":\"t\\u00e9mp\\n\",\"unit\":\"\\u00b0F\"}",
          "{" + BASE + ",\"sensor_type\":\"humidity\",\"firmware\":\"1.2\"}",
          "{" + BASE + ",\"sensor_type\":\"humidity\",\"a\":1.50,\"b\":true,\"c\":null,\"d\":-3}",
          "{" + BASE + ",\"sensor_type\":\"humidity\",\"note\":\"say \\\"hi\\\" \\u2603\"}",
          "{" + BASE + ",\"sensor_type\":\"humidity\",\"big\":123456789012345678901234567890}",
          "{" + BASE + ",\"sensor_type\":\"humidity\",\"huge\":1e400}",
          "  {" + BASE + ",\"status\":\"ok\"}  \t",
          "{ \"device_id\" : \"dev-0007\" , \"ts\" : 1795947330123 , \"status\" : \"ok\" }",
          "{\"device_id\":\"dev-0007\",\"ts\":\"2026-11-29T11:15:30.123+01:00\",\"status\":\"ok\"}");

  /** Lines that are not plain: the one pass must leave each to the tree. */
  static final List<String> NOT_PLAIN =
      List.of(
          "{" + BASE + ",\"sensor_type\":\"humidity\",\"value\":\"21.5\"}",
          "{" + BASE + ",\"sensor_type\":\"humidity\",\"value\":1e400}",
          "{" + BASE + ",\"sensor_type\":\"humidity\",\"value\":123456789012345678901234567890}",
          "{" + BASE + ",\"sensor_type\":\"humidity\",\"seq\":1.0}",
          "{" + BASE + ",\"sensor_type\":\"humidity\",\"seq\":9223372036854775808}",
          "{" + BASE + ",\"sensor_type\":\"humidity\",\"unit\":7}",
          "{" + BASE + ",\"sensor_type\":[\"humidity\"]}",
          "{" + BASE + ",\"rssi_dbm\":-67.5}",
          "{" + BASE + ",\"status\":true}",
          "{" + BASE + ",\"sensor_type\":\"humidity\",\"meta\":{\"fw\":\"1.2\"}}",
          "{" + BASE + ",\"sensor_type\":\"humidity\",\"tags\":[1,2]}",
          "{" + BASE + ",\"sensor_type\":\"humidity\",\"x\":1,\"x\":2}",
          "{" + BASE + ",\"sensor_type\":\"humidity\",\"unit\":\"C\",\"unit\":\"F\"}",
          "{" + BASE + ",\"sensor_type\":\"humidity\",\"ts\":1795947330123}",
          "{" + BASE + ",\"sensor_type\":\"humidity\",\"meta\":{\"a\":1,\"a\":2}}",
          "{\"device_id\":\"dev-0007\",\"ts\":-1,\"status\":\"ok\"}",
          "{\"device_id\":\"dev-0007\",\"ts\":253402300800000,\"status\":\"ok\"}",
          "{\"device_id\":\"dev-0007\",\"ts\":null,\"status\":\"ok\"}",
          "{\"device_id\":\"dev-0007\",\"ts\":true,\"status\":\"ok\"}",
          "{\"device_id\":\"  \",\"ts\":1795947330123,\"status\":\"ok\"}",
          "{\"device_id\":\"dev-0007\",\"ts\":1795947330123}",
          "{\"device_id\":\"dev-0007\",\"ts\":1795947330123,\"status\":\"ok\"}{}",
          "{\"device_id\":\"dev-0007\",\"ts\":1795947330123,\"status\":\"ok\"");

  @Test
  void theOnePassReadsPlainLinesAsTheTreeDoes() {
    for (String line : PLAIN) {
      RawEvent raw = RawEvent.of(line, "kafka", "iot", 3, 42, new Instant(5));
      BronzeEvent onePass = PlainLines.read(raw, INGEST);
      assertThat(onePass).as(line).isNotNull();
      assertThat(onePass).as(line).isEqualTo(tree(raw));
    }
  }

  @Test
  void theOnePassLeavesEveryOtherLineToTheTree() {
    List<String> lines = new ArrayList<>(NOT_PLAIN);
    IngestToBronzeTest.INVALID.forEach(kv -> lines.add(kv.getKey()));
    for (String line : lines) {
      assertThat(PlainLines.read(RawEvent.of(line, "file", "x", null, 1, null), INGEST))
          .as(line)
          .isNull();
    }
    RawEvent undecodable = RawEvent.of("{\\xC3(}", "file", "x", null, 1, null, "byte 0xC3");
    assertThat(PlainLines.read(undecodable, INGEST)).isNull();
    RawEvent otherKey = RawEvent.of(IngestToBronzeTest.READING, "kafka", "iot", 0, 1, null);
    assertThat(PlainLines.read(otherKey.withSourceKey("dev-0003"), INGEST)).isNull();
    assertThat(PlainLines.read(otherKey.withSourceKey("dev-0007"), INGEST)).isNotNull();
  }

  /** Every line of the golden IoT file, and of the bridges' file, gives what the tree gives. */
  @Test
  void theGoldenFilesGiveTheSameRowsAndReasons() throws IOException {
    int plain = 0;
    int lines = 0;
    for (String file : List.of("iot/events.ndjson", "bridges/readings.ndjson")) {
      for (String line : Files.readAllLines(Path.of("../testdata", file), StandardCharsets.UTF_8)) {
        RawEvent raw = RawEvent.of(line, "file", file, null, ++lines, null);
        BronzeEvent onePass = PlainLines.read(raw, INGEST);
        KV<String, BronzeEvent> tree = treeOrReason(raw);
        if (onePass != null) {
          plain++;
          assertThat(tree.getValue()).as(line).isEqualTo(onePass);
        }
        assertThat(reasonOf(raw)).as(line).isEqualTo(tree.getKey());
      }
    }
    assertThat(plain).as("plain lines among %d", lines).isGreaterThan(lines / 2);
  }

  private static BronzeEvent tree(RawEvent raw) {
    return IngestToBronze.classifyTree(raw, INGEST, FieldMapping.NONE);
  }

  /** The tree's reason for rejecting a line (null when it keeps it), and its row. */
  private static KV<String, BronzeEvent> treeOrReason(RawEvent raw) {
    try {
      return KV.of(null, tree(raw));
    } catch (InvalidRecordException e) {
      return KV.of(e.getReason(), null);
    }
  }

  /** The reason {@link IngestToBronze#classify}, one pass first, gives (null when it keeps it). */
  private static String reasonOf(RawEvent raw) {
    try {
      IngestToBronze.classify(raw, INGEST);
      return null;
    } catch (InvalidRecordException e) {
      return e.getReason();
    }
  }
}
