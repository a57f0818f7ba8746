package dev.medallion.iot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DeviceRegistryTest {
  static final String HEADER = "device_id,site,zone,latitude,longitude,model,installed_at\n";
  static final String ROW = "dev-0001,berlin,z1,52.5,13.4,TH-100,2025-01-01\n";

  @TempDir Path dir;

  @Test
  void aRegistryIsReadIntoDevicesById() {
    Map<String, Device> devices = DeviceRegistry.parse(HEADER + ROW, "devices.csv");
    assertThat(devices)
        .containsExactly(
            Map.entry(
                "dev-0001",
                Device.of("dev-0001", "berlin", "z1", 52.5, 13.4, "TH-100", "2025-01-01")));
  }

  @Test
  void aRegistryWithoutDevicesStopsTheJob() {
    for (String csv : new String[] {HEADER, HEADER + "\n  \n", HEADER.trim()}) {
      assertThatThrownBy(() -> DeviceRegistry.parse(csv, "devices.csv"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("devices.csv: the registry lists no devices");
    }
  }

  @Test
  void aLeadingByteOrderMarkIsNotPartOfTheHeader() throws Exception {
    assertThat(DeviceRegistry.parse("\ufeff" + HEADER + ROW, "devices.csv"))
        .containsOnlyKeys("dev-0001");

    Path file = dir.resolve("devices.csv");
    Files.writeString(file, "\ufeff" + HEADER + ROW, StandardCharsets.UTF_8);
    assertThat(DeviceRegistry.load(file.toString())).containsOnlyKeys("dev-0001");
  }

  @Test
  void columnsAreFoundByNameAndQuotedFieldsMayHoldCommas() {
    Map<String, Device> devices =
        DeviceRegistry.parse(
            "site,device_id,zone,longitude,latitude,installed_at,model,owner\n"
                + "\"Berlin, Mitte\",dev-1,z1,13.4,52.5,2025-01-01,TH-2,ops\n",
            "devices.csv");
    Device d = devices.get("dev-1");
    org.assertj.core.api.Assertions.assertThat(d.getSite()).isEqualTo("Berlin, Mitte");
    org.assertj.core.api.Assertions.assertThat(d.getLatitude()).isEqualTo(52.5);
    org.assertj.core.api.Assertions.assertThat(d.getLongitude()).isEqualTo(13.4);
    org.assertj.core.api.Assertions.assertThat(d.getModel()).isEqualTo("TH-2");
  }

  @Test
  void aMissingColumnIsNamed() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () ->
                DeviceRegistry.parse(
                    "device_id,site,zone,latitude,longitude,model\ndev-1,b,z,1,2,m\n", "d.csv"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("missing: installed_at");
  }
}
