package dev.medallion.pipelines;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.medallion.core.EventTimestamps;
import dev.medallion.iot.BronzeEvent;
import dev.medallion.iot.Heartbeat;
import dev.medallion.iot.SensorReading;
import dev.medallion.testing.RandomRows;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.schemas.SchemaRegistry;
import org.apache.beam.sdk.util.RowJson;
import org.apache.beam.sdk.util.RowJsonUtils;
import org.apache.beam.sdk.values.Row;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * The JSON of a forwarded row: the same text as Beam's {@code RowJson} writes for the rows of the
 * three forwarded schemas, read back to the same values, and a clear error for what is no such row.
 */
class RowJsonCodecTest {
  private static final String[] TEXTS = {
    "",
    "dev-0001",
    "quote \" backslash \\ slash /",
    "tab\tnew\nline\r",
    "\u0001\u001f control",
    "ünïcödé 温度 \uD83D\uDE00",
    "{\"device_id\":\"dev-1\",\"value\":1.5}",
    "x".repeat(70_000)
  };
  private static final double[] DOUBLES = {
    0.0, -0.0, 72.7, -84.0, 1003.99, 1e-7, 1.0E21, 123456789.123, Double.MAX_VALUE, Double.MIN_VALUE
  };

  @Test
  void writesTheTextOfBeamsRowJsonAndReadsItBack() throws Exception {
    SchemaRegistry registry = SchemaRegistry.createDefault();
    Random random = new Random(7);
    int rows = 0;
    for (Class<?> type : List.of(BronzeEvent.class, SensorReading.class, Heartbeat.class)) {
      Schema schema = registry.getSchema(type);
      RowJsonCodec codec = RowJsonCodec.of(schema);
      ObjectMapper beamWrites =
          RowJsonUtils.newObjectMapperWith(RowJson.RowJsonSerializer.forSchema(schema));
      ObjectMapper beamReads =
          RowJsonUtils.newObjectMapperWith(
              RowJson.RowJsonDeserializer.forSchema(schema)
                  .withNullBehavior(
                      RowJson.RowJsonDeserializer.NullBehavior.ACCEPT_MISSING_OR_NULL));
      for (int n = 0; n < 400; n++) {
        Row row = RandomRows.of(schema, random, TEXTS, DOUBLES);
        String text = codec.write(row);
        assertThat(text).isEqualTo(beamWrites.writeValueAsString(row));
        RandomRows.assertSameValues(schema, codec.read(text), row);
        RandomRows.assertSameValues(schema, RowJsonUtils.jsonToRow(beamReads, text), row);
        rows++;
      }
    }
    assertThat(rows).isEqualTo(1200);
  }

  @Test
  void writesInstantsAsJodaDoesAndReadsThemBack() {
    // A row's instants read back by the project's rule (EventTimestamps.isoInstant, whose other
    // forms EventTimestampsTest checks).
    Random random = new Random(11);
    List<Long> millis =
        new ArrayList<>(
            List.of(0L, -1L, 1L, 86_399_999L, -86_400_000L, 1795946400056L, 253402300799999L));
    millis.add(-62167219200000L); // 0000-01-01T00:00:00.000Z
    for (int i = 0; i < 20_000; i++) {
      millis.add(random.nextLong() % 253402300800000L); // years -5999 to 9999
    }
    millis.add(-62167219200001L); // the last millisecond of year -1
    for (long m : millis) {
      Instant at = new Instant(m);
      String text = EventTimestamps.isoMillis(at);
      assertThat(text).as("%d", m).isEqualTo(at.toString());
      assertThat(EventTimestamps.isoInstant(text)).as(text).isEqualTo(at);
    }
    // Year 10000 and on, which no table holds: written as Joda writes it.
    Instant far = new Instant(253402300800000L);
    assertThat(EventTimestamps.isoMillis(far)).isEqualTo(far.toString());
  }

  @Test
  void whatIsNoSuchRowIsAnErrorNamingTheField() throws Exception {
    Schema schema = SchemaRegistry.createDefault().getSchema(Heartbeat.class);
    RowJsonCodec codec = RowJsonCodec.of(schema);
    String good = codec.write(RandomRows.of(schema, new Random(3), TEXTS, DOUBLES));
    assertThat(codec.read(good).getSchema()).isEqualTo(schema);
    // A field the schema does not have is skipped, whatever it holds.
    String extra = good.replaceFirst("\\{", "{\"other\":{\"a\":[1,{\"b\":null}]},");
    RandomRows.assertSameValues(schema, codec.read(extra), codec.read(good));

    assertThatThrownBy(() -> codec.read("garbage"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("not valid JSON at column 8: Unrecognized token 'garbage'")
        .hasNoCause();
    assertThatThrownBy(() -> codec.read("[1,2]")).hasMessage("not a JSON object");
    assertThatThrownBy(() -> codec.read("")).hasMessage("not a JSON object");
    assertThatThrownBy(() -> codec.read("{\"hello\":1}")).hasMessage("field device_id is missing");
    Map<String, String> wrong =
        Map.of(
            "\"device_id\":null", "field device_id is null",
            "\"rssi_dbm\":\"-70\"", "field rssi_dbm: expected int64, got -70",
            "\"rssi_dbm\":-70.5", "field rssi_dbm: expected int64, got -70.5",
            "\"event_ts\":\"soon\"",
                "field event_ts: not an ISO-8601 instant with Z or an offset: soon",
            "\"event_ts\":\"2026-11-29T10:00:00\"",
                "field event_ts: not an ISO-8601 instant with Z or an offset: 2026-11-29T10:00:00");
    wrong.forEach(
        (field, message) -> {
          String name = field.substring(0, field.indexOf(':'));
          String edited = good.replaceFirst(name + ":(\"[^\"]*\"|[-0-9.]+)", field);
          assertThat(edited).as(field).contains(field);
          assertThatThrownBy(() -> codec.read(edited)).as(field).hasMessage(message);
        });
    assertThatThrownBy(() -> codec.read(good.replaceFirst("\\{", "{\"site\":\"x\",")))
        .as("a key twice")
        .hasMessageStartingWith("not valid JSON at column");
    assertThatThrownBy(() -> codec.read(good + "{}")).hasMessage("more than one JSON value");
    // A row whose non-nullable field is null is not written (the next stage would reject it).
    List<Object> values = new ArrayList<>(codec.read(good).getValues());
    values.set(schema.indexOf("device_id"), null);
    Row broken = Row.withSchema(schema).attachValues(values);
    assertThatThrownBy(() -> codec.write(broken)).hasMessage("field device_id is null");
    assertThatThrownBy(() -> codec.read(good.substring(0, good.length() - 1)))
        .hasMessageStartingWith("not valid JSON");
  }
}
