package dev.medallion.silver;

import dev.medallion.records.Device;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.io.FileSystems;
import org.apache.beam.sdk.io.fs.MatchResult;

/**
 * The device registry CSV ({@code device_id,site,zone,latitude,longitude,model,installed_at}, with
 * that header, UTF-8, a leading byte-order mark ignored). It is small, so it is read once when the
 * pipeline is built and handed to Silver as a side input; a malformed registry, or one that lists
 * no devices, stops the job before it starts, with the line and the problem.
 */
public final class DeviceRegistry {
  public static final List<String> HEADER =
      List.of("device_id", "site", "zone", "latitude", "longitude", "model", "installed_at");

  private DeviceRegistry() {}

  /** Reads a registry from any Beam file system path (local, {@code s3://}). */
  public static Map<String, Device> load(String path) throws IOException {
    MatchResult.Metadata file = FileSystems.matchSingleFileSpec(path);
    try (Reader reader =
        Channels.newReader(FileSystems.open(file.resourceId()), StandardCharsets.UTF_8)) {
      return parse(reader, path);
    }
  }

  public static Map<String, Device> parse(String csv, String name) {
    try {
      return parse(new StringReader(csv), name);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Map<String, Device> parse(Reader reader, String name) throws IOException {
    BufferedReader lines = new BufferedReader(reader);
    String header = lines.readLine();
    if (header != null && header.startsWith("\uFEFF")) {
      header = header.substring(1);
    }
    if (header == null || !List.of(header.trim().split(",", -1)).equals(HEADER)) {
      throw new IllegalArgumentException(
          name
              + ": the first line must be the header "
              + String.join(",", HEADER)
              + ", got: "
              + header);
    }
    Map<String, Device> devices = new LinkedHashMap<>();
    String line;
    int n = 1;
    while ((line = lines.readLine()) != null) {
      n++;
      if (line.isBlank()) {
        continue;
      }
      String[] f = line.split(",", -1);
      if (f.length != HEADER.size()) {
        throw new IllegalArgumentException(
            name + ":" + n + ": expected " + HEADER.size() + " fields, got " + f.length);
      }
      String id = f[0].trim();
      if (id.isEmpty()) {
        throw new IllegalArgumentException(name + ":" + n + ": device_id is empty");
      }
      double lat;
      double lon;
      try {
        lat = Double.parseDouble(f[3].trim());
        lon = Double.parseDouble(f[4].trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            name + ":" + n + ": latitude and longitude must be numbers: " + line);
      }
      Device d = Device.of(id, f[1].trim(), f[2].trim(), lat, lon, f[5].trim(), f[6].trim());
      if (devices.put(id, d) != null) {
        throw new IllegalArgumentException(name + ":" + n + ": device " + id + " is listed twice");
      }
    }
    if (devices.isEmpty()) {
      throw new IllegalArgumentException(name + ": the registry lists no devices");
    }
    return devices;
  }
}
