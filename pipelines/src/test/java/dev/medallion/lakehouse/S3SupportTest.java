package dev.medallion.lakehouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.net.httpserver.HttpServer;
import dev.medallion.pipelines.IotJob;
import dev.medallion.pipelines.IotOptions;
import dev.medallion.pipelines.RunnerDefaults;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job off S3 sets up its file systems without asking the EC2 instance metadata service for a
 * region; a job on S3 keeps the SDK's whole chain. The metadata service here is a local server that
 * counts what it is asked, and the SDK's settings point it there, with empty config and credentials
 * files so that no profile of this machine names a region first.
 */
class S3SupportTest {
  private static final List<String> SETTINGS =
      List.of(
          "aws.ec2MetadataServiceEndpoint",
          "aws.disableEc2Metadata",
          "aws.region",
          "aws.configFile",
          "aws.sharedCredentialsFile");

  private final AtomicInteger asked = new AtomicInteger();
  private final Map<String, String> before = new HashMap<>();
  private HttpServer metadata;

  @BeforeEach
  void startMetadataService(@TempDir Path dir) throws Exception {
    // The SDK's environment variable comes before the metadata service in its chain.
    assumeTrue(System.getenv("AWS_REGION") == null, "AWS_REGION names a region");
    for (String setting : SETTINGS) {
      before.put(setting, System.getProperty(setting));
    }
    metadata = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    metadata.createContext(
        "/",
        exchange -> {
          asked.incrementAndGet();
          exchange.sendResponseHeaders(404, -1);
          exchange.close();
        });
    metadata.start();
    System.setProperty(
        "aws.ec2MetadataServiceEndpoint", "http://127.0.0.1:" + metadata.getAddress().getPort());
    // The test JVMs turn the probe off (the surefire configuration); on for this test.
    System.setProperty("aws.disableEc2Metadata", "false");
    System.clearProperty("aws.region");
    System.setProperty("aws.configFile", Files.createFile(dir.resolve("config")).toString());
    System.setProperty(
        "aws.sharedCredentialsFile", Files.createFile(dir.resolve("credentials")).toString());
  }

  @AfterEach
  void stopMetadataService() {
    before.forEach(
        (setting, value) -> {
          if (value == null) {
            System.clearProperty(setting);
          } else {
            System.setProperty(setting, value);
          }
        });
    if (metadata != null) {
      metadata.stop(0);
    }
  }

  @Test
  void aJobOffS3NeverAsksTheInstanceMetadataService() {
    RunnerDefaults.options(new String[] {"--lakehouse=target/lake"}, IotOptions.class);
    RunnerDefaults.iotOptions(new String[] {"--inputTopic=iot-raw"}, IotJob.Stage.BRONZE);
    S3Support.configure(List.of("--endpoint=http://127.0.0.1:9"), List.of("target/lake"));
    assertThat(asked).hasValue(0);
  }

  @Test
  void aJobOnS3KeepsTheSdksRegionChain() {
    RunnerDefaults.options(new String[] {"--lakehouse=s3://bucket/lake"}, IotOptions.class);
    assertThat(asked.get()).as("a pipeline's --lakehouse on S3").isPositive();
    asked.set(0);
    S3Support.configure(List.of(), List.of("S3://bucket/lake"));
    assertThat(asked.get()).as("a command's lakehouse on S3, taken by its own flag").isPositive();
  }
}
