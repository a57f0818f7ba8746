package dev.medallion.tools;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Runs Spark SQL queries over a local lakehouse's Iceberg tables and prints each row as a list,
 * after the query's number: {@code SparkSqlQuery <lakehouse> <sql>...} prints {@code ROW 0 [...]}
 * for the first query's rows, {@code ROW 1 [...]} for the second's. One JVM for all of them: a
 * Spark session takes most of a JVM's time here. Started by {@link SparkSqlReadsTheTablesTest} in a
 * JVM whose classpath has Iceberg's Spark runtime and none of the pipelines' Iceberg jars, as a
 * Spark installation would.
 */
final class SparkSqlQuery {
  private SparkSqlQuery() {}

  public static void main(String[] args) {
    String lake = args[0];
    // The JDBC catalog keys its rows by the catalog's name, medallion: Spark's must be the same.
    SparkSession spark =
        SparkSession.builder()
            .master("local[1]")
            .appName("spark-sql-reads-medallion")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.sql.catalog.medallion", "org.apache.iceberg.spark.SparkCatalog")
            .config("spark.sql.catalog.medallion.type", "jdbc")
            .config(
                "spark.sql.catalog.medallion.uri", "jdbc:sqlite:" + lake + "/_catalog/iceberg.db")
            .config("spark.sql.catalog.medallion.warehouse", lake)
            .config("spark.sql.catalog.medallion.jdbc.schema-version", "V1")
            .getOrCreate();
    try {
      for (int q = 1; q < args.length; q++) {
        for (Row r : spark.sql(args[q]).collectAsList()) {
          List<Object> values = new ArrayList<>();
          for (int i = 0; i < r.size(); i++) {
            values.add(r.get(i));
          }
          System.out.println("ROW " + (q - 1) + " " + values);
        }
      }
    } finally {
      spark.stop();
    }
  }
}
