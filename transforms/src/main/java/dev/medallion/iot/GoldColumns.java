package dev.medallion.iot;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.beam.sdk.schemas.NoSuchSchemaException;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.schemas.SchemaRegistry;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.values.Row;

/**
 * The columns of the wide Gold tables ({@code gold_device_minute}, {@code gold_site_minute}) that
 * the sensor catalog decides: for each sensor type, in the catalog's order, one column per
 * aggregate its {@code gold} list names, {@code <type>_<aggregate>} ({@code temperature_avg},
 * {@code vibration_max}, {@code tilt_count}). They come right after {@code reading_count}; the
 * other columns are those of {@link DeviceMinute} and {@link SiteMinute}. An average, minimum or
 * maximum is null in a minute without a reading of its type, a count is then 0. Every such column
 * is nullable, so a table gains the columns of a type added to the catalog and keeps, null from
 * then on, those of a type removed.
 */
public final class GoldColumns {
  private GoldColumns() {}

  private static final Schema DEVICE_BASE = schemaOf(DeviceMinute.class);
  private static final Schema SITE_BASE = schemaOf(SiteMinute.class);

  /**
   * The columns every wide Gold table has whatever the catalog: a type must not clash with them.
   */
  static final Set<String> FIXED = fixed();

  /** The catalog's columns of one sensor type, in order. */
  static List<String> names(SensorCatalog.Sensor s) {
    return s.gold().stream().map(a -> s.type() + "_" + a).toList();
  }

  /** {@code gold_device_minute}'s schema under {@code catalog}. */
  public static Schema deviceMinute(SensorCatalog catalog) {
    return spliced(DEVICE_BASE, catalog);
  }

  /** {@code gold_site_minute}'s schema under {@code catalog}. */
  public static Schema siteMinute(SensorCatalog catalog) {
    return spliced(SITE_BASE, catalog);
  }

  /** Whether {@code column} is a column of a wide Gold table that is not from the catalog. */
  public static boolean isFixed(String column) {
    return FIXED.contains(column);
  }

  private static Schema spliced(Schema base, SensorCatalog catalog) {
    Schema.Builder b = Schema.builder();
    for (Schema.Field f : base.getFields()) {
      b.addField(f);
      if (f.getName().equals("reading_count")) {
        for (SensorCatalog.Sensor s : catalog.sensors()) {
          for (String a : s.gold()) {
            b.addField(
                Schema.Field.nullable(
                    s.type() + "_" + a,
                    a.equals("count") ? Schema.FieldType.INT64 : Schema.FieldType.DOUBLE));
          }
        }
      }
    }
    return b.build();
  }

  /**
   * The row of {@code schema} (from {@link #deviceMinute} or {@link #siteMinute}) holding {@code
   * fixed}'s columns and the catalog's aggregates of {@code byType} ({@link MinuteStats#byType}).
   */
  static Row row(
      Schema schema, Row fixed, Map<String, MinuteStats.TypeStats> byType, SensorCatalog catalog) {
    List<Object> values = new ArrayList<>(schema.getFieldCount());
    List<Schema.Field> fields = fixed.getSchema().getFields();
    for (int i = 0; i < fields.size(); i++) {
      values.add(fixed.getValue(i)); // by name, Beam resolves the name anew for every row
      if (fields.get(i).getName().equals("reading_count")) {
        for (SensorCatalog.Sensor s : catalog.sensors()) {
          MinuteStats.TypeStats t = byType.get(s.type());
          for (String a : s.gold()) {
            values.add(aggregate(t, a));
          }
        }
      }
    }
    // The values are the fixed row's own and the aggregates' (Long, Double): already the schema's
    // types, so they are attached as they are. Built and checked (addValues, build), every Gold row
    // went through Beam's field matcher again (1.7 % of the replay's CPU samples on Spark).
    return Row.withSchema(schema).attachValues(values);
  }

  private static Object aggregate(MinuteStats.TypeStats t, String aggregate) {
    if (t == null) {
      return aggregate.equals("count") ? (Object) 0L : null;
    }
    return switch (aggregate) {
      case "count" -> t.count();
      case "avg" -> t.avg();
      case "min" -> t.min();
      case "max" -> t.max();
      default -> throw new IllegalArgumentException("no aggregate " + aggregate);
    };
  }

  /** A fixed-column record ({@link DeviceMinute}, {@link SiteMinute}) widened to a Gold row. */
  static final class Widen<T> implements Serializable {
    private static final long serialVersionUID = 1L;

    private final Class<T> type;
    private final Schema schema;
    private final SensorCatalog catalog;
    private transient SerializableFunction<T, Row> toRow;

    private Widen(Class<T> type, Schema schema, SensorCatalog catalog) {
      this.type = type;
      this.schema = schema;
      this.catalog = catalog;
    }

    static <T> Widen<T> of(Class<T> type, Schema schema, SensorCatalog catalog) {
      return new Widen<>(type, schema, catalog);
    }

    Row apply(T fixed, Map<String, MinuteStats.TypeStats> byType) {
      if (toRow == null) {
        try {
          toRow = SchemaRegistry.createDefault().getToRowFunction(type);
        } catch (NoSuchSchemaException e) {
          throw new IllegalStateException(type + " has no schema", e);
        }
      }
      return row(schema, toRow.apply(fixed), byType, catalog);
    }
  }

  private static Schema schemaOf(Class<?> type) {
    try {
      return SchemaRegistry.createDefault().getSchema(type);
    } catch (NoSuchSchemaException e) {
      throw new IllegalStateException(type + " has no schema", e);
    }
  }

  private static Set<String> fixed() {
    Set<String> names = new TreeSet<>(DEVICE_BASE.getFieldNames());
    names.addAll(SITE_BASE.getFieldNames());
    return names;
  }
}
