package dev.medallion.tools;

import java.awt.Color;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.time.Millisecond;
import org.jfree.data.time.TimeSeries;
import org.jfree.data.time.TimeSeriesCollection;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code report}: one HTML page about a lakehouse, for a person: the rows of each table, the
 * rejections by stage and reason with an example each, Gold's per-minute charts per sensor type and
 * site (drawn with JFreeChart, embedded as images so the page stands alone), and {@code validate}'s
 * checks. A lakehouse of the users pipeline gets its events per day by type instead of the sensor
 * charts.
 */
@Command(
    name = "report",
    mixinStandardHelpOptions = true,
    description =
        "One HTML page about a lakehouse: rows per table, rejections by reason, Gold per-minute"
            + " charts per sensor and site, and the validate checks.")
public class HtmlReport implements Callable<Integer> {
  @picocli.CommandLine.Mixin LakehouseArgs lake = new LakehouseArgs();

  /** Beam flags for the lakehouse's file system: --awsRegion, --endpoint, … */
  @picocli.CommandLine.Unmatched List<String> beamArgs = new ArrayList<>();

  @Option(
      names = "--out",
      defaultValue = "report.html",
      description = "The HTML file to write (default ${DEFAULT-VALUE}).")
  Path out;

  @Option(
      names = "--devices",
      description = "The device registry, for validate's check of Silver's devices.")
  String devices;

  @Option(
      names = "--deviceColumns",
      description = "The registry's own column names for ours (<its column>=<ours>,…).")
  String deviceColumns;

  @Option(
      names = "--sensorCatalog",
      description = "The sensor catalog the runs used, for validate's check of Silver's readings.")
  String sensorCatalog;

  private static final int WIDTH = 880;
  private static final int HEIGHT = 300;

  @Override
  public Integer call() throws Exception {
    System.setProperty("java.awt.headless", "true"); // charts are drawn off screen
    lake.configureFileSystems(beamArgs);
    Validate v = new Validate();
    v.devices = devices;
    v.deviceColumns = deviceColumns;
    v.sensorCatalog = sensorCatalog;
    String html = render(lake.lakehouse, lake.cache, v);
    if (out.toAbsolutePath().getParent() != null) {
      Files.createDirectories(out.toAbsolutePath().getParent());
    }
    Files.writeString(out, html, StandardCharsets.UTF_8);
    System.out.println(out.toAbsolutePath());
    return 0;
  }

  /** The page of {@code lakehouse}, with the checks of {@code checks} (validate's flags set). */
  static String render(String lakehouse, Path cache, Validate checks) throws Exception {
    List<Validate.Check> done = checks.run(lakehouse, cache);
    StringBuilder page = new StringBuilder();
    page.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
        .append("<title>Medallion report: ")
        .append(esc(lakehouse))
        .append("</title><style>")
        .append("body{font-family:sans-serif;margin:2em;color:#222;max-width:960px}")
        .append("table{border-collapse:collapse;margin:0.5em 0 1.5em}")
        .append("td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}")
        .append("th{background:#f0f0f0}td.n{text-align:right}")
        .append(".pass{color:#1a7f37;font-weight:bold}.fail{color:#cf222e;font-weight:bold}")
        .append("code{font-size:90%}")
        .append("</style></head><body>\n<h1>Medallion report</h1>\n<p>Lakehouse <code>")
        .append(esc(lakehouse))
        .append("</code>, scanned ")
        .append(esc(Instant.now().toString()))
        .append(".</p>\n");
    try (LakeSql sql = LakeSql.open(lakehouse, cache)) {
      tables(page, sql);
      rejections(page, sql);
      charts(page, sql);
    }
    checks(page, done);
    page.append("</body></html>\n");
    return page.toString();
  }

  private static void tables(StringBuilder page, LakeSql sql) {
    page.append("<h2>Rows per table</h2>\n");
    if (sql.tableCounts().isEmpty()) {
      page.append("<p>No table has committed rows yet.</p>\n");
      return;
    }
    page.append("<table id=\"tables\"><tr><th>table</th><th>rows</th></tr>\n");
    sql.tableCounts()
        .forEach(
            (t, n) ->
                page.append("<tr><td>")
                    .append(esc(t))
                    .append("</td><td class=\"n\">")
                    .append(n)
                    .append("</td></tr>\n"));
    page.append("</table>\n");
  }

  private static void rejections(StringBuilder page, LakeSql sql) throws Exception {
    page.append("<h2>Rejections by reason</h2>\n");
    List<String> parts = new ArrayList<>();
    for (String q : List.of("quarantine_iot_events", "quarantine_user_events")) {
      if (sql.has(q)) {
        parts.add(
            "SELECT stage, reason, count(*) AS n, arg_min(source, source) AS source,"
                + " arg_min(detail, source) AS detail FROM "
                + q
                + " GROUP BY ALL");
      }
    }
    if (parts.isEmpty()) {
      page.append("<p>Nothing was rejected.</p>\n");
      return;
    }
    page.append(
        "<table id=\"rejections\"><tr><th>stage</th><th>reason</th><th>records</th>"
            + "<th>example: where, and why</th></tr>\n");
    for (List<Object> r :
        sql.rows(String.join(" UNION ALL ", parts) + " ORDER BY stage, n DESC, reason")) {
      page.append("<tr><td>")
          .append(esc(r.get(0)))
          .append("</td><td>")
          .append(esc(r.get(1)))
          .append("</td><td class=\"n\">")
          .append(r.get(2))
          .append("</td><td><code>")
          .append(esc(r.get(3)))
          .append("</code><br>")
          .append(esc(r.get(4)))
          .append("</td></tr>\n");
    }
    page.append("</table>\n");
  }

  private static void charts(StringBuilder page, LakeSql sql) throws Exception {
    if (sql.has("gold_sensor_minute")) {
      page.append("<h2>Gold: per-minute averages by sensor type and site</h2>\n");
      List<List<Object>> types =
          sql.rows(
              "SELECT sensor_type, any_value(unit) FROM "
                  + LakeSql.SENSOR_MINUTE_CURRENT
                  + " GROUP BY 1 ORDER BY 1");
      for (List<Object> t : types) {
        String type = String.valueOf(t.get(0));
        Map<String, TimeSeries> bySite =
            series(
                sql,
                "SELECT site, window_start, sum(value_avg * reading_count) / sum(reading_count)"
                    + " FROM "
                    + LakeSql.SENSOR_MINUTE_CURRENT
                    + " WHERE sensor_type = '"
                    + type.replace("'", "''")
                    + "' GROUP BY ALL ORDER BY 1, 2");
        chart(page, type + " (" + t.get(1) + "), average per minute, by site", t.get(1), bySite);
      }
    } else if (sql.has("gold_site_minute")) {
      page.append("<h2>Gold: per-minute temperature by site</h2>\n");
      chart(
          page,
          "temperature (C), average per minute, by site",
          "C",
          series(
              sql,
              "SELECT site, window_start, temperature_avg FROM "
                  + LakeSql.SITE_MINUTE_CURRENT
                  + " WHERE temperature_avg IS NOT NULL ORDER BY 1, 2"));
    }
    if (sql.has("silver_user_events")) {
      page.append("<h2>Silver: user events per day by type</h2>\n");
      chart(
          page,
          "user events per day, by event type",
          "events",
          series(
              sql,
              "SELECT event_type, CAST(event_date AS TIMESTAMPTZ), count(*)"
                  + " FROM silver_user_events GROUP BY ALL ORDER BY 1, 2"));
    }
  }

  /** One series per value of the first column: (second column's instant, third column's value). */
  private static Map<String, TimeSeries> series(LakeSql sql, String query) throws Exception {
    Map<String, TimeSeries> out = new LinkedHashMap<>();
    for (List<Object> r : sql.rows(query)) {
      if (r.get(2) == null) {
        continue;
      }
      String name = String.valueOf(r.get(0));
      out.computeIfAbsent(name, TimeSeries::new)
          .addOrUpdate(
              new Millisecond(
                  java.util.Date.from(instant(r.get(1))),
                  java.util.TimeZone.getTimeZone("UTC"),
                  java.util.Locale.ROOT),
              ((Number) r.get(2)).doubleValue());
    }
    return out;
  }

  private static Instant instant(Object v) {
    if (v instanceof OffsetDateTime o) {
      return o.toInstant();
    }
    if (v instanceof Timestamp t) {
      return t.toInstant();
    }
    if (v instanceof java.time.LocalDateTime l) {
      return l.toInstant(java.time.ZoneOffset.UTC);
    }
    return Instant.parse(String.valueOf(v));
  }

  private static void chart(
      StringBuilder page, String title, Object unit, Map<String, TimeSeries> series)
      throws IOException {
    if (series.isEmpty()) {
      page.append("<p>No rows to draw for ").append(esc(title)).append(".</p>\n");
      return;
    }
    TimeSeriesCollection data = new TimeSeriesCollection(java.util.TimeZone.getTimeZone("UTC"));
    series.values().forEach(data::addSeries);
    JFreeChart chart =
        ChartFactory.createTimeSeriesChart(title, "minute (UTC)", String.valueOf(unit), data);
    chart.setBackgroundPaint(Color.WHITE);
    XYPlot plot = chart.getXYPlot();
    plot.setBackgroundPaint(new Color(0xF8, 0xF8, 0xF8));
    plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
    plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
    // A few points, or one, still get readable axes: at least 10 minutes wide, 1 unit high.
    plot.getDomainAxis().setAutoRangeMinimumSize(10 * 60_000.0);
    if (plot.getRangeAxis() instanceof NumberAxis values) {
      values.setAutoRangeIncludesZero(false);
      values.setAutoRangeMinimumSize(1.0);
    }
    if (plot.getRenderer() instanceof XYLineAndShapeRenderer lines) {
      lines.setDefaultShapesVisible(true); // a minute on its own is a point, not a line
    }
    BufferedImage image = chart.createBufferedImage(WIDTH, HEIGHT);
    page.append("<figure><img class=\"chart\" alt=\"")
        .append(esc(title))
        .append("\" width=\"")
        .append(WIDTH)
        .append("\" height=\"")
        .append(HEIGHT)
        .append("\" src=\"data:image/png;base64,")
        .append(Base64.getEncoder().encodeToString(ChartUtils.encodeAsPNG(image)))
        .append("\"></figure>\n");
  }

  private static void checks(StringBuilder page, List<Validate.Check> checks) {
    long failed = checks.stream().filter(c -> !c.passed()).count();
    page.append("<h2>Checks (validate)</h2>\n<p>")
        .append(
            failed == 0
                ? "All " + checks.size() + " checks passed."
                : failed + " of " + checks.size() + " checks failed.")
        .append("</p>\n<table id=\"checks\"><tr><th></th><th>layer</th><th>check</th>")
        .append("<th>detail</th></tr>\n");
    for (Validate.Check c : checks) {
      page.append("<tr><td class=\"")
          .append(c.passed() ? "pass\">PASS" : "fail\">FAIL")
          .append("</td><td>")
          .append(esc(c.layer()))
          .append("</td><td>")
          .append(esc(c.name()))
          .append("</td><td>")
          .append(esc(c.detail()))
          .append("</td></tr>\n");
    }
    page.append("</table>\n");
  }

  static String esc(Object o) {
    return String.valueOf(o)
        .replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\"", "&quot;");
  }
}
