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
            () -> DeviceRegistry.parse("device_id,zone,latitude\ndev-1,z,1\n", "d.csv"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("missing: site");
  }

  @Test
  void optionalColumnsMayBeEmptyOrAbsent() {
    Map<String, Device> devices =
        DeviceRegistry.parse(
            "device_id,site,zone,latitude,longitude,model\n"
                + "dev-1,b,z,,,\n"
                + "dev-2,b,z,1.5,-2.5,M-1\n",
            "d.csv");
    assertThat(devices.get("dev-1"))
        .isEqualTo(Device.of("dev-1", "b", "z", null, null, null, null));
    assertThat(devices.get("dev-2"))
        .isEqualTo(Device.of("dev-2", "b", "z", 1.5, -2.5, "M-1", null));
    assertThat(DeviceRegistry.parse("device_id,site,zone\ndev-3,b,z\n", "d.csv").get("dev-3"))
        .isEqualTo(Device.of("dev-3", "b", "z", null, null, null, null));
  }

  @Test
  void aWrongCoordinateIsNamedWithItsLine() {
    assertThatThrownBy(() -> DeviceRegistry.parse(HEADER + "dev-1,b,z,north,1,m,\n", "d.csv"))
        .hasMessage("d.csv:2: latitude must be a number or empty, got 'north'");
    assertThatThrownBy(() -> DeviceRegistry.parse(HEADER + "dev-1,b,z,1,181,m,\n", "d.csv"))
        .hasMessage("d.csv:2: longitude 181 is outside -180..180");
  }

  @Test
  void aColumnMappingRenamesTheRegistrysOwnColumns() {
    Map<String, String> columns =
        DeviceRegistry.columns("bridge_id=device_id, city=site,area=zone");
    Map<String, Device> devices =
        DeviceRegistry.parse("bridge_id,city,area,lat\n101,porto,river,41.1\n", "b.csv", columns);
    assertThat(devices.get("101"))
        .isEqualTo(Device.of("101", "porto", "river", null, null, null, null));
    assertThatThrownBy(() -> DeviceRegistry.parse("id,city,area\n1,p,r\n", "b.csv", columns))
        .hasMessage(
            "b.csv: --deviceColumns names the column 'bridge_id', which the header (id,city,area)"
                + " does not have");
    assertThatThrownBy(() -> DeviceRegistry.columns("bridge_id=device"))
        .hasMessageContaining("'bridge_id=device' is not <registry column>=<one of device_id,");
    assertThatThrownBy(() -> DeviceRegistry.columns("a=site,b=site"))
        .hasMessage("--deviceColumns: two columns become site");
  }
}
