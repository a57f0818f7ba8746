package dev.medallion.lakehouse;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.beam.sdk.io.FileSystems;
import org.apache.beam.sdk.io.aws2.options.AwsOptions;
import org.apache.beam.sdk.io.aws2.options.S3ClientBuilderFactory;
import org.apache.beam.sdk.io.aws2.options.S3Options;
import org.apache.beam.sdk.io.aws2.s3.DefaultS3ClientBuilderFactory;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.AwsProfileRegionProvider;
import software.amazon.awssdk.regions.providers.AwsRegionProviderChain;
import software.amazon.awssdk.regions.providers.SystemSettingsRegionProvider;
import software.amazon.awssdk.services.s3.S3ClientBuilder;

/**
 * {@code s3://} lakehouses through Beam's amazon-web-services2 file system, with its usual flags:
 * {@code --awsRegion}, {@code --endpoint} (an S3-compatible server), {@code
 * --s3ClientFactoryClass=dev.medallion.lakehouse.S3Support$PathStyle} (path-style access, which
 * such servers need), credentials from the standard AWS chain or {@code --awsCredentialsProvider}.
 */
public final class S3Support {
  private S3Support() {}

  /** Makes the S3 flags known; the module itself registers only the general AWS ones. */
  public static void register() {
    PipelineOptionsFactory.register(S3Options.class);
  }

  /** Sets up Beam's file systems from Beam-style flags, for the commands that are no pipeline. */
  public static void configure(List<String> beamArgs) {
    configure(beamArgs, List.of());
  }

  /**
   * As {@link #configure(List)}, for a command that also reaches {@code paths} (its lakehouse,
   * taken by its own flag): an {@code s3://} one keeps the SDK's region chain.
   */
  public static void configure(List<String> beamArgs, List<String> paths) {
    register();
    S3Options options;
    try {
      options =
          PipelineOptionsFactory.fromArgs(beamArgs.toArray(String[]::new))
              .withValidation()
              .as(S3Options.class);
    } catch (IllegalArgumentException e) {
      Matcher unknown = MISSING_PROPERTY.matcher(String.valueOf(e.getMessage()));
      if (unknown.find()) {
        throw new IllegalArgumentException(
            "unknown flag --" + unknown.group(1) + " (--help lists the flags)", e);
      }
      throw e;
    }
    List<String> reached = new ArrayList<>(beamArgs);
    reached.addAll(paths);
    regionWithoutInstanceMetadata(reached.toArray(String[]::new), options);
    FileSystems.setDefaultPipelineOptions(options);
  }

  /**
   * For a job none of whose {@code args} names an {@code s3://} path or {@code --awsRegion}: the
   * AWS region of the SDK's own settings ({@code aws.region}, {@code AWS_REGION}) or profile, else
   * none, without asking the EC2 instance metadata service. Beam's default region asks the SDK's
   * whole chain each time the file systems are set up, and off EC2 the instance metadata probe
   * waited about 0.7 s each time (retries and their pauses): a command's start paid it once or
   * twice, a Kafka stage three times, and a test class that builds options ten times took 22 s
   * instead of 1 s. Should such a job reach S3 after all, the S3 client, built at its first
   * request, asks the SDK's chain then. A job with an {@code s3://} path keeps Beam's default,
   * which on EC2 finds the instance's region.
   */
  public static void regionWithoutInstanceMetadata(String[] args, PipelineOptions options) {
    if (Arrays.stream(args)
        .map(a -> a.toLowerCase(Locale.ROOT))
        .anyMatch(a -> a.startsWith("--awsregion") || a.contains("s3://"))) {
      return;
    }
    Region region;
    try {
      region =
          new AwsRegionProviderChain(
                  new SystemSettingsRegionProvider(), new AwsProfileRegionProvider())
              .getRegion();
    } catch (SdkClientException none) {
      region = null;
    }
    options.as(AwsOptions.class).setAwsRegion(region);
  }

  /** How Beam says that a flag is none of the options: "… missing a property named 'x'". */
  private static final Pattern MISSING_PROPERTY =
      Pattern.compile("missing a property named '([^']+)'");

  /** Path-style S3 requests ({@code http://host:port/bucket/key}). */
  public static class PathStyle implements S3ClientBuilderFactory {
    @Override
    public S3ClientBuilder createBuilder(S3Options options) {
      return new DefaultS3ClientBuilderFactory().createBuilder(options).forcePathStyle(true);
    }
  }
}
