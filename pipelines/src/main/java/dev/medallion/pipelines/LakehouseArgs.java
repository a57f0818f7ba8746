package dev.medallion.pipelines;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;
import picocli.CommandLine.Unmatched;

/**
 * The flags every command that reads a lakehouse shares: its root, the local cache of an {@code
 * s3://} one, and any Beam flags ({@code --awsRegion}, {@code --endpoint}, …) for its file system.
 */
public class LakehouseArgs {
  @Option(
      names = "--lakehouse",
      defaultValue = "lakehouse",
      description = "Lakehouse root, local or s3://bucket/prefix (default ${DEFAULT-VALUE}).")
  String lakehouse;

  @Option(
      names = "--cache",
      defaultValue = "${sys:user.home}/.cache/medallion",
      description = "Local cache of an s3:// lakehouse's objects (default ${DEFAULT-VALUE}).")
  Path cache;

  @Unmatched List<String> beamArgs = new ArrayList<>();

  /** Sets up Beam's file systems ({@code s3://} included) from the Beam flags. */
  void configureFileSystems() {
    S3Support.configure(beamArgs);
  }
}
