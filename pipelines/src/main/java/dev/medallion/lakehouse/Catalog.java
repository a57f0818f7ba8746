package dev.medallion.lakehouse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.medallion.core.DeadLetter;
import dev.medallion.core.Json;
import dev.medallion.iot.BronzeEvent;
import dev.medallion.iot.DeviceMinute;
import dev.medallion.iot.Heartbeat;
import dev.medallion.iot.SensorReading;
import dev.medallion.iot.SiteMinute;
import dev.medallion.users.UserEvent;
import dev.medallion.users.UserEventBronze;
import dev.medallion.users.UserFeatures;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.io.FileSystems;
import org.apache.beam.sdk.io.fs.ResourceId;
import org.apache.beam.sdk.schemas.NoSuchSchemaException;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.schemas.SchemaRegistry;

/**
 * Every table of the lakehouse, declared once: its name for SQL, its folder, the record class whose
 * Beam schema is the table's schema, and its partition columns. {@link #register} writes it to
 * {@code <lakehouse>/_catalog/tables.json}, where the query tool finds the tables by name.
 */
public final class Catalog {
  private Catalog() {}

  /** A table: SQL name, folder under the lakehouse root, record class, partition columns. */
  public record Table(String name, String path, Class<?> record, List<String> partitions) {
    public Schema schema() {
      try {
        return SchemaRegistry.createDefault().getSchema(record);
      } catch (NoSuchSchemaException e) {
        throw new IllegalStateException(record + " has no schema", e);
      }
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

  /** Writes the catalog into the lakehouse (local or {@code s3://}). */
  public static void register(String lakehouse) throws IOException {
    ObjectNode root = Json.mapper().createObjectNode();
    root.put("format_version", 1);
    ArrayNode tables = root.putArray("tables");
    for (Table t : TABLES) {
      ObjectNode node = tables.addObject();
      node.put("name", t.name());
      node.put("path", t.path());
      node.put("format", "parquet");
      node.putPOJO("partition_columns", t.partitions());
      ArrayNode columns = node.putArray("columns");
      for (Schema.Field f : t.schema().getFields()) {
        columns
            .addObject()
            .put("name", f.getName())
            .put("type", f.getType().getTypeName().name())
            .put("nullable", f.getType().getNullable());
      }
    }
    ResourceId file =
        FileSystems.matchNewResource(new Lakehouse(lakehouse).table("_catalog/tables.json"), false);
    try (OutputStream out =
        Channels.newOutputStream(FileSystems.create(file, "application/json"))) {
      out.write(
          Json.mapper()
              .writerWithDefaultPrettyPrinter()
              .writeValueAsString(root)
              .getBytes(StandardCharsets.UTF_8));
    }
  }

  /** The names and folders of the tables a lakehouse's catalog lists. */
  public static List<String[]> read(String lakehouse) throws IOException {
    String path = new Lakehouse(lakehouse).table("_catalog/tables.json");
    ResourceId file;
    try {
      file = FileSystems.matchSingleFileSpec(path).resourceId();
    } catch (java.io.FileNotFoundException e) {
      throw new IllegalArgumentException(
          "no catalog at " + path + ": run a pipeline on this lakehouse first");
    }
    JsonNode root;
    try (var in = Channels.newInputStream(FileSystems.open(file))) {
      root = Json.mapper().readTree(in);
    }
    List<String[]> out = new ArrayList<>();
    for (JsonNode t : root.get("tables")) {
      out.add(new String[] {t.get("name").asText(), t.get("path").asText()});
    }
    return out;
  }
}
