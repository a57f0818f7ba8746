package dev.medallion.tools;

import dev.medallion.lakehouse.LakeTables;
import dev.medallion.lakehouse.S3Support;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * The flags every command that reads a lakehouse shares: its root, the local cache of an {@code
 * s3://} one.
 */
public class LakehouseArgs {
  @Option(
      names = "--lakehouse",
      defaultValue = "lakehouse",
      description = "Lakehouse root, local or s3://bucket/prefix (default ${DEFAULT-VALUE}).")
  String lakehouse;

  @Option(
      names = "--catalog",
      defaultValue = "jdbc",
      description =
          "Iceberg catalog: jdbc (embedded SQLite unless --catalogUri) or glue (default"
              + " ${DEFAULT-VALUE}).")
  String catalog;

  @Option(
      names = "--catalogUri",
      defaultValue = "",
      description =
          "JDBC URL of the jdbc catalog (default: <lakehouse>/_catalog/iceberg.db, or a file"
              + " under ~/.medallion/catalogs/ for an s3:// lakehouse).")
  String catalogUri;

  @Option(
      names = "--cache",
      defaultValue = "${sys:user.home}/.cache/medallion",
      description = "Local cache of an s3:// lakehouse's objects (default ${DEFAULT-VALUE}).")
  Path cache;

  /**
   * Sets up Beam's file systems ({@code s3://} included) from the Beam flags, which each command
   * collects with {@code @Unmatched} (picocli takes that annotation only on the command itself).
   */
  void configureFileSystems(List<String> beamArgs) {
    S3Support.configure(beamArgs, List.of(lakehouse));
    LakeTables.Config.setDefaults(catalog, catalogUri);
  }
}
