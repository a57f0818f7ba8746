package dev.medallion.tools;

import dev.medallion.lakehouse.S3Support;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * A real S3-compatible server for tests: Adobe's s3mock, a runnable jar the build copies from Maven
 * Central into {@code target/s3mock/}, started as a child process on free loopback ports with one
 * bucket, and stopped when the tests are done.
 */
final class S3MockServer implements AutoCloseable {
  static final String BUCKET = "lake";

  private final Process process;
  private final int port;
  private final Path log;

  private S3MockServer(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
  }

  static S3MockServer start() throws Exception {
    Path jar = Path.of(System.getProperty("medallion.s3mock.jar", "target/s3mock/s3mock-exec.jar"));
    if (!Files.exists(jar)) {
      throw new IllegalStateException(
          jar + " is missing: run the tests through Maven, which copies it");
    }
    int port = freePort();
    int otherPort = freePort();
    Path log = Files.createTempFile("s3mock", ".log");
    Process p =
        new ProcessBuilder(
                List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx512m",
                    "-XX:TieredStopAtLevel=1", // it serves a test's few requests
                    "-jar",
                    jar.toString(),
                    "--com.adobe.testing.s3mock.store.initialBuckets=" + BUCKET,
                    "--com.adobe.testing.s3mock.httpPort=" + port,
                    "--server.port=" + otherPort,
                    "--server.address=127.0.0.1",
                    "--spring.main.banner-mode=off"))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    S3MockServer server = new S3MockServer(p, port, log);
    // The embedded catalogs of this server's s3:// lakehouses: as fresh as its buckets.
    System.setProperty(
        "medallion.catalogs", Files.createTempDirectory("s3mock-catalogs").toString());
    Instant deadline = Instant.now().plus(Duration.ofSeconds(90));
    while (!server.ready()) {
      if (!p.isAlive() || Instant.now().isAfter(deadline)) {
        String out = Files.readString(log);
        p.destroyForcibly();
        throw new IllegalStateException("s3mock did not start; its output:\n" + out);
      }
      Thread.sleep(250);
    }
    return server;
  }

  private boolean ready() {
    try {
      HttpURLConnection c =
          (HttpURLConnection) URI.create(endpoint() + "/" + BUCKET).toURL().openConnection();
      c.setConnectTimeout(500);
      c.setReadTimeout(2000);
      return c.getResponseCode() == 200;
    } catch (IOException e) {
      return false;
    }
  }

  String endpoint() {
    return "http://127.0.0.1:" + port;
  }

  /** The Beam flags that point Medallion at this server. */
  List<String> flags() {
    return List.of(
        "--awsRegion=us-east-1",
        "--endpoint=" + endpoint(),
        "--s3ClientFactoryClass=" + S3Support.PathStyle.class.getName());
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  @Override
  public void close() throws IOException {
    process.destroy();
    try {
      if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
    Files.deleteIfExists(log);
  }
}
