package dev.medallion.lakehouse;

import dev.medallion.core.DeadLetter;
import dev.medallion.iot.BronzeEvent;
import dev.medallion.iot.DeviceMinute;
import dev.medallion.iot.Heartbeat;
import dev.medallion.iot.SensorMinute;
import dev.medallion.iot.SensorReading;
import dev.medallion.iot.SiteMinute;
import dev.medallion.users.UserEvent;
import dev.medallion.users.UserEventBronze;
import dev.medallion.users.UserFeatures;
import java.util.List;
import org.apache.beam.sdk.schemas.NoSuchSchemaException;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.schemas.SchemaRegistry;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Every table of the lakehouse, declared once: its name for SQL, its folder, the record class whose
 * Beam schema is the table's schema, and its partition columns. {@link LakeTables} keeps each as an
 * Iceberg table {@code <layer>.<name>} (e.g. {@code silver.user_events}) at that folder.
 */
public final class Catalog {
  private Catalog() {}

  /**
   * A table: SQL name, folder under the lakehouse root, record class, partition columns, and its
   * columns when they are not only the record's (null: the record's). The wide Gold tables add the
   * sensor catalog's aggregates to their record's columns: a run declares them ({@link
   * LakeTables#declare}), a reader takes them from the table ({@link LakeTables#current}).
   */
  public record Table(
      String name,
      String path,
      Class<?> record,
      List<String> partitions,
      @Nullable Schema columns) {
    public Table(String name, String path, Class<?> record, List<String> partitions) {
      this(name, path, record, partitions, null);
    }

    public Schema schema() {
      if (columns != null) {
        return columns;
      }
      try {
        return SchemaRegistry.createDefault().getSchema(record);
      } catch (NoSuchSchemaException e) {
        throw new IllegalStateException(record + " has no schema", e);
      }
    }

    /** This table with {@code columns} as its schema. */
    public Table withSchema(Schema columns) {
      return new Table(name, path, record, partitions, columns);
    }
  }

  public static final List<Table> TABLES =
      List.of(
          new Table(
              "bronze_iot_events",
              Lakehouse.BRONZE_IOT,
              BronzeEvent.class,
              List.of("date", "hour")),
          new Table(
              "silver_sensor_readings",
              Lakehouse.SILVER_READINGS,
              SensorReading.class,
              List.of("date")),
          new Table(
              "silver_device_heartbeats",
              Lakehouse.SILVER_HEARTBEATS,
              Heartbeat.class,
              List.of("date")),
          new Table(
              "gold_device_minute",
              Lakehouse.GOLD_DEVICE_MINUTE,
              DeviceMinute.class,
              List.of("date")),
          new Table(
              "gold_site_minute", Lakehouse.GOLD_SITE_MINUTE, SiteMinute.class, List.of("date")),
          new Table(
              "gold_sensor_minute",
              Lakehouse.GOLD_SENSOR_MINUTE,
              SensorMinute.class,
              List.of("date")),
          new Table(
              "quarantine_iot_events",
              Lakehouse.QUARANTINE_IOT,
              DeadLetter.class,
              List.of("stage", "date")),
          new Table(
              "bronze_user_events",
              Lakehouse.BRONZE_USERS,
              UserEventBronze.class,
              List.of("ingest_date")),
          new Table(
              "silver_user_events", Lakehouse.SILVER_USERS, UserEvent.class, List.of("event_date")),
          new Table(
              "gold_user_features",
              Lakehouse.GOLD_USER_FEATURES,
              UserFeatures.class,
              List.of("as_of_date")),
          new Table(
              "quarantine_user_events",
              Lakehouse.QUARANTINE_USERS,
              DeadLetter.class,
              List.of("stage", "date")));

  public static Table table(String name) {
    return TABLES.stream()
        .filter(t -> t.name().equals(name))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no table named " + name));
  }

  /** The table kept in the folder {@code path} (e.g. {@code silver/user_events}). */
  public static Table byPath(String path) {
    return TABLES.stream()
        .filter(t -> t.path().equals(path))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no table at " + path));
  }
}
