package dev.medallion.lakehouse;

/** Where each table of the lakehouse lives, under one root folder (local or {@code s3://}). */
public record Lakehouse(String root) {
  public static final String BRONZE_IOT = "bronze/iot_events";
  public static final String SILVER_READINGS = "silver/sensor_readings";
  public static final String SILVER_HEARTBEATS = "silver/device_heartbeats";
  public static final String GOLD_DEVICE_MINUTE = "gold/device_minute";
  public static final String GOLD_SITE_MINUTE = "gold/site_minute";
  public static final String GOLD_SENSOR_MINUTE = "gold/sensor_minute";
  public static final String QUARANTINE_IOT = "quarantine/iot_events";
  public static final String BRONZE_USERS = "bronze/user_events";
  public static final String SILVER_USERS = "silver/user_events";
  public static final String GOLD_USER_FEATURES = "gold/user_features";
  public static final String QUARANTINE_USERS = "quarantine/user_events";

  /** One marker per run id ever used here, so that no run can overwrite another's files. */
  public static final String RUNS = "_runs";

  /** Every table of the IoT pipeline. */
  public static final java.util.List<String> IOT_TABLES =
      java.util.List.of(
          BRONZE_IOT,
          SILVER_READINGS,
          SILVER_HEARTBEATS,
          GOLD_DEVICE_MINUTE,
          GOLD_SITE_MINUTE,
          GOLD_SENSOR_MINUTE,
          QUARANTINE_IOT);

  /** Where a bounded job lists the files it wrote to a table, for its commit. */
  public static final String WRITTEN = "_written";

  /** The manifest of the files run {@code runId} wrote to {@code table}. */
  public String written(String runId, String table) {
    return table(WRITTEN + "/" + runId + "/" + table + ".txt");
  }

  public String table(String name) {
    return root.endsWith("/") ? root + name : root + "/" + name;
  }
}
