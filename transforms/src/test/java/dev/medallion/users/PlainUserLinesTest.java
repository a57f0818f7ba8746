package dev.medallion.users;

import static org.assertj.core.api.Assertions.assertThat;

import dev.medallion.core.FieldMapping;
import dev.medallion.core.InvalidRecordException;
import dev.medallion.core.RawEvent;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * The one-pass read of a plain user-event line ({@link IngestUserEvents#readPlain}) against the
 * rule through the tree ({@link IngestUserEvents#parseTree}): where the one pass gives a row, the
 * tree gives the same row, every column; every other line is left to the tree.
 */
class PlainUserLinesTest {
  private static final Instant INGEST = new Instant(1_795_947_400_000L);
  private static final String BASE =
      "\"event_id\":\"e-1\",\"user_id\":\"u-7\",\"event_type\":\"click\"";

  static final List<String> PLAIN =
      List.of(
          "{" + BASE + ",\"event_timestamp\":\"2026-11-29T10:00:00.926Z\"}",
          "{" + BASE + ",\"event_timestamp\":1795947330123,\"price\":12}",
          "{" + BASE + ",\"event_timestamp\":null,\"price\":null,\"device\":null}",
          "{" + BASE + "}",
          "{}",
          "{\"user_id\":\"\"}",
          "{" + BASE + ",\"price\":-0.0,\"session_id\":\"s\",\"product_id\":\"p\"}",
          "{" + BASE + ",\"price\":1e-400,\"country\":\"FR\",\"device\":\"t\\u00e9l\\u00e9\"}",
          "{" + BASE + ",\"price\":9007199254740993}",
          "{" + BASE + ",\"feature_hash\":\"ab12\",\"score\":1.50,\"ok\":true,\"none\":null}",
          "{" + BASE + ",\"big\":123456789012345678901234567890,\"huge\":1e400}",
          "{" + BASE + ",\"event_timestamp\":\"2026-11-29T11:00:00+01:00\"}  ");

  static final List<String> NOT_PLAIN =
      List.of(
          "{" + BASE + ",\"event_timestamp\":\"yesterday\"}",
          "{" + BASE + ",\"event_timestamp\":1795947330.5}",
          "{" + BASE + ",\"event_timestamp\":-5}",
          "{" + BASE + ",\"event_timestamp\":true}",
          "{" + BASE + ",\"price\":\"12.5\"}",
          "{" + BASE + ",\"price\":1e400}",
          "{" + BASE + ",\"price\":123456789012345678901234567890}",
          "{" + BASE + ",\"user_id\":7}",
          "{" + BASE + ",\"meta\":{\"a\":1}}",
          "{" + BASE + ",\"tags\":[]}",
          "{" + BASE + ",\"x\":1,\"x\":2}",
          "{" + BASE + ",\"event_type\":\"view\"}",
          "{" + BASE + "} {}",
          "[1]",
          "",
          "{" + BASE);

  @Test
  void theOnePassReadsPlainLinesAsTheTreeDoes() {
    for (String line : PLAIN) {
      RawEvent raw = RawEvent.of(line, "file", "events.ndjson", null, 9, null);
      UserEventBronze onePass = IngestUserEvents.readPlain(raw, INGEST);
      assertThat(onePass).as(line).isNotNull();
      assertThat(onePass).as(line).isEqualTo(tree(raw));
    }
  }

  @Test
  void theOnePassLeavesEveryOtherLineToTheTree() {
    for (String line : NOT_PLAIN) {
      RawEvent raw = RawEvent.of(line, "file", "x", null, 1, null);
      assertThat(IngestUserEvents.readPlain(raw, INGEST)).as(line).isNull();
    }
    RawEvent badRow = RawEvent.of("{" + BASE + "}", "file", "x", null, 1, null, null, "3 cells");
    assertThat(IngestUserEvents.readPlain(badRow, INGEST)).isNull();
  }

  /** The tree notes type errors in the order it always read the fields: the column's text. */
  @Test
  void theTreeNotesTypeErrorsInItsReadingOrder() {
    RawEvent raw =
        RawEvent.of(
            "{\"country\":1,\"device\":7,\"price\":\"9\",\"user_id\":true}",
            "file",
            "x",
            null,
            1,
            null);
    assertThat(IngestUserEvents.readPlain(raw, INGEST)).isNull();
    assertThat(tree(raw).getTypeErrors())
        .isEqualTo("user_id:boolean,price:string,device:number,country:number");
  }

  /** Every line of the repository's user-event files gives what the tree gives. */
  @Test
  void theUserFilesGiveTheSameRowsAndReasons() throws IOException {
    int plain = 0;
    int lines = 0;
    for (String file :
        List.of(
            "users/raw/events-2026-11-26.ndjson",
            "users/raw/events-2026-11-27.ndjson",
            "users/late/events-2026-11-28.ndjson",
            "cdc/user-events-changes.ndjson")) {
      for (String line : Files.readAllLines(Path.of("../testdata", file), StandardCharsets.UTF_8)) {
        RawEvent raw = RawEvent.of(line, "file", file, null, ++lines, null);
        UserEventBronze onePass = IngestUserEvents.readPlain(raw, INGEST);
        String reason = null;
        UserEventBronze tree = null;
        try {
          tree = tree(raw);
        } catch (InvalidRecordException e) {
          reason = e.getReason();
        }
        if (onePass != null) {
          plain++;
          assertThat(tree).as(line).isEqualTo(onePass);
        }
        assertThat(reasonOf(raw)).as(line).isEqualTo(reason);
      }
    }
    assertThat(plain).as("plain lines among %d", lines).isGreaterThan(lines / 2);
  }

  private static UserEventBronze tree(RawEvent raw) {
    return IngestUserEvents.parseTree(raw, INGEST, FieldMapping.NONE);
  }

  private static String reasonOf(RawEvent raw) {
    try {
      IngestUserEvents.parse(raw, INGEST);
      return null;
    } catch (InvalidRecordException e) {
      return e.getReason();
    }
  }
}
