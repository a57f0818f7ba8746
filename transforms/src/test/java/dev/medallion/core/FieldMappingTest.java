package dev.medallion.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.beam.sdk.util.SerializableUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FieldMappingTest {
  @TempDir Path tmp;

  private FieldMapping load(String name, String text) throws Exception {
    Path f = tmp.resolve(name);
    Files.writeString(f, text);
    return FieldMapping.load(f.toString());
  }

  private static String mapped(FieldMapping m, String json) {
    return m.apply((ObjectNode) Json.parseObject(json)).toString();
  }

  @Test
  void renameCoerceDefaultsAndConstantsApplyInThatOrder() throws Exception {
    FieldMapping m =
        load(
            "m.yaml",
            "rename: {bridge_id: device_id, event_time: ts}\n"
                + "coerce: {device_id: string, value: number, ok: boolean, n: integer}\n"
                + "defaults:\n"
                + "  unit: {by: sensor_type, values: {tilt: deg, vibration: mm/s}}\n"
                + "  site: nowhere\n"
                + "constants: {schema: 2}\n");
    assertThat(
            mapped(
                m,
                "{\"bridge_id\":101,\"event_time\":\"t\",\"sensor_type\":\"tilt\","
                    + "\"value\":\"0.5\",\"ok\":\"TRUE\",\"n\":\"7\",\"schema\":1}"))
        .isEqualTo(
            "{\"sensor_type\":\"tilt\",\"value\":0.5,\"ok\":true,\"n\":7,\"schema\":2,"
                + "\"device_id\":\"101\",\"ts\":\"t\",\"unit\":\"deg\",\"site\":\"nowhere\"}");
    // A value that is there is not defaulted; one that cannot be coerced is left for the rules.
    assertThat(
            mapped(
                m, "{\"sensor_type\":\"wind\",\"unit\":\"m/s\",\"value\":\"n/a\",\"site\":null}"))
        .isEqualTo(
            "{\"sensor_type\":\"wind\",\"unit\":\"m/s\",\"value\":\"n/a\",\"site\":\"nowhere\","
                + "\"schema\":2}");
  }

  @Test
  void aMappingSurvivesSerializationAsADoFnFieldDoes() throws Exception {
    FieldMapping m = load("m.json", "{\"defaults\": {\"unit\": \"C\"}}");
    FieldMapping copy = SerializableUtils.clone(m);
    assertThat(mapped(copy, "{\"value\":1}")).isEqualTo("{\"value\":1,\"unit\":\"C\"}");
    assertThat(FieldMapping.NONE.isEmpty()).isTrue();
    assertThat(load("empty.yaml", "").isEmpty()).isTrue();
  }

  @Test
  void aWrongMappingFileIsRefusedNamingWhatIsWrong() {
    assertThatThrownBy(() -> load("a.yaml", "renam: {a: b}\n"))
        .hasMessageContaining(
            "a.yaml: unknown key 'renam' (the keys: coerce, constants, defaults, rename)");
    assertThatThrownBy(() -> load("b.yaml", "rename: {a: x, b: x}\n"))
        .hasMessageContaining("rename: both 'a' and 'b' become 'x'");
    assertThatThrownBy(() -> load("c.yaml", "coerce: {a: date}\n"))
        .hasMessageContaining(
            "coerce: 'a' to 'date': the types are boolean, integer, number, string");
    assertThatThrownBy(() -> load("d.json", "{\"rename\": "))
        .hasMessageContaining("d.json: not valid JSON");
    assertThatThrownBy(() -> load("e.yaml", "rename: [a, b]\n"))
        .hasMessageContaining("rename must be a map of field: new name");
    assertThatThrownBy(() -> load("f.yaml", "defaults: {unit: {by: sensor_type}}\n"))
        .hasMessageContaining("defaults: 'unit' needs by: <field> and values: {value: default}");
  }
}
