package dev.medallion.iot;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.io.FileSystems;
import org.apache.beam.sdk.io.fs.MatchResult;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;

/**
 * The device registry CSV: a header naming the columns {@code
 * device_id,site,zone,latitude,longitude,model,installed_at} (in any order, others ignored), read
 * with Commons CSV (quoted fields may hold commas), UTF-8, a leading byte-order mark ignored. It is
 * small, so it is read once when the pipeline is built and handed to Silver as a side input; a
 * malformed registry, or one that lists no devices, stops the job before it starts, with the line
 * and the problem.
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
    BufferedReader in = new BufferedReader(reader);
    in.mark(1);
    if (in.read() != '\uFEFF') {
      in.reset();
    }
    CSVFormat format =
        CSVFormat.DEFAULT
            .builder()
            .setHeader()
            .setSkipHeaderRecord(true)
            .setIgnoreSurroundingSpaces(true)
            .setIgnoreEmptyLines(true)
            .build();
    Map<String, Device> devices = new LinkedHashMap<>();
    try (CSVParser csv = format.parse(in)) {
      List<String> missing = new ArrayList<>(HEADER);
      missing.removeAll(csv.getHeaderNames());
      if (csv.getHeaderNames().isEmpty() || !missing.isEmpty()) {
        throw new IllegalArgumentException(
            name
                + ": the first line must be a header with the columns "
                + String.join(",", HEADER)
                + (csv.getHeaderNames().isEmpty()
                    ? ""
                    : " (in any order); missing: " + String.join(",", missing)));
      }
      for (CSVRecord r : csv) {
        long n = csv.getCurrentLineNumber();
        if (r.size() == 1 && r.get(0).isEmpty()) {
          continue; // a line of spaces
        }
        if (!r.isConsistent()) {
          throw new IllegalArgumentException(
              name
                  + ":"
                  + n
                  + ": expected "
                  + csv.getHeaderNames().size()
                  + " fields, got "
                  + r.size());
        }
        String id = r.get("device_id");
        if (id.isEmpty()) {
          throw new IllegalArgumentException(name + ":" + n + ": device_id is empty");
        }
        double lat;
        double lon;
        try {
          lat = Double.parseDouble(r.get("latitude"));
          lon = Double.parseDouble(r.get("longitude"));
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException(
              name
                  + ":"
                  + n
                  + ": latitude and longitude must be numbers: "
                  + String.join(",", r.values()));
        }
        Device d =
            Device.of(
                id, r.get("site"), r.get("zone"), lat, lon, r.get("model"), r.get("installed_at"));
        if (devices.put(id, d) != null) {
          throw new IllegalArgumentException(
              name + ":" + n + ": device " + id + " is listed twice");
        }
      }
    } catch (java.io.UncheckedIOException e) {
      throw new IllegalArgumentException(name + ": not a readable CSV file: " + e.getMessage());
    }
    if (devices.isEmpty()) {
      throw new IllegalArgumentException(name + ": the registry lists no devices");
    }
    return devices;
  }
}
