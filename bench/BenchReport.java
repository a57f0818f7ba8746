import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import javax.imageio.ImageIO;

/**
 * The benchmark's figures: {@code summarize} turns one benchmark run's timed jobs (rows of
 * runs.csv) into medians and ratios to DuckDB, appended to summary.csv and printed; {@code chart}
 * draws the latest figures of summary.csv as a PNG.
 *
 * <pre>
 * java BenchReport summarize bench/results/runs.csv RUN_ID bench/results/summary.csv
 * java BenchReport chart bench/results/summary.csv bench/results/chart.png
 * java BenchReport readme bench/results/summary.csv README.md
 * </pre>
 *
 * <p>{@code readme} rewrites the table between {@code <!-- bench:start -->} and {@code <!--
 * bench:end -->} in the README from the newest figures of each workload, size and job.
 */
public final class BenchReport {
  static final String SUMMARY_HEADER =
      "run_id,date,commit,workload,events,job,heap,runs_ok,runs,wall_s,cpu_s,peak_rss_mb,"
          + "events_per_s,wall_vs_duckdb,gold";

  public static void main(String[] args) throws Exception {
    if (args.length == 4 && args[0].equals("summarize")) {
      summarize(Path.of(args[1]), args[2], Path.of(args[3]));
    } else if (args.length == 3 && args[0].equals("chart")) {
      chart(Path.of(args[1]), new File(args[2]));
    } else if (args.length == 3 && args[0].equals("readme")) {
      readme(Path.of(args[1]), Path.of(args[2]));
    } else {
      System.err.println("usage: BenchReport summarize RUNS RUN_ID SUMMARY | chart SUMMARY PNG");
      System.exit(2);
    }
  }

  static List<Map<String, String>> read(Path csv) throws Exception {
    List<String> lines = Files.readAllLines(csv);
    String[] head = lines.get(0).split(",", -1);
    List<Map<String, String>> rows = new ArrayList<>();
    for (String line : lines.subList(1, lines.size())) {
      if (line.isBlank()) {
        continue;
      }
      String[] cells = line.split(",", -1);
      Map<String, String> row = new LinkedHashMap<>();
      for (int i = 0; i < head.length; i++) {
        row.put(head[i], i < cells.length ? cells[i] : "");
      }
      rows.add(row);
    }
    return rows;
  }

  static double median(List<Double> xs) {
    List<Double> s = xs.stream().sorted().toList();
    int n = s.size();
    return n == 0 ? Double.NaN : n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
  }

  static void summarize(Path runs, String runId, Path summary) throws Exception {
    Map<String, List<Map<String, String>>> groups = new LinkedHashMap<>();
    for (Map<String, String> r : read(runs)) {
      if (r.get("run_id").equals(runId)) {
        groups
            .computeIfAbsent(r.get("workload") + "," + r.get("events") + "," + r.get("job"), k -> new ArrayList<>())
            .add(r);
      }
    }
    Map<String, Double> duckdb = new TreeMap<>();
    List<String[]> out = new ArrayList<>();
    for (List<Map<String, String>> g : groups.values()) {
      List<Map<String, String>> ok =
          g.stream().filter(r -> r.get("exit").equals("0")).collect(Collectors.toList());
      Map<String, String> first = g.get(0);
      double wall = median(ok.stream().map(r -> Double.parseDouble(r.get("wall_s"))).toList());
      double cpu = median(ok.stream().map(r -> Double.parseDouble(r.get("cpu_s"))).toList());
      double rss = median(ok.stream().map(r -> Double.parseDouble(r.get("peak_rss_mb"))).toList());
      String gold =
          g.stream().map(r -> r.get("gold")).distinct().sorted().collect(Collectors.joining("/"));
      if (first.get("job").equals("duckdb")) {
        duckdb.put(first.get("workload") + "," + first.get("events"), wall);
      }
      out.add(
          new String[] {
            runId, first.get("date"), first.get("commit"), first.get("workload"),
            first.get("events"), first.get("job"), first.get("heap"),
            String.valueOf(ok.size()), String.valueOf(g.size()), fmt(wall), fmt(cpu),
            fmt(rss), fmt(Long.parseLong(first.get("events")) / wall), "", gold
          });
    }
    for (String[] row : out) {
      Double anchor = duckdb.get(row[3] + "," + row[4]);
      row[13] = anchor == null || row[9].isEmpty() ? "" : fmt(Double.parseDouble(row[9]) / anchor);
    }
    boolean fresh = !Files.exists(summary);
    StringBuilder text = new StringBuilder(fresh ? SUMMARY_HEADER + "\n" : "");
    for (String[] row : out) {
      text.append(String.join(",", row)).append('\n');
    }
    Files.writeString(summary, text, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    System.out.printf(
        Locale.ROOT, "%-8s %10s %-14s %5s %9s %9s %9s %11s %9s %s%n", "workload", "events", "job",
        "ok", "wall s", "CPU s", "RSS MB", "events/s", "vs DuckDB", "gold");
    for (String[] r : out) {
      System.out.printf(
          Locale.ROOT, "%-8s %10s %-14s %5s %9s %9s %9s %11s %9s %s%n", r[3], r[4], r[5],
          r[7] + "/" + r[8], r[9], r[10], r[11], r[12], r[13].isEmpty() ? "" : r[13] + "×", r[14]);
    }
  }

  static String fmt(double x) {
    if (Double.isNaN(x) || Double.isInfinite(x)) {
      return "";
    }
    return x >= 100 ? String.format(Locale.ROOT, "%.0f", x) : String.format(Locale.ROOT, "%.2f", x);
  }

  static final String START = "<!-- bench:start -->";
  static final String END = "<!-- bench:end -->";

  /** The README's table: the newest figures of each workload, size and job. */
  static void readme(Path summary, Path readme) throws Exception {
    Map<String, Map<String, String>> latest = new TreeMap<>();
    for (Map<String, String> r : read(summary)) {
      latest.put(r.get("workload") + "|" + pad(r.get("events")) + "|" + r.get("job"), r);
    }
    StringBuilder t = new StringBuilder(START + "\n");
    t.append("| workload | events | job | wall (median) | CPU | peak RSS | events/s | vs DuckDB |")
        .append(" heap | runs ok | Gold | date, commit |\n");
    t.append("|---|---:|---|---:|---:|---:|---:|---:|---|---|---|---|\n");
    for (Map<String, String> r : latest.values()) {
      String ratio = r.get("wall_vs_duckdb");
      if (r.get("wall_s").isEmpty()) {
        t.append(
            String.format(
                Locale.ROOT,
                "| %s | %,d | %s | failed (see runs.csv) | | | | | %s | %s/%s | %s | %s %s |%n",
                r.get("workload"),
                Long.parseLong(r.get("events")),
                r.get("job"),
                r.get("heap"),
                r.get("runs_ok"),
                r.get("runs"),
                r.get("gold"),
                r.get("date"),
                r.get("commit")));
        continue;
      }
      t.append(
          String.format(
              Locale.ROOT,
              "| %s | %,d | %s | %s s | %s s | %s MB | %s | %s | %s | %s/%s | %s | %s %s |%n",
              r.get("workload"),
              Long.parseLong(r.get("events")),
              r.get("job"),
              r.get("wall_s"),
              r.get("cpu_s"),
              r.get("peak_rss_mb"),
              r.get("events_per_s").isEmpty()
                  ? ""
                  : String.format(Locale.ROOT, "%,.0f", num(r.get("events_per_s"))),
              ratio.isEmpty() ? "" : ratio + "×",
              r.get("heap"),
              r.get("runs_ok"),
              r.get("runs"),
              r.get("gold"),
              r.get("date"),
              r.get("commit")));
    }
    t.append(END);
    String text = Files.readString(readme);
    int a = text.indexOf(START);
    int b = text.indexOf(END);
    if (a < 0 || b < a) {
      System.err.println("BenchReport: " + readme + " has no " + START + " … " + END + " block");
      System.exit(1);
    }
    Files.writeString(readme, text.substring(0, a) + t + text.substring(b + END.length()));
  }

  /** Bars: each job's wall time per workload and size, from the newest run that measured it. */
  static void chart(Path summary, File png) throws Exception {
    Map<String, Map<String, String>> latest = new TreeMap<>();
    for (Map<String, String> r : read(summary)) {
      latest.put(r.get("workload") + "|" + pad(r.get("events")) + "|" + r.get("job"), r);
    }
    Map<String, List<Map<String, String>>> groups = new LinkedHashMap<>();
    List<String> jobs = new ArrayList<>();
    for (Map.Entry<String, Map<String, String>> e : latest.entrySet()) {
      String[] k = e.getKey().split("\\|");
      groups.computeIfAbsent(k[0] + " " + label(e.getValue().get("events")), x -> new ArrayList<>())
          .add(e.getValue());
      if (!jobs.contains(k[2])) {
        jobs.add(k[2]);
      }
    }
    jobs.sort(null);
    int w = Math.max(760, 140 + groups.size() * (jobs.size() * 34 + 40));
    int h = 460;
    BufferedImage img = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = img.createGraphics();
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, w, h);
    g.setColor(Color.BLACK);
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
    g.drawString("Wall time (median), seconds, log scale, lower is better", 20, 24);
    int top = 50;
    int bottom = h - 70;
    double max = 1;
    for (Map<String, String> r : latest.values()) {
      double wall = num(r.get("wall_s"));
      if (!Double.isNaN(wall)) {
        max = Math.max(max, wall);
      }
    }
    double logMax = Math.log10(max) + 0.15;
    double logMin = -0.2;
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
    for (double tick : new double[] {1, 3, 10, 30, 100, 300, 1000, 3000}) {
      if (tick > max * 1.5) {
        break;
      }
      int y = yOf(tick, logMin, logMax, top, bottom);
      g.setColor(new Color(225, 225, 225));
      g.drawLine(60, y, w - 10, y);
      g.setColor(Color.DARK_GRAY);
      g.drawString(String.valueOf((int) tick), 25, y + 4);
    }
    Color[] palette = {
      new Color(0xF2C14E), new Color(0x4E79A7), new Color(0xE15759), new Color(0x59A14F),
      new Color(0x9C755F), new Color(0xB07AA1)
    };
    int x = 80;
    for (Map.Entry<String, List<Map<String, String>>> grp : groups.entrySet()) {
      int x0 = x;
      for (Map<String, String> r : grp.getValue()) {
        int j = jobs.indexOf(r.get("job"));
        int bx = x0 + j * 34;
        double wall = num(r.get("wall_s"));
        if (!Double.isNaN(wall)) {
          int y = yOf(wall, logMin, logMax, top, bottom);
          g.setColor(palette[j % palette.length]);
          g.fillRect(bx, y, 28, bottom - y);
          g.setColor(Color.BLACK);
          String ratio = r.get("wall_vs_duckdb");
          String tag = r.get("job").equals("duckdb") || ratio.isEmpty() ? fmt(wall) : ratio + "×";
          g.drawString(tag, bx, y - 4);
        } else {
          g.setColor(Color.RED);
          g.drawString("fail", bx, bottom - 4);
        }
      }
      g.setColor(Color.BLACK);
      g.drawString(grp.getKey(), x0, bottom + 18);
      x += jobs.size() * 34 + 40;
    }
    g.setStroke(new BasicStroke(1));
    g.drawLine(60, bottom, w - 10, bottom);
    int lx = 80;
    for (int j = 0; j < jobs.size(); j++) {
      g.setColor(palette[j % palette.length]);
      g.fillRect(lx, h - 35, 14, 14);
      g.setColor(Color.BLACK);
      g.drawString(jobs.get(j), lx + 18, h - 23);
      lx += 30 + g.getFontMetrics().stringWidth(jobs.get(j));
    }
    g.drawString("labels: ratio of wall time to DuckDB's, same run", Math.max(lx + 20, w - 300), h - 23);
    g.dispose();
    ImageIO.write(img, "png", png);
  }

  static int yOf(double v, double logMin, double logMax, int top, int bottom) {
    double f = (Math.log10(Math.max(v, 0.5)) - logMin) / (logMax - logMin);
    return (int) Math.round(bottom - f * (bottom - top));
  }

  static double num(String s) {
    return s == null || s.isEmpty() ? Double.NaN : Double.parseDouble(s);
  }

  static String pad(String events) {
    return String.format(Locale.ROOT, "%012d", Long.parseLong(events));
  }

  static String label(String events) {
    long n = Long.parseLong(events);
    return n >= 1_000_000 ? String.format(Locale.ROOT, "%.1fM", n / 1e6) : (n / 1000) + "k";
  }
}
