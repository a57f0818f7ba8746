package dev.medallion.pipelines;

import dev.medallion.core.DeadLetter;
import dev.medallion.core.TableRewrite;
import dev.medallion.lakehouse.Catalog;
import dev.medallion.lakehouse.LakeTables;
import dev.medallion.lakehouse.Lakehouse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * What {@code run --reingest} replaces before its job: the files of Bronze, of Silver's readings
 * and heartbeats and of the Bronze and Silver quarantine that hold rows of the changed input files
 * (their {@code source_name}), written again without them ({@link TableRewrite}). The job reads the
 * changed files like new ones and computes Gold again from the whole of Silver as it will be; the
 * commit replaces the old files by the rewritten ones and the run's, one snapshot per table, and
 * Gold and Gold's quarantine whole.
 */
record IotReingest(
    TableRewrite.Rewritten bronze,
    TableRewrite.Rewritten readings,
    TableRewrite.Rewritten heartbeats,
    TableRewrite.Rewritten deadLetters) {
  static final IotReingest NONE =
      new IotReingest(
          TableRewrite.Rewritten.NONE,
          TableRewrite.Rewritten.NONE,
          TableRewrite.Rewritten.NONE,
          TableRewrite.Rewritten.NONE);

  static final Catalog.Table BRONZE = Catalog.byPath(Lakehouse.BRONZE_IOT);
  static final Catalog.Table READINGS = Catalog.byPath(Lakehouse.SILVER_READINGS);
  static final Catalog.Table HEARTBEATS = Catalog.byPath(Lakehouse.SILVER_HEARTBEATS);
  static final Catalog.Table QUARANTINE = Catalog.byPath(Lakehouse.QUARANTINE_IOT);
  private static final List<String> GOLD =
      List.of(
          Lakehouse.GOLD_DEVICE_MINUTE, Lakehouse.GOLD_SITE_MINUTE, Lakehouse.GOLD_SENSOR_MINUTE);

  static IotReingest of(List<String> changed, LakeTables tables, String runId, String name)
      throws IOException {
    Set<String> files = Set.copyOf(changed);
    TableRewrite.Rewritten bronze =
        TableRewrite.withoutRows(tables.paths(BRONZE), "source_name", files, runId);
    TableRewrite.Rewritten readings =
        TableRewrite.withoutRows(tables.paths(READINGS), "source_name", files, runId);
    TableRewrite.Rewritten heartbeats =
        TableRewrite.withoutRows(tables.paths(HEARTBEATS), "source_name", files, runId);
    List<String> dead =
        tables.paths(QUARANTINE).stream()
            .filter(
                f ->
                    f.contains("/stage=" + DeadLetter.BRONZE + "/")
                        || f.contains("/stage=" + DeadLetter.SILVER + "/"))
            .toList();
    TableRewrite.Rewritten deadLetters =
        TableRewrite.withoutRows(dead, "source_name", files, runId);
    System.err.println(
        name
            + ": re-ingesting "
            + changed.size()
            + " changed --input file(s); their "
            + bronze.dropped()
            + " Bronze row(s), "
            + (readings.dropped() + heartbeats.dropped())
            + " Silver row(s) and "
            + deadLetters.dropped()
            + " dead letter(s) are replaced by what the files hold now, and Gold is recomputed: "
            + String.join(", ", changed.subList(0, Math.min(10, changed.size())))
            + (changed.size() > 10 ? ", …" : ""));
    return new IotReingest(bronze, readings, heartbeats, deadLetters);
  }

  /**
   * The run's commit: Bronze first (with the files it ingested), then Silver, the quarantine, Gold.
   */
  List<LakeTables.Step> steps(LakeTables tables, String runId) {
    List<LakeTables.Step> steps = new ArrayList<>();
    steps.add(
        LakeTables.Step.rewriteAndAdd(BRONZE.name(), bronze, tables.listedBy(BRONZE, runId, "")));
    steps.add(
        LakeTables.Step.rewriteAndAdd(
            READINGS.name(), readings, tables.listedBy(READINGS, runId, "")));
    steps.add(
        LakeTables.Step.rewriteAndAdd(
            HEARTBEATS.name(), heartbeats, tables.listedBy(HEARTBEATS, runId, "")));
    List<String> dead =
        new ArrayList<>(tables.listedBy(QUARANTINE, runId, "stage=" + DeadLetter.BRONZE));
    dead.addAll(tables.listedBy(QUARANTINE, runId, "stage=" + DeadLetter.SILVER));
    steps.add(LakeTables.Step.rewriteAndAdd(QUARANTINE.name(), deadLetters, dead));
    for (String path : GOLD) {
      Catalog.Table t = Catalog.byPath(path);
      steps.add(
          LakeTables.Step.of(t.name(), LakeTables.Op.REPLACE_ALL, tables.listedBy(t, runId, "")));
    }
    steps.add(
        LakeTables.Step.replaceWhere(
            QUARANTINE.name(),
            "stage",
            List.of(DeadLetter.GOLD),
            tables.listedBy(QUARANTINE, runId, "stage=" + DeadLetter.GOLD)));
    return steps;
  }
}
