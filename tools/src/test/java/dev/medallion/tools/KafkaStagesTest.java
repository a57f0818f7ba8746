package dev.medallion.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The four-terminal pipeline over a real broker, one stage after the other: the generator writes
 * iot-raw, Bronze reads it and forwards to iot-bronze, Silver reads that and forwards to
 * iot-silver, Gold reads that. Silver and Gold read without a record limit, on the arrival-clock
 * watermark, and end when their topic has been idle ({@code --idleStopSeconds}). Bronze, Silver and
 * Gold are each killed ({@code kill -9}) mid-run and started again; Gold then equals the Gold of
 * the all-in-one run of the same generated data (with late and too-late records), and bad records
 * on any topic are dead letters naming their topic, partition and offset.
 */
class KafkaStagesTest {
  @TempDir Path tmp;

  private final long started = System.nanoTime();

  /** Child JVMs that must not outlive the test, should an assertion fail while they run. */
  private final List<Process> children = new ArrayList<>();

  @org.junit.jupiter.api.AfterEach
  void stopChildren() {
    children.forEach(Process::destroyForcibly);
  }

  /** The test's own output: the generator, run in this JVM, takes {@code System.out} meanwhile. */
  private final java.io.PrintStream out = System.out;

  /** Where the time goes, in the test's output: each phase's end, in seconds from the start. */
  private void phase(String done) {
    out.printf(
        "KafkaStagesTest: %s at %d s%n",
        done, TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started));
  }

  /** The same data from {@code generate} and from {@code run} (whose knobs default otherwise). */
  private static final String[] GENERATED = {
    "--generatorDevices=4",
    "--durationMinutes=3",
    "--seed=5",
    "--malformedRate=0.02",
    "--duplicateRate=0.05",
    "--lateRate=0.05",
    "--lateDelaySeconds=150",
    "--outOfRangeRate=0.02",
    "--unknownDeviceRate=0.02",
    "--missingHeartbeatRate=0.05"
  };

  @Test
  void theFourStagesOverKafkaWithEachStageKilledMidRunGiveTheGoldOfTheAllInOneRun()
      throws Exception {
    try (KafkaBroker broker = KafkaBroker.start(tmp.resolve("kafka"), 0, 0)) {
      String servers = "--bootstrapServers=" + broker.bootstrapServers();
      broker.createTopics(Map.of("iot-raw", 3, "iot-bronze", 3, "iot-silver", 3));
      Path lake = tmp.resolve("lake");
      String to = "--lakehouse=" + lake;

      // What users' producers get wrong, each expected as a dead letter with its reason.
      Map<String, String> expected = new TreeMap<>();
      String reading =
          "{\"device_id\":\"dev-0001\",\"sensor_type\":\"temperature\",\"unit\":\"C\","
              + "\"ts\":\"2026-11-29T10:01:10Z\",";
      try (KafkaProducer<String, String> producer = producer(broker)) {
        expected.put(send(producer, "iot-raw", "dev-0001", "not json at all"), "bronze/not_json");
        expected.put(send(producer, "iot-raw", "dev-0001", ""), "bronze/empty_line");
        expected.put(send(producer, "iot-raw", "dev-0001", null), "bronze/empty_line");
        expected.put(
            send(
                producer,
                "iot-raw",
                "dev-0001",
                reading + "\"value\":1,\"pad\":\"" + "x".repeat(5 << 20) + "\"}"),
            "bronze/too_large");
        expected.put(
            send(producer, "iot-raw", "dev-0002", reading + "\"value\":21.5}"),
            "bronze/key_mismatch");
        expected.put(
            send(producer, "iot-raw", "dev-0001", reading + "\"value\":\"warm\"}"),
            "silver/wrong_type:value");
        expected.put(send(producer, "iot-bronze", "x", "{\"hello\":1}"), "silver/not_a_bronze_row");
        expected.put(send(producer, "iot-silver", "x", "garbage"), "gold/not_a_silver_row");
      }
      phase("bad records sent");
      long badRaw = expected.keySet().stream().filter(s -> s.startsWith("kafka:iot-raw/")).count();

      // Bronze in a JVM of its own, killed (kill -9) while the generator is still sending.
      Path log = tmp.resolve("bronze.log");
      Process bronze =
          ChildJvm.start(
              log,
              List.of(),
              "bronze",
              "--inputTopic=iot-raw",
              "--outputTopic=iot-bronze",
              "--flushSeconds=1",
              servers,
              to);
      // Silver beside it, in a JVM of its own on the same lakehouse (each stage locks its layer).
      Path silverLog = tmp.resolve("silver.log");
      Process silver = startSilver(silverLog, servers, to);
      children.addAll(List.of(bronze, silver));
      // Generous: beside other tests (two forks, a Spark run among them) a JVM starts slowly.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
      while (!java.nio.file.Files.readString(log).contains("(Kafka topic iot-raw")
          && System.nanoTime() < deadline) {
        Thread.sleep(200);
      }
      phase("Bronze started");
      java.util.concurrent.CompletableFuture<FaultsTest.Outcome> sending =
          java.util.concurrent.CompletableFuture.supplyAsync(
              () -> medallion("generate", "--sink=kafka", servers, "--rate=10"));
      while (bronzeRows(lake) < 20 && System.nanoTime() < deadline) {
        Thread.sleep(500);
      }
      phase("Bronze committed 20 rows");
      bronze.destroyForcibly().waitFor(); // mid-flush as it may be
      long atKill = bronzeRows(lake);
      // Silver too, once it committed some of what the killed Bronze forwarded.
      long silverDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      while (silverHolds(lake) < 10 && System.nanoTime() < silverDeadline) {
        Thread.sleep(500);
      }
      phase("Silver committed 10 rows");
      silver.destroyForcibly().waitFor();
      long silverAtKill = silverHolds(lake);
      assertThat(silverAtKill)
          .as(
              "Silver committed rows before it was killed (Bronze had %s rows when killed): %s%nBronze's log: %s",
              atKill,
              java.nio.file.Files.readString(silverLog),
              java.nio.file.Files.readString(log))
          .isPositive();
      FaultsTest.Outcome sent = sending.get(120, TimeUnit.SECONDS);
      assertThat(sent.code()).as(sent.err()).isZero();
      long generated =
          Long.parseLong(sent.err().replaceAll("(?s).*generated (\\d+) lines.*", "$1"));
      assertThat(atKill).as("Bronze was killed mid-run").isPositive().isLessThan(generated);

      phase("the generator ended");
      // Started again, Bronze resumes from what its tables hold and says what it reads twice.
      FaultsTest.Outcome again =
          medallion("bronze", "--inputTopic=iot-raw", "--outputTopic=iot-bronze", servers, to);
      assertThat(again.code()).as(again.err()).isZero();
      assertThat(again.err()).contains("resuming iot-raw from the tables at");
      long said =
          again.err().contains(" will be there twice")
              ? Long.parseLong(again.err().replaceAll("(?s).*; (\\d+) record\\(s\\) after.*", "$1"))
              : 0;
      phase("Bronze again ended");
      // Silver started again resumes from what its tables hold; once it holds every record of
      // iot-bronze (a row or a dead letter each, by source), it is stopped like Ctrl-C
      // (SIGTERM): it ends its read, commits, prints its report and exits 0.
      silver = startSilver(silverLog, servers, to);
      children.add(silver);
      // Gold beside it, killed (kill -9) once it has committed rows: the windows it held open
      // are lost with it, and the Gold started again below must fill them in.
      Path goldLog = tmp.resolve("gold.log");
      Process killedGold =
          ChildJvm.start(
              goldLog,
              List.of(),
              "gold",
              "--inputTopic=iot-silver",
              "--flushSeconds=1",
              servers,
              to);
      children.add(killedGold);
      long goldDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
      while (goldRows(lake) < 10 && System.nanoTime() < goldDeadline) {
        Thread.sleep(500);
      }
      phase("Gold committed 10 rows");
      killedGold.destroyForcibly().waitFor();
      long goldAtKill = goldRows(lake);
      assertThat(goldAtKill).as(java.nio.file.Files.readString(goldLog)).isPositive();
      // every Bronze row, and the record on iot-bronze that is none
      long silverWillHold = count(lake, "SELECT count(DISTINCT source) FROM bronze_iot_events") + 1;
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
      while (silverDistinct(lake) < silverWillHold && System.nanoTime() < until) {
        Thread.sleep(1000);
      }
      phase("Silver holds every Bronze row");
      silver.destroy();
      assertThat(silver.waitFor(90, TimeUnit.SECONDS)).isTrue();
      String silverSaid = java.nio.file.Files.readString(silverLog);
      assertThat(silver.exitValue()).as(silverSaid).isZero();
      assertThat(silverSaid)
          .contains("medallion silver: resuming iot-bronze from the tables at")
          .contains("medallion silver: stopping: the last records read are written and committed")
          .contains("silver : ");
      String resumedAt =
          silverSaid.replaceAll("(?s).*resuming iot-bronze from the tables at ([0-9# ]+).*", "$1");
      assertThat(
              java.util.Arrays.stream(resumedAt.trim().split(" "))
                  .mapToLong(p -> Long.parseLong(p.substring(p.indexOf('#') + 1)))
                  .sum())
          .as("Silver resumed after what it held, not from the start: %s", resumedAt)
          .isPositive();
      phase("Silver stopped");
      // The same Gold stage on the SparkRunner (local[2]) as a Spark streaming job, in a JVM of
      // its own, reading the same records of iot-silver (all there, now that Silver stopped), so
      // it starts while the DirectRunner's Gold and the all-in-one run below go on; once its Gold
      // is whole it is stopped like Ctrl-C (SIGTERM): its last windows are written, it reports
      // and exits 0.
      Path onSpark = tmp.resolve("spark");
      Path sparkLog = tmp.resolve("spark.log");
      Process spark =
          ChildJvm.start(
              sparkLog,
              java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                  .filter(flag -> flag.startsWith("--add-"))
                  .toList(),
              "gold",
              "--runner=SparkRunner",
              "--sparkMaster=local[2]",
              "--inputTopic=iot-silver",
              "--consumerGroup=gold-on-spark",
              "--flushSeconds=1",
              servers,
              "--lakehouse=" + onSpark);
      children.add(spark);
      FaultsTest.Outcome gold = medallion("gold", "--inputTopic=iot-silver", servers, to);
      assertThat(gold.code()).as(gold.err()).isZero();
      assertThat(gold.err())
          .contains("(Kafka topic iot-silver on ", "group medallion-gold")
          .contains("the Gold run before this one did not end cleanly")
          .contains("are filled with the committed Silver rows too");

      phase("Gold again ended");
      Path allInOne = tmp.resolve("all-in-one");
      List<String> run = new ArrayList<>(List.of("run", "--lakehouse=" + allInOne));
      run.addAll(List.of(GENERATED));
      FaultsTest.Outcome reference = FaultsTest.medallion(run.toArray(String[]::new));
      assertThat(reference.code()).as(reference.err()).isZero();
      phase("the all-in-one run ended");
      List<String> goldOverKafka = Runs.currentGold(lake);
      assertThat(goldOverKafka).hasSizeGreaterThan(20);
      assertThat(goldOverKafka).containsExactlyElementsOf(Runs.currentGold(allInOne));
      long sparkDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(240);
      while (!sparkGold(onSpark).equals(goldOverKafka) && System.nanoTime() < sparkDeadline) {
        Thread.sleep(2000);
      }
      phase("Gold on Spark whole");
      spark.destroy();
      // Four micro-batches of 5 s after the read ends, then Spark's graceful stop: about 35 s
      // alone, about a minute beside the other tests.
      boolean stopped = spark.waitFor(240, TimeUnit.SECONDS);
      phase("Gold on Spark stopped");
      String sparkSaid = java.nio.file.Files.readString(sparkLog);
      assertThat(stopped).as("Gold on Spark stopped after SIGTERM: %s", sparkSaid).isTrue();
      assertThat(spark.exitValue()).as(sparkSaid).isZero();
      assertThat(sparkSaid).contains("state: DONE", "gold   : ");
      assertThat(Runs.currentGold(onSpark)).containsExactlyElementsOf(goldOverKafka);
      assertThat(
              // By source, as Bronze's and Silver's below: a record Silver forwarded twice (it
              // was killed after forwarding, before its commit) is judged too late twice.
              count(
                  lake,
                  "SELECT count(DISTINCT source) FROM quarantine_iot_events WHERE stage = 'gold'"
                      + " AND reason <> 'not_a_silver_row'"))
          .as("too-late records")
          .isEqualTo(
              count(allInOne, "SELECT count(*) FROM quarantine_iot_events WHERE stage = 'gold'"))
          .isPositive();

      Map<String, String> dead = new HashMap<>();
      for (List<Object> row :
          Runs.rows(lake, "SELECT source, stage || '/' || reason FROM quarantine_iot_events")) {
        dead.put(String.valueOf(row.get(0)), String.valueOf(row.get(1)));
      }
      assertThat(dead).containsAllEntriesOf(expected);
      // Nothing missing: every record of iot-raw is in Bronze or its quarantine; those read
      // twice after the kill are there twice under the same source, as many as Bronze said.
      long bronzeSources = count(lake, "SELECT count(DISTINCT source) FROM bronze_iot_events");
      long bronzeDead =
          count(
              lake,
              "SELECT count(DISTINCT source) FROM quarantine_iot_events WHERE stage = 'bronze'");
      assertThat(bronzeSources + bronzeDead).isEqualTo(generated + badRaw);
      long bronzeRows = count(lake, "SELECT count(*) FROM bronze_iot_events");
      long twice = bronzeRows - bronzeSources + dead(lake, "bronze") - bronzeDead;
      assertThat(twice).as("records read again, said at the start").isEqualTo(said);
      // By source, Silver holds exactly Bronze's rows, nothing missing after its kill -9; a
      // record it holds twice (forwarded twice by the killed Bronze, or read again after the
      // resume point) is there under the same source, and Gold counted it once (above).
      String silverSources =
          "SELECT source FROM silver_sensor_readings UNION ALL SELECT source FROM"
              + " silver_device_heartbeats UNION ALL SELECT source FROM quarantine_iot_events"
              + " WHERE stage = 'silver' AND reason <> 'not_a_bronze_row'";
      assertThat(count(lake, "SELECT count(DISTINCT source) FROM (" + silverSources + ")"))
          .isEqualTo(bronzeSources);
      long silverRows = count(lake, "SELECT count(*) FROM (" + silverSources + ")");
      System.out.printf(
          "KafkaStagesTest: Bronze killed with %d of %d records committed, %d read twice;"
              + " Silver killed with %d, holds %d rows of %d sources; Gold killed with %d"
              + " device-minute rows%n",
          atKill, generated + badRaw, twice, silverAtKill, silverRows, bronzeSources, goldAtKill);
    }
  }

  /** The sources Silver holds, its dead letters' included (0 before its tables exist). */
  private static long silverDistinct(Path lake) {
    try {
      return Runs.count(
          lake,
          "SELECT count(DISTINCT source) FROM (SELECT source FROM silver_sensor_readings"
              + " UNION ALL SELECT source FROM silver_device_heartbeats UNION ALL SELECT source"
              + " FROM quarantine_iot_events WHERE stage = 'silver')");
    } catch (Exception notYet) {
      return 0;
    }
  }

  /** Silver's rows, as committed now (0 before its tables exist). */
  private static long silverHolds(Path lake) {
    return Runs.committedRows(lake, "silver_sensor_readings", "silver_device_heartbeats");
  }

  /** The current Gold of {@code lake} (empty before its tables exist). */
  private static List<String> sparkGold(Path lake) {
    try {
      return Runs.currentGold(lake);
    } catch (Exception notYet) {
      return List.of();
    }
  }

  private static long goldRows(Path lake) {
    return Runs.committedRows(lake, "gold_device_minute");
  }

  private static long bronzeRows(Path lake) {
    return Runs.committedRows(lake, "bronze_iot_events");
  }

  /** The Silver stage in a JVM of its own, flushing every second. */
  private static Process startSilver(Path log, String servers, String lakehouse) throws Exception {
    return ChildJvm.start(
        log,
        List.of(),
        "silver",
        "--inputTopic=iot-bronze",
        "--outputTopic=iot-silver",
        "--flushSeconds=1",
        servers,
        lakehouse);
  }

  private static FaultsTest.Outcome medallion(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    if (args[0].equals("generate")) {
      all.addAll(List.of(GENERATED));
    } else {
      all.add("--idleStopSeconds=2");
    }
    return FaultsTest.medallion(all.toArray(String[]::new));
  }

  private static long count(Path lake, String sql) throws Exception {
    return Runs.count(lake, sql);
  }

  private static long dead(Path lake, String stage) throws Exception {
    return count(lake, "SELECT count(*) FROM quarantine_iot_events WHERE stage = '" + stage + "'");
  }

  private static KafkaProducer<String, String> producer(KafkaBroker broker) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 8 << 20);
    return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
  }

  /**
   * Sends one record, timestamped within the generated minutes (the stages' arrival clock), and
   * returns its source id, {@code kafka:<topic>/<partition>#<offset>}.
   */
  private static String send(
      KafkaProducer<String, String> producer, String topic, String key, String value)
      throws Exception {
    long arrival = java.time.Instant.parse("2026-11-29T10:01:15Z").toEpochMilli();
    RecordMetadata m =
        producer
            .send(new ProducerRecord<>(topic, null, arrival, key, value))
            .get(30, TimeUnit.SECONDS);
    return "kafka:" + topic + "/" + m.partition() + "#" + m.offset();
  }
}
