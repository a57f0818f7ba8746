package dev.medallion.lakehouse;

import static org.assertj.core.api.Assertions.assertThat;

import dev.medallion.core.WriteTable;
import dev.medallion.users.UserEvent;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.Create;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expressions;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lakehouse's Iceberg tables: Parquet files written by {@link WriteTable} become visible only
 * by a commit, commits from several processes at once lose nothing, and a run's plan is finished by
 * {@link LakeTables#rollForward} after a crash between its commits.
 */
class LakeTablesTest {
  static final Catalog.Table SILVER = Catalog.byPath(Lakehouse.SILVER_USERS);
  static final Catalog.Table BRONZE = Catalog.byPath(Lakehouse.BRONZE_USERS);

  @TempDir Path dir;

  LakeTables.Config config() {
    return new LakeTables.Config(dir.resolve("lake").toString(), "jdbc", "");
  }

  /** Writes events into Silver's folder as run {@code runId}; the files, uncommitted. */
  List<String> write(String runId, List<UserEvent> events, LakeTables tables) {
    Pipeline p = Pipeline.create(PipelineOptionsFactory.create());
    p.apply(Create.of(events))
        .apply(
            WriteTable.<UserEvent>to(
                    new Lakehouse(tables.config().root()).table(SILVER.path()),
                    e -> "event_date=" + e.getEventDate(),
                    runId)
                .withNumShards(1));
    p.run().waitUntilFinish();
    return tables.writtenBy(SILVER, runId, "");
  }

  /**
   * Stages started together on a new lakehouse (the four-terminal run) each open its catalog, and
   * each finds the catalog's own tables missing or without the column for views: one creates or
   * adds them, and the others' attempts used to fail ("duplicate column name: iceberg_type", seen
   * when Bronze and Silver started at once), killing that stage at its start.
   */
  @Test
  void catalogsOpenedAtOnceOnANewLakehouseAllOpen() throws Exception {
    int openers = 6;
    ExecutorService pool = Executors.newFixedThreadPool(openers);
    try {
      for (int round = 0; round < 10; round++) {
        LakeTables.Config fresh =
            new LakeTables.Config(dir.resolve("new-" + round).toString(), "jdbc", "");
        java.util.concurrent.CyclicBarrier together =
            new java.util.concurrent.CyclicBarrier(openers);
        List<Future<String>> opened = new ArrayList<>();
        for (int i = 0; i < openers; i++) {
          opened.add(
              pool.submit(
                  () -> {
                    together.await();
                    try (LakeTables tables = LakeTables.open(fresh)) {
                      return tables.config().root();
                    }
                  }));
        }
        for (Future<String> f : opened) {
          assertThat(f.get()).isEqualTo(fresh.root());
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aCatalogCallRefusedWithSqliteBusyIsMadeAgainAndOtherFailuresAreNot() {
    java.util.concurrent.atomic.AtomicInteger calls =
        new java.util.concurrent.atomic.AtomicInteger();
    String result =
        LakeTables.whenNotBusy(
            () -> {
              if (calls.incrementAndGet() < 3) {
                throw new org.apache.iceberg.jdbc.UncheckedSQLException(
                    new java.sql.SQLException("[SQLITE_BUSY] The database file is locked"),
                    "Unknown failure");
              }
              return "done";
            });
    assertThat(result).isEqualTo("done");
    assertThat(calls).hasValue(3);

    calls.set(0);
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () ->
                LakeTables.whenNotBusy(
                    () -> {
                      calls.incrementAndGet();
                      throw new org.apache.iceberg.jdbc.UncheckedSQLException(
                          new java.sql.SQLException("[SQLITE_CONSTRAINT] constraint failed"),
                          "Unknown failure");
                    }))
        .hasMessageContaining("Unknown failure");
    assertThat(calls).hasValue(1);
  }

  @Test
  void writtenFilesAreInvisibleUntilCommittedAndPrunedByPartitionAndTime() throws Exception {
    try (LakeTables tables = LakeTables.open(config())) {
      List<String> files =
          write(
              "r1",
              List.of(
                  event("e1", "2026-11-28T10:00:00.123Z"),
                  event("e2", "2026-11-29T23:59:59.999Z"),
                  event("e3", "2026-11-29T08:00:00Z")),
              tables);
      assertThat(files).hasSize(2);
      assertThat(tables.files(SILVER)).isEmpty();

      tables.append("r1", SILVER.name(), files, Map.of());
      assertThat(tables.paths(SILVER)).containsExactlyElementsOf(files);
      assertThat(tables.files(SILVER).stream().mapToLong(DataFile::recordCount).sum()).isEqualTo(3);
      assertThat(tables.files(SILVER, Expressions.equal("event_date", "2026-11-28")))
          .singleElement()
          .satisfies(f -> assertThat(f.location()).contains("/event_date=2026-11-28/"));
      // Millisecond timestamps in the files, microsecond bounds in Iceberg: pruning stays right.
      assertThat(
              tables.files(
                  SILVER,
                  Expressions.greaterThanOrEqual("event_timestamp", "2026-11-29T23:59:59.999Z")))
          .singleElement()
          .satisfies(f -> assertThat(f.location()).contains("/event_date=2026-11-29/"));
      assertThat(
              tables.files(
                  SILVER,
                  Expressions.greaterThanOrEqual("event_timestamp", "2026-11-30T00:00:00Z")))
          .isEmpty();
    }
  }

  @Test
  void writersCommittingAtOnceFromTwoCatalogConnectionsLoseNothing() throws Exception {
    List<String> files = new ArrayList<>();
    try (LakeTables setup = LakeTables.open(config())) {
      for (int i = 0; i < 12; i++) {
        files.addAll(
            write("w" + i, List.of(event("e" + i, "2026-11-" + (10 + i) + "T10:00:00Z")), setup));
      }
      setup.table(SILVER);
    }
    assertThat(files).hasSize(12);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    List<Future<?>> done = new ArrayList<>();
    for (int w = 0; w < 2; w++) {
      List<String> mine = files.subList(w * 6, w * 6 + 6);
      done.add(
          pool.submit(
              () -> {
                // A catalog of its own, as another process would have.
                try (LakeTables tables = LakeTables.open(config())) {
                  for (String f : mine) {
                    tables.append("w", SILVER.name(), List.of(f), Map.of());
                  }
                }
                return null;
              }));
    }
    for (Future<?> f : done) {
      f.get();
    }
    pool.shutdown();
    try (LakeTables tables = LakeTables.open(config())) {
      assertThat(tables.paths(SILVER)).containsExactlyInAnyOrderElementsOf(files);
      Table t = tables.table(SILVER);
      assertThat(t.snapshots()).hasSize(12);
    }
  }

  @Test
  void aPlanWhoseFirstCommitIsInIsFinishedByRollForwardAndOnlyOnce() throws Exception {
    try (LakeTables tables = LakeTables.open(config())) {
      List<String> silver = write("r1", List.of(event("e1", "2026-11-28T10:00:00Z")), tables);
      List<LakeTables.Step> plan =
          List.of(
              LakeTables.Step.of(BRONZE.name(), LakeTables.Op.APPEND, List.of()),
              LakeTables.Step.of(SILVER.name(), LakeTables.Op.REPLACE_ALL, silver));
      // As a run killed right after its first commit leaves it: the plan is in, Silver is not.
      tables.append(
          "r1",
          BRONZE.name(),
          List.of(),
          Map.of(LakeTables.PLAN, LakeTables.planJson(plan), LakeTables.STEP, "0"));
      assertThat(tables.files(SILVER)).isEmpty();

      assertThat(tables.rollForward()).isEqualTo(1);
      assertThat(tables.paths(SILVER)).containsExactlyElementsOf(silver);
      assertThat(tables.rollForward()).as("a finished step is never applied twice").isZero();
    }
  }

  @Test
  void aReplacementThatALaterRunSupersededIsNotRolledForward() throws Exception {
    try (LakeTables tables = LakeTables.open(config())) {
      List<String> old = write("r1", List.of(event("e1", "2026-11-28T10:00:00Z")), tables);
      List<String> later = write("r2", List.of(event("e2", "2026-11-28T11:00:00Z")), tables);
      tables.append(
          "r1",
          BRONZE.name(),
          List.of(),
          Map.of(
              LakeTables.PLAN,
              LakeTables.planJson(
                  List.of(
                      LakeTables.Step.of(BRONZE.name(), LakeTables.Op.APPEND, List.of()),
                      LakeTables.Step.of(SILVER.name(), LakeTables.Op.REPLACE_ALL, old))),
              LakeTables.STEP,
              "0"));
      Thread.sleep(5); // the later run's commit is strictly later
      tables.commit(
          "r2",
          List.of(LakeTables.Step.of(SILVER.name(), LakeTables.Op.REPLACE_ALL, later)),
          Map.of());
      assertThat(tables.paths(SILVER)).containsExactlyElementsOf(later);
      assertThat(tables.rollForward()).isZero();
      assertThat(tables.paths(SILVER)).containsExactlyElementsOf(later);
    }
  }

  static UserEvent event(String id, String ts) {
    Instant t = Instant.parse(ts);
    return UserEvent.builder()
        .setEventId(id)
        .setUserId("u-" + id)
        .setEventType("click")
        .setEventTimestamp(t)
        .setEventDate(ts.substring(0, 10))
        .setSessionId(null)
        .setProductId(null)
        .setPrice(null)
        .setDevice("mobile")
        .setCountry("DE")
        .setInvalidFields(null)
        .setRawLine("{\"event_id\":\"" + id + "\"}")
        .setSource("test")
        .setSourceFile("users-0001.ndjson")
        .setLineNumber(7)
        .setIngestTs(t)
        .build();
  }

  @Test
  void anOlderTableGetsTheNewNullableColumnsAndLosesNoRequiredOne() throws Exception {
    Catalog.Table readings = Catalog.byPath(Lakehouse.SILVER_READINGS);
    try (LakeTables tables = LakeTables.open(config())) {
      // a table written before the registry's latitude became optional and extra was added
      tables
          .table(readings)
          .updateSchema()
          .allowIncompatibleChanges()
          .requireColumn("latitude")
          .deleteColumn("extra")
          .commit();
    }
    try (LakeTables tables = LakeTables.open(config())) {
      Table t = tables.table(readings);
      assertThat(t.schema().findField("latitude").isOptional()).isTrue();
      assertThat(t.schema().findField("device_id").isRequired()).isTrue();
      assertThat(t.schema().findField("extra").isOptional()).isTrue();
      assertThat(t.properties().get(org.apache.iceberg.TableProperties.DEFAULT_NAME_MAPPING))
          .contains("\"extra\"");
    }
  }

  @Test
  void aWideGoldTableKeepsTheColumnsOfEveryCatalogItWasWrittenWith() throws Exception {
    Catalog.Table device = Catalog.byPath(Lakehouse.GOLD_DEVICE_MINUTE);
    java.nio.file.Path file = dir.resolve("bridges.yaml");
    java.nio.file.Files.writeString(
        file,
        "sensors:\n  temperature: {unit: C, gold: [avg]}\n  tilt: {unit: deg, gold: [max]}\n");
    dev.medallion.iot.SensorCatalog bridges = dev.medallion.iot.SensorCatalog.load(file.toString());
    try (LakeTables tables = LakeTables.open(config())) {
      tables.declare(
          device.withSchema(
              dev.medallion.iot.GoldColumns.deviceMinute(dev.medallion.iot.SensorCatalog.DEFAULT)));
      assertThat(tables.current(device).schema().getFieldNames())
          .containsSubsequence(
              "reading_count", "temperature_avg", "pressure_avg", "heartbeat_count")
          .doesNotContain("tilt_max");
      // a later run with another catalog: its new column added at the end, the old ones kept
      tables.declare(device.withSchema(dev.medallion.iot.GoldColumns.deviceMinute(bridges)));
    }
    try (LakeTables tables = LakeTables.open(config())) {
      // a commit loads the table with its record's columns only: nothing is taken away
      tables.table(device);
      List<String> names = tables.current(device).schema().getFieldNames();
      assertThat(names)
          .containsSubsequence(
              "temperature_avg", "humidity_avg", "pressure_avg", "written_at", "tilt_max")
          .doesNotHaveDuplicates();
      assertThat(tables.current(device).schema().getField("tilt_max").getType().getNullable())
          .isTrue();
      // the record's own columns keep their declared types (a required one stays required)
      assertThat(tables.current(device).schema().getField("device_id").getType().getNullable())
          .isFalse();
      assertThat(tables.table(device).schema().findField("tilt_max").isOptional()).isTrue();
    }
  }
}
