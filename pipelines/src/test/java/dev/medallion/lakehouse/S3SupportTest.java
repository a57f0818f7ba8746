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
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A job off S3 sets up its file systems without asking the EC2 instance metadata service for a
 * region; a job on S3 keeps the SDK's whole chain. The metadata service here is a local server that
 * counts what it is asked (the SDK's own settings point it there).
 */
class S3SupportTest {
  private final AtomicInteger asked = new AtomicInteger();
  private HttpServer metadata;

  @BeforeEach
  void startMetadataService() throws Exception {
    // A region in the SDK's settings or profile comes before the metadata service in its chain.
    assumeTrue(
        System.getenv("AWS_REGION") == null
            && System.getProperty("aws.region") == null
            && !Files.exists(Path.of(System.getProperty("user.home"), ".aws", "config")),
        "the SDK's settings or profile name a region");
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
  }

  @AfterEach
  void stopMetadataService() {
    System.clearProperty("aws.ec2MetadataServiceEndpoint");
    System.clearProperty("aws.disableEc2Metadata");
    metadata.stop(0);
  }

  @Test
  void aJobOffS3NeverAsksTheInstanceMetadataService() {
    RunnerDefaults.options(new String[] {"--lakehouse=target/lake"}, IotOptions.class);
    RunnerDefaults.iotOptions(new String[] {"--inputTopic=iot-raw"}, IotJob.Stage.BRONZE);
    S3Support.configure(List.of("--endpoint=http://127.0.0.1:9"));
    assertThat(asked).hasValue(0);
  }

  @Test
  void aJobOnS3KeepsTheSdksRegionChain() {
    RunnerDefaults.options(new String[] {"--lakehouse=s3://bucket/lake"}, IotOptions.class);
    assertThat(asked.get()).isPositive();
  }
}
