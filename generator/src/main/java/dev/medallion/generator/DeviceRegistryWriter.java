package dev.medallion.generator;

import java.util.Locale;

/** Writes the device registry CSV that matches the generator's devices. */
public final class DeviceRegistryWriter {
  private static final String[] SITES = {"berlin", "paris", "madrid", "oslo"};
  private static final double[][] COORDS = {
    {52.52, 13.40}, {48.86, 2.35}, {40.42, -3.70}, {59.91, 10.75}
  };
  private static final String[] MODELS = {"TH-100", "TH-200", "PX-1"};

  private DeviceRegistryWriter() {}

  public static String deviceId(int d) {
    return String.format(Locale.ROOT, "dev-%04d", d);
  }

  public static String csv(int devices) {
    StringBuilder sb =
        new StringBuilder("device_id,site,zone,latitude,longitude,model,installed_at\n");
    for (int d = 1; d <= devices; d++) {
      int s = (d - 1) % SITES.length;
      sb.append(
          String.format(
              Locale.ROOT,
              "%s,%s,z%d,%.4f,%.4f,%s,2025-%02d-01\n",
              deviceId(d),
              SITES[s],
              (d - 1) / SITES.length % 3 + 1,
              COORDS[s][0] + d * 0.001,
              COORDS[s][1] + d * 0.001,
              MODELS[d % MODELS.length],
              (d - 1) % 12 + 1));
    }
    return sb.toString();
  }
}
