package dev.medallion.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Assumptions;

/**
 * The {@code report} page as a person sees it: rendered by headless Chromium into a screenshot. The
 * browser is Debian's {@code chromium} ({@code .ci/run} installs it, and then sets {@code
 * MEDALLION_REQUIRE_CHROMIUM=1}, which makes a missing browser a failure rather than a skip).
 */
final class ReportPage {
  private ReportPage() {}

  static final Path CHROMIUM = Path.of("/usr/bin/chromium");

  /** The screenshot of {@code html} at 1000 pixels wide. */
  static BufferedImage screenshot(Path html, Path dir) throws Exception {
    if (!Files.isExecutable(CHROMIUM)) {
      if ("1".equals(System.getenv("MEDALLION_REQUIRE_CHROMIUM"))) {
        throw new AssertionError(CHROMIUM + " is missing: apt-get install chromium");
      }
      Assumptions.abort(CHROMIUM + " is not installed (apt-get install chromium): not rendered");
    }
    Path png = dir.resolve("report.png");
    Process p =
        new ProcessBuilder(
                List.of(
                    CHROMIUM.toString(),
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--disable-quic",
                    "--no-first-run",
                    "--disable-background-networking",
                    "--disable-component-update",
                    "--disable-sync",
                    "--hide-scrollbars",
                    "--user-data-dir=" + dir.resolve("chromium-profile"),
                    "--window-size=1000,3000",
                    "--screenshot=" + png,
                    html.toUri().toString()))
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("chromium.log").toFile())
            .start();
    assertThat(p.waitFor(90, TimeUnit.SECONDS)).as("chromium ended within 90 s").isTrue();
    assertThat(png).as(Files.readString(dir.resolve("chromium.log"))).exists();
    return ImageIO.read(png.toFile());
  }

  /** How many pixels of the image are within a small distance of {@code rgb}. */
  static long pixelsLike(BufferedImage image, int rgb) {
    long n = 0;
    for (int y = 0; y < image.getHeight(); y++) {
      for (int x = 0; x < image.getWidth(); x++) {
        int c = image.getRGB(x, y);
        if (Math.abs(((c >> 16) & 0xFF) - ((rgb >> 16) & 0xFF)) < 16
            && Math.abs(((c >> 8) & 0xFF) - ((rgb >> 8) & 0xFF)) < 16
            && Math.abs((c & 0xFF) - (rgb & 0xFF)) < 16) {
          n++;
        }
      }
    }
    return n;
  }
}
