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
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * The device registry CSV: a header naming its columns, read with Commons CSV (quoted fields may
 * hold commas), UTF-8, a leading byte-order mark ignored. {@code device_id}, {@code site} and
 * {@code zone} are required; {@code latitude}, {@code longitude}, {@code model} and {@code
 * installed_at} are optional (no such column, or an empty value: null); other columns are ignored;
 * the order does not matter. A column mapping renames a registry's own column names to these
 * ({@code bridge_id=device_id,city=site}). It is small, so it is read once when the pipeline is
 * built and travels with Silver's validating function, encoded (see {@link
 * ValidateAndEnrich#withRegistry}); a malformed registry, or one that lists no devices, stops the
 * job before it starts, with the line and the problem.
 */
public final class DeviceRegistry {
  public static final List<String> REQUIRED = List.of("device_id", "site", "zone");
  public static final List<String> OPTIONAL =
      List.of("latitude", "longitude", "model", "installed_at");

  private DeviceRegistry() {}

  /** Reads a registry from any Beam file system path (local, {@code s3://}). */
  public static Map<String, Device> load(String path) throws IOException {
    return load(path, Map.of());
  }

  /**
   * Reads a registry whose columns {@code columns} renames (its column → ours, e.g. {@code
   * bridge_id → device_id}).
   */
  public static Map<String, Device> load(String path, Map<String, String> columns)
      throws IOException {
    MatchResult.Metadata file = FileSystems.matchSingleFileSpec(path);
    try (Reader reader =
        Channels.newReader(FileSystems.open(file.resourceId()), StandardCharsets.UTF_8)) {
      return parse(reader, path, columns);
    }
  }

  public static Map<String, Device> parse(String csv, String name) {
    return parse(csv, name, Map.of());
  }

  public static Map<String, Device> parse(String csv, String name, Map<String, String> columns) {
    try {
      return parse(new StringReader(csv), name, columns);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * A column mapping as written on the command line: {@code theirs=ours} pairs separated by commas
   * ({@code bridge_id=device_id,city=site}); empty for none.
   */
  public static Map<String, String> columns(String spec) {
    Map<String, String> out = new LinkedHashMap<>();
    if (spec == null || spec.isBlank()) {
      return out;
    }
    List<String> ours = new ArrayList<>(REQUIRED);
    ours.addAll(OPTIONAL);
    for (String pair : spec.split(",")) {
      String[] kv = pair.split("=", -1);
      if (kv.length != 2 || kv[0].isBlank() || !ours.contains(kv[1].trim())) {
        throw new IllegalArgumentException(
            "--deviceColumns: '"
                + pair
                + "' is not <registry column>=<one of "
                + String.join(",", ours)
                + ">");
      }
      if (out.containsValue(kv[1].trim())) {
        throw new IllegalArgumentException("--deviceColumns: two columns become " + kv[1].trim());
      }
      out.put(kv[0].trim(), kv[1].trim());
    }
    return out;
  }

  private static Map<String, Device> parse(Reader reader, String name, Map<String, String> columns)
      throws IOException {
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
      List<String> header = csv.getHeaderNames();
      for (String theirs : columns.keySet()) {
        if (!header.contains(theirs)) {
          throw new IllegalArgumentException(
              name
                  + ": --deviceColumns names the column '"
                  + theirs
                  + "', which the header ("
                  + String.join(",", header)
                  + ") does not have");
        }
      }
      // our column name → the registry's
      Map<String, String> at = new LinkedHashMap<>();
      for (String h : header) {
        at.putIfAbsent(columns.getOrDefault(h, h), h);
      }
      List<String> missing = new ArrayList<>(REQUIRED);
      missing.removeAll(at.keySet());
      if (header.isEmpty() || !missing.isEmpty()) {
        throw new IllegalArgumentException(
            name
                + ": the first line must be a header with the columns "
                + String.join(",", REQUIRED)
                + " (in any order; optional: "
                + String.join(",", OPTIONAL)
                + "; --deviceColumns maps other names)"
                + (header.isEmpty() ? "" : "; missing: " + String.join(",", missing)));
      }
      for (CSVRecord r : csv) {
        long n = csv.getCurrentLineNumber();
        if (r.size() == 1 && r.get(0).isEmpty()) {
          continue; // a line of spaces
        }
        if (!r.isConsistent()) {
          throw new IllegalArgumentException(
              name + ":" + n + ": expected " + header.size() + " fields, got " + r.size());
        }
        String id = r.get(at.get("device_id"));
        if (id.isEmpty()) {
          throw new IllegalArgumentException(name + ":" + n + ": device_id is empty");
        }
        Device d =
            Device.of(
                id,
                r.get(at.get("site")),
                r.get(at.get("zone")),
                coordinate(r, at, "latitude", 90, name, n),
                coordinate(r, at, "longitude", 180, name, n),
                optional(r, at, "model"),
                optional(r, at, "installed_at"));
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

  private static @Nullable String optional(CSVRecord r, Map<String, String> at, String column) {
    String theirs = at.get(column);
    if (theirs == null) {
      return null;
    }
    String v = r.get(theirs);
    return v.isEmpty() ? null : v;
  }

  private static @Nullable Double coordinate(
      CSVRecord r, Map<String, String> at, String column, double bound, String name, long n) {
    String v = optional(r, at, column);
    if (v == null) {
      return null;
    }
    double d;
    try {
      d = Double.parseDouble(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          name + ":" + n + ": " + column + " must be a number or empty, got '" + v + "'");
    }
    if (!(d >= -bound && d <= bound)) {
      throw new IllegalArgumentException(
          name
              + ":"
              + n
              + ": "
              + column
              + " "
              + v
              + " is outside -"
              + (int) bound
              + ".."
              + (int) bound);
    }
    return d;
  }
}
