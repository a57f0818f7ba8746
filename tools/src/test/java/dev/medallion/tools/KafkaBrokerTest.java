package dev.medallion.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broker {@code medallion kafka} starts: a real Kafka (KRaft) in its own JVM from Kafka's jars,
 * its topics created, and a data folder that keeps records and consumer offsets across a restart; a
 * stage reading it while it goes away and comes back; a stage given a topic the broker does not
 * have.
 */
class KafkaBrokerTest {
  @TempDir Path tmp;

  /**
   * {@code medallion kafka} stopped as Ctrl-C or a service manager stops it (SIGTERM here; Ctrl-C
   * is SIGINT, handled the same) stops its broker and exits 0 with its last line; before, the JVM's
   * own handling ended it with 143 (130 for Ctrl-C) whatever the command returned.
   */
  @Test
  void aSignalStopsTheBrokerAndTheCommandExitsZero() throws Exception {
    Path log = tmp.resolve("kafka-command.log");
    Process kafka =
        ChildJvm.start(
            log,
            List.of("-Dmedallion.kafka.libs=" + System.getProperty("medallion.kafka.libs")),
            "kafka",
            "--dir=" + tmp.resolve("signal"),
            "--port=" + KafkaBroker.freePort(),
            "--controllerPort=" + KafkaBroker.freePort());
    try {
      waitFor(
          () -> !kafka.isAlive() || java.nio.file.Files.readString(log).contains("kafka: running"),
          () -> "the broker runs; the log:\n" + tail(log));
      assertThat(kafka.isAlive()).as(tail(log)).isTrue();
      List<ProcessHandle> broker = kafka.descendants().toList();
      assertThat(broker).as("the broker's own JVM").isNotEmpty();

      kafka.destroy(); // SIGTERM

      assertThat(kafka.waitFor(60, TimeUnit.SECONDS)).isTrue();
      String said = java.nio.file.Files.readString(log);
      assertThat(kafka.exitValue()).as(said).isZero();
      assertThat(said).contains("kafka: stopping the broker", "kafka: the broker stopped");
      assertThat(broker).noneMatch(ProcessHandle::isAlive);
    } finally {
      kafka.descendants().forEach(ProcessHandle::destroyForcibly);
      kafka.destroyForcibly();
    }
  }

  /**
   * The generator's lines reach the topic keyed by device; Bronze, in a JVM of its own, reads each
   * once; the broker is killed mid-run: Bronze says so once and waits, and when the broker is back
   * (same folder, same ports) it goes on, and holds every record once, with its partition, offset
   * and timestamp, or its dead letter. Before that, a stage given a topic the broker lacks stops at
   * once with a clear line.
   */
  @Test
  void bronzeWaitsForABrokerThatWentAwayAndReadsEachRecordOnce() throws Exception {
    String[] generate = {
      "generate", "--generatorDevices=3", "--durationMinutes=2", "--malformedRate=0.05", "--seed=7"
    };
    List<String> lines = FaultsTest.medallion(generate).out().lines().toList();
    assertThat(lines).hasSizeGreaterThan(50);
    int port = KafkaBroker.freePort();
    int controllerPort = KafkaBroker.freePort();
    Path dir = tmp.resolve("kafka");
    KafkaBroker broker = KafkaBroker.start(dir, port, controllerPort);
    Process bronze = null;
    try {
      broker.createTopics(Map.of("iot-raw", 4, "iot-bronze", 4, "selftest", 2));
      broker.createTopics(Map.of("iot-raw", 4)); // again: nothing to do, no error
      try (Admin admin = broker.admin()) {
        Map<String, TopicDescription> topics =
            admin
                .describeTopics(List.of("iot-raw", "selftest"))
                .allTopicNames()
                .get(30, TimeUnit.SECONDS);
        assertThat(topics.get("iot-raw").partitions()).hasSize(4);
        assertThat(topics.get("selftest").partitions()).hasSize(2);
      }
      assertThat(KafkaCommand.roundTrip(broker, "selftest")).startsWith("medallion self-test ");
      Path lake = tmp.resolve("lake");
      // A topic the broker does not have (it creates none on first use): a clear error at the
      // start.
      // Forwarding to one, Bronze used to wait in Kafka's producer forever.
      String servers = "--bootstrapServers=" + broker.bootstrapServers();
      FaultsTest.Outcome noOutput =
          assertTimeoutPreemptively(
              Duration.ofSeconds(120),
              () ->
                  FaultsTest.medallion(
                      "bronze",
                      "--inputTopic=iot-raw",
                      "--outputTopic=iot-bronz",
                      servers,
                      "--lakehouse=" + lake),
              "Bronze waits for a topic that does not exist");
      assertThat(noOutput.code()).as(noOutput.err()).isEqualTo(2);
      assertThat(noOutput.err())
          .contains(
              "Kafka topic iot-bronz (--outputTopic) does not exist on "
                  + broker.bootstrapServers());
      FaultsTest.Outcome noInput =
          FaultsTest.medallion("silver", "--inputTopic=iot-bronz", servers, "--lakehouse=" + lake);
      assertThat(noInput.code()).as(noInput.err()).isEqualTo(2);
      assertThat(noInput.err()).contains("Kafka topic iot-bronz (--inputTopic) does not exist");
      // --outputTopic where no stage forwards: refused before anything is read or written
      FaultsTest.Outcome notForwarding =
          FaultsTest.medallion(
              "run",
              "--inputTopic=iot-raw",
              "--outputTopic=iot-bronze",
              servers,
              "--lakehouse=" + lake);
      assertThat(notForwarding.code()).as(notForwarding.err()).isEqualTo(2);
      assertThat(notForwarding.err()).contains("it is for the bronze and silver stages");
      assertThat(notForwarding.err()).doesNotContain("resuming");
      Path log = tmp.resolve("bronze.log");
      bronze = forwardingBronze(log, broker, lake);
      List<String> toKafka = new ArrayList<>(List.of(generate));
      toKafka.add("--sink=kafka");
      toKafka.add("--bootstrapServers=" + broker.bootstrapServers());
      FaultsTest.Outcome sent = FaultsTest.medallion(toKafka.toArray(String[]::new));
      assertThat(sent.code()).as(sent.err()).isZero();
      assertThat(sent.err())
          .contains("generated " + lines.size() + " lines to Kafka topic iot-raw");
      List<ConsumerRecord<String, String>> records = records(broker, "check", lines.size());
      assertThat(records.stream().map(ConsumerRecord::value).sorted().toList())
          .isEqualTo(lines.stream().sorted().toList());
      long unkeyed = 0;
      for (ConsumerRecord<String, String> r : records) {
        java.util.regex.Matcher device =
            java.util.regex.Pattern.compile("\"device_id\":\"([^\"]*)\"").matcher(r.value());
        assertThat(r.key()).as(r.value()).isEqualTo(device.find() ? device.group(1) : null);
        unkeyed += r.key() == null ? 1 : 0;
        // the arrival time: within the generated event time (from --start, 2 minutes, late ones
        // after)
        assertThat(r.timestamp()).isBetween(1795946400000L, 1795946400000L + 10 * 60_000L);
      }
      assertThat(unkeyed).as("malformed lines without a device").isPositive();
      waitFor(() -> held(lake) == lines.size(), "Bronze holds the first lines");

      broker.kill(); // the broker goes away mid-run
      waitFor(() -> java.nio.file.Files.readString(log).contains("does not answer"), "said");
      assertThat(bronze.isAlive()).as("Bronze waits").isTrue();
      broker = KafkaBroker.start(dir, port, controllerPort);
      List<String> more = new ArrayList<>(toKafka);
      more.add("--start=2026-11-29T10:02:00Z");
      FaultsTest.Outcome sentAfter = FaultsTest.medallion(more.toArray(String[]::new));
      assertThat(sentAfter.code()).as(sentAfter.err()).isZero();
      int total =
          lines.size()
              + Integer.parseInt(
                  sentAfter.err().replaceAll("(?s).*generated (\\d+) lines.*", "$1"));
      // The folder kept the records and the groups' offsets: "check" resumes after what it
      // committed before the broker died, a new group reads everything.
      assertThat(records(broker, "check", total - lines.size()))
          .hasSize(total - lines.size())
          .allSatisfy(r -> assertThat(r.timestamp()).isGreaterThanOrEqualTo(1795946520000L));
      records = records(broker, "check2", total);
      assertThat(records).hasSize(total);
      waitFor(() -> held(lake) == total, "Bronze holds the lines sent after");
      assertThat(java.nio.file.Files.readString(log)).contains("answers again");
      bronze.destroy(); // Ctrl-C
      assertThat(bronze.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(bronze.exitValue()).as(java.nio.file.Files.readString(log)).isZero();

      // Each record once, its source the record's partition and offset, its received_at the
      // record's timestamp.
      List<String> expected = new ArrayList<>();
      Map<String, Long> timestamps = new java.util.HashMap<>();
      for (ConsumerRecord<String, String> r : records) {
        String source = "kafka:iot-raw/" + r.partition() + "#" + r.offset();
        timestamps.put(source, r.timestamp());
        expected.add(source + "|" + r.timestamp() + "|" + r.value());
      }
      List<String> got = new ArrayList<>();
      Runs.rows(lake, "SELECT source, epoch_ms(received_at), raw_payload FROM bronze_iot_events")
          .forEach(row -> got.add(row.get(0) + "|" + row.get(1) + "|" + row.get(2)));
      Runs.rows(
              lake,
              "SELECT source, original_payload FROM quarantine_iot_events WHERE stage = 'bronze'")
          .forEach(
              row ->
                  got.add(
                      row.get(0)
                          + "|"
                          + timestamps.get(String.valueOf(row.get(0)))
                          + "|"
                          + row.get(1)));
      assertThat(got.stream().sorted().toList()).isEqualTo(expected.stream().sorted().toList());
      // ... and forwarded each Bronze row, as JSON keyed by its device, to iot-bronze
      List<String> bronzeSources =
          Runs.rows(lake, "SELECT source FROM bronze_iot_events").stream()
              .map(row -> String.valueOf(row.get(0)))
              .sorted()
              .toList();
      List<String> forwardedSources = new ArrayList<>();
      for (ConsumerRecord<String, String> r :
          records(broker, "check", "iot-bronze", bronzeSources.size())) {
        com.fasterxml.jackson.databind.JsonNode row =
            dev.medallion.core.Json.mapper().readTree(r.value());
        forwardedSources.add(row.get("source").asText());
        assertThat(r.key()).isEqualTo(row.get("device_id").asText());
        assertThat(r.timestamp()).isEqualTo(timestamps.get(row.get("source").asText()));
      }
      assertThat(forwardedSources.stream().distinct().sorted().toList()).isEqualTo(bronzeSources);
    } finally {
      if (bronze != null) {
        bronze.destroyForcibly();
      }
      broker.close();
    }
    // no broker there at all: one clear line, exit 1
    List<String> away = new ArrayList<>(List.of(generate));
    away.add("--sink=kafka");
    away.add("--bootstrapServers=127.0.0.1:" + KafkaBroker.freePort());
    FaultsTest.Outcome failed = FaultsTest.medallion(away.toArray(String[]::new));
    assertThat(failed.code()).isEqualTo(1);
    assertThat(failed.err())
        .contains("cannot reach Kafka at 127.0.0.1:")
        .contains("./medallion kafka");
  }

  /**
   * Topics deleted under a running Bronze. Its output topic: Bronze says so and waits, and once the
   * topic exists again it forwards every row it kept meanwhile. Its input topic: Bronze says so,
   * stops cleanly (what it read written and committed) and exits 1. Started again on a topic
   * created again under that name, it refuses it (exit 2), where it used to skip the new topic's
   * first records without a word; and its group's lag is 0 once it has read everything.
   */
  @Test
  void topicsDeletedUnderARunningBronze() throws Exception {
    String[] generate = {
      "generate", "--generatorDevices=3", "--durationMinutes=2", "--malformedRate=0.05", "--seed=11"
    };
    KafkaBroker broker =
        KafkaBroker.start(tmp.resolve("kafka"), KafkaBroker.freePort(), KafkaBroker.freePort());
    Process bronze = null;
    try (Admin admin = broker.admin()) {
      broker.createTopics(Map.of("iot-raw", 2, "iot-bronze", 2));
      String servers = "--bootstrapServers=" + broker.bootstrapServers();
      List<String> toKafka = new ArrayList<>(List.of(generate));
      toKafka.addAll(List.of("--sink=kafka", servers));
      int first = sent(FaultsTest.medallion(toKafka.toArray(String[]::new)));
      Path lake = tmp.resolve("lake");
      Path log = tmp.resolve("bronze.log");
      bronze = forwardingBronze(log, broker, lake);
      waitFor(
          () -> held(lake) == first,
          () -> "Bronze holds the first lines: " + held(lake) + " of " + first + "\n" + tail(log));
      waitFor(() -> lag(admin, "medallion-bronze") == 0, "the group's lag is 0, all read");

      admin.deleteTopics(List.of("iot-bronze")).all().get(30, TimeUnit.SECONDS);
      waitFor(
          () ->
              java.nio.file.Files.readString(log)
                  .contains("kafka: topic iot-bronze (--outputTopic) does not exist on"),
          "Bronze says its output topic is gone");
      toKafka.add("--start=2026-11-29T10:02:00Z");
      int total = first + sent(FaultsTest.medallion(toKafka.toArray(String[]::new)));
      Thread.sleep(3000); // the stage stands still while its forwarding waits
      broker.createTopics(Map.of("iot-bronze", 2));
      waitFor(
          () ->
              java.nio.file.Files.readString(log)
                  .contains("topic iot-bronze (--outputTopic) exists again"),
          "Bronze says it is back");
      waitFor(() -> held(lake) == total, "Bronze holds the lines sent meanwhile");
      List<String> keptMeanwhile =
          Runs.rows(
                  lake,
                  "SELECT source FROM bronze_iot_events WHERE epoch_ms(received_at) >="
                      + " 1795946520000")
              .stream()
              .map(row -> String.valueOf(row.get(0)))
              .sorted()
              .toList();
      assertThat(keptMeanwhile).isNotEmpty();
      List<String> forwarded = new ArrayList<>();
      for (ConsumerRecord<String, String> r :
          records(broker, "check", "iot-bronze", keptMeanwhile.size())) {
        forwarded.add(dev.medallion.core.Json.mapper().readTree(r.value()).get("source").asText());
      }
      assertThat(forwarded).containsAll(keptMeanwhile);

      // deleted and created again at once: told by its new id (or, if the new one came late, by
      // its absence)
      admin.deleteTopics(List.of("iot-raw")).all().get(30, TimeUnit.SECONDS);
      broker.createTopics(Map.of("iot-raw", 2));
      assertThat(bronze.waitFor(90, TimeUnit.SECONDS)).as("Bronze stops").isTrue();
      String said = java.nio.file.Files.readString(log);
      assertThat(bronze.exitValue()).as(said).isEqualTo(1);
      assertThat(said)
          .containsAnyOf(
              "medallion bronze: Kafka topic iot-raw (--inputTopic) on "
                  + broker.bootstrapServers()
                  + " was deleted and created again under the stage",
              "medallion bronze: Kafka topic iot-raw (--inputTopic) does not exist on")
          .contains("bronze : " + total + " lines read");
      assertThat(held(lake)).isEqualTo(total);

      broker.createTopics(Map.of("iot-raw", 2)); // when the deletion had not ended before

      toKafka.remove(toKafka.size() - 1);
      sent(FaultsTest.medallion(toKafka.toArray(String[]::new))); // the first lines again
      FaultsTest.Outcome again =
          FaultsTest.medallion(
              "bronze", "--inputTopic=iot-raw", servers, "--maxRecords=1", "--lakehouse=" + lake);
      assertThat(again.code()).as(again.err()).isEqualTo(2);
      assertThat(again.err())
          .contains("Kafka topic iot-raw on " + broker.bootstrapServers())
          .contains("is not the topic Bronze read under that name (its id was ");
      assertThat(held(lake)).isEqualTo(total);
    } finally {
      if (bronze != null) {
        bronze.destroyForcibly();
      }
      broker.close();
    }
  }

  /**
   * A bounded read ({@code --maxRecords}) of a topic whose partitions hold unequal counts ends with
   * every record: Beam's bounded read of an unbounded source gives each part of the read an equal
   * share (from 10,000 records on, in two parts or more), and a part whose partitions held fewer
   * waited for the rest forever (found on Spark by hand; the same on the DirectRunner).
   */
  @Test
  void aBoundedReadOfPartitionsOfUnequalCountsEnds() throws Exception {
    KafkaBroker broker =
        KafkaBroker.start(tmp.resolve("kafka"), KafkaBroker.freePort(), KafkaBroker.freePort());
    try {
      broker.createTopics(Map.of("iot-raw", 2));
      String servers = "--bootstrapServers=" + broker.bootstrapServers();
      // three devices over two partitions: one holds the records of one device, or of none
      int total =
          sent(
              FaultsTest.medallion(
                  "generate",
                  "--generatorDevices=3",
                  "--durationMinutes=220",
                  "--malformedRate=0",
                  "--sink=kafka",
                  servers));
      assertThat(total).isGreaterThanOrEqualTo(10_000);
      try (Admin admin = broker.admin()) {
        List<Long> counts = new ArrayList<>(ends(admin, "iot-raw").values());
        assertThat(counts).as("partitions of unequal counts").doesNotHaveDuplicates();
      }
      Path lake = tmp.resolve("lake");
      FaultsTest.Outcome bronze =
          assertTimeoutPreemptively(
              Duration.ofSeconds(150),
              () ->
                  FaultsTest.medallion(
                      "bronze",
                      "--inputTopic=iot-raw",
                      servers,
                      "--maxRecords=" + total,
                      "--lakehouse=" + lake),
              "the bounded read waits for records that never come");
      assertThat(bronze.code()).as(bronze.err()).isZero();
      assertThat(bronze.out())
          .contains("kafka  : " + total + " records read from iot-raw")
          .contains("bronze : " + total + " lines read");
    } finally {
      broker.close();
    }
  }

  /**
   * A row committed but never forwarded (here: by a run without {@code --outputTopic} between runs
   * with it; a run killed between a flush and its forwarding leaves the same) is forwarded by the
   * stage's next forwarding run, which reads its record again and says so: the next stage reads
   * only the topic, and missed such rows without a word. Bronze and Silver, four runs each.
   */
  @Test
  void stagesForwardTheRowsARunCommittedButNeverForwarded() throws Exception {
    KafkaBroker broker =
        KafkaBroker.start(tmp.resolve("kafka"), KafkaBroker.freePort(), KafkaBroker.freePort());
    try {
      broker.createTopics(Map.of("iot-raw", 2, "iot-bronze", 2, "iot-silver", 2));
      String servers = "--bootstrapServers=" + broker.bootstrapServers();
      Path lake = tmp.resolve("lake");
      String silverRows =
          "SELECT count(DISTINCT source) FROM (SELECT source FROM silver_sensor_readings UNION ALL"
              + " SELECT source FROM silver_device_heartbeats)";
      long bronzeMissing = 0;
      long silverMissing = 0;
      // {start, Bronze forwards, Silver forwards}
      for (String[] run :
          List.of(
              new String[] {"10:00", "yes", "yes"},
              new String[] {"10:02", "no", "yes"},
              new String[] {"10:04", "yes", "no"},
              new String[] {"10:06", "yes", "yes"})) {
        sent(
            FaultsTest.medallion(
                "generate",
                "--generatorDevices=3",
                "--durationMinutes=2",
                "--malformedRate=0.05",
                "--seed=13",
                "--start=2026-11-29T" + run[0] + ":00Z",
                "--sink=kafka",
                servers));
        FaultsTest.Outcome bronze = stage(lake, servers, "bronze", "iot-raw", run[1], "iot-bronze");
        if (run[0].equals("10:02")) { // this run's Bronze rows are not on the topic
          bronzeMissing =
              Runs.count(lake, "SELECT count(DISTINCT source) FROM bronze_iot_events")
                  - topicSize(broker, "iot-bronze");
          assertThat(bronzeMissing).isPositive();
        }
        if (run[0].equals("10:04")) {
          assertThat(bronze.err())
              .contains(
                  bronzeMissing
                      + " Bronze row(s) of iot-raw were committed but never forwarded to"
                      + " iot-bronze");
        }
        FaultsTest.Outcome silver =
            stage(lake, servers, "silver", "iot-bronze", run[2], "iot-silver");
        if (run[0].equals("10:04")) { // this run's Silver rows are not on the topic
          silverMissing = Runs.count(lake, silverRows) - topicSize(broker, "iot-silver");
          assertThat(silverMissing).isPositive();
        }
        if (run[0].equals("10:06")) {
          assertThat(silver.err())
              .contains(
                  silverMissing
                      + " Silver row(s) of iot-bronze were committed but never forwarded to"
                      + " iot-silver");
        }
      }
      assertThat(forwardedSources(broker, "iot-bronze"))
          .isEqualTo(sources(lake, "SELECT DISTINCT source FROM bronze_iot_events"));
      assertThat(forwardedSources(broker, "iot-silver"))
          .isEqualTo(
              sources(
                  lake,
                  "SELECT source FROM silver_sensor_readings UNION SELECT source FROM"
                      + " silver_device_heartbeats"));
    } finally {
      broker.close();
    }
  }

  /** One run of {@code stage} to the end of its topic, forwarding when {@code forwards} is yes. */
  private static FaultsTest.Outcome stage(
      Path lake, String servers, String stage, String input, String forwards, String output)
      throws Exception {
    List<String> args =
        new ArrayList<>(
            List.of(
                stage,
                "--inputTopic=" + input,
                servers,
                "--idleStopSeconds=3",
                "--lakehouse=" + lake));
    if (forwards.equals("yes")) {
      args.add("--outputTopic=" + output);
    }
    FaultsTest.Outcome ran = FaultsTest.medallion(args.toArray(String[]::new));
    assertThat(ran.code()).as(ran.err()).isZero();
    return ran;
  }

  /** The distinct {@code source} of the rows {@code sql} selects, sorted. */
  private static List<String> sources(Path lake, String sql) throws Exception {
    return Runs.rows(lake, sql).stream()
        .map(row -> String.valueOf(row.get(0)))
        .distinct()
        .sorted()
        .toList();
  }

  /** The distinct {@code source} of the rows forwarded to {@code topic}, sorted. */
  private static List<String> forwardedSources(KafkaBroker broker, String topic) throws Exception {
    List<String> forwarded = new ArrayList<>();
    for (ConsumerRecord<String, String> r :
        records(broker, "check", topic, (int) topicSize(broker, topic))) {
      forwarded.add(dev.medallion.core.Json.mapper().readTree(r.value()).get("source").asText());
    }
    return forwarded.stream().distinct().sorted().toList();
  }

  /** The records {@code topic} holds. */
  private static long topicSize(KafkaBroker broker, String topic) throws Exception {
    try (Admin admin = broker.admin()) {
      return ends(admin, topic).values().stream().mapToLong(Long::longValue).sum();
    }
  }

  /** The end offset of each partition of {@code topic} (its records, for a topic none dropped). */
  private static Map<org.apache.kafka.common.TopicPartition, Long> ends(Admin admin, String topic)
      throws Exception {
    Map<org.apache.kafka.common.TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> latest =
        new java.util.HashMap<>();
    for (var p :
        admin
            .describeTopics(List.of(topic))
            .allTopicNames()
            .get(30, TimeUnit.SECONDS)
            .get(topic)
            .partitions()) {
      latest.put(
          new org.apache.kafka.common.TopicPartition(topic, p.partition()),
          org.apache.kafka.clients.admin.OffsetSpec.latest());
    }
    Map<org.apache.kafka.common.TopicPartition, Long> ends = new java.util.HashMap<>();
    admin
        .listOffsets(latest)
        .all()
        .get(30, TimeUnit.SECONDS)
        .forEach((tp, info) -> ends.put(tp, info.offset()));
    return ends;
  }

  /** Bronze in a JVM of its own, from iot-raw to iot-bronze, flushing every second. */
  private static Process forwardingBronze(Path log, KafkaBroker broker, Path lake)
      throws Exception {
    return ChildJvm.start(
        log,
        List.of(),
        "bronze",
        "--inputTopic=iot-raw",
        "--bootstrapServers=" + broker.bootstrapServers(),
        "--outputTopic=iot-bronze",
        "--flushSeconds=1",
        "--lakehouse=" + lake);
  }

  /** The lines a {@code generate --sink=kafka} sent. */
  private static int sent(FaultsTest.Outcome sent) {
    assertThat(sent.code()).as(sent.err()).isZero();
    return Integer.parseInt(sent.err().replaceAll("(?s).*generated (\\d+) lines.*", "$1"));
  }

  /** The records of iot-raw after {@code group}'s committed offsets. */
  private static long lag(Admin admin, String group) throws Exception {
    Map<org.apache.kafka.common.TopicPartition, org.apache.kafka.clients.consumer.OffsetAndMetadata>
        committed =
            admin
                .listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get(30, TimeUnit.SECONDS);
    long lag = 0;
    for (var e : ends(admin, "iot-raw").entrySet()) {
      var at = committed.get(e.getKey());
      lag += e.getValue() - (at == null ? 0 : at.offset());
    }
    return lag;
  }

  interface Check {
    boolean holds() throws Exception;
  }

  /** Waits up to 90 s for {@code check}, failing with {@code what} if it never holds. */
  private static void waitFor(Check check, String what) throws Exception {
    waitFor(check, () -> what);
  }

  /** As {@link #waitFor(Check, String)}, what is said on failure worked out then. */
  private static void waitFor(Check check, Said what) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (!check.holds()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(what.said());
      }
      Thread.sleep(300);
    }
  }

  interface Said {
    String said() throws Exception;
  }

  /** The last lines of a child's log, its progress lines apart. */
  private static String tail(Path log) throws java.io.IOException {
    List<String> lines =
        java.util.Arrays.stream(java.nio.file.Files.readString(log).split("[\r\n]+"))
            .filter(l -> !l.startsWith("["))
            .toList();
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
  }

  /** Bronze's rows and dead letters, committed now (0 before the tables exist). */
  private static long held(Path lake) {
    try {
      return Runs.count(
          lake,
          "SELECT (SELECT count(*) FROM bronze_iot_events) + (SELECT count(*) FROM"
              + " quarantine_iot_events WHERE stage = 'bronze')");
    } catch (Exception notYet) {
      return 0;
    }
  }

  private static List<ConsumerRecord<String, String>> records(
      KafkaBroker broker, String group, int expected) {
    return records(broker, group, "iot-raw", expected);
  }

  private static List<ConsumerRecord<String, String>> records(
      KafkaBroker broker, String group, String topic, int expected) {
    Properties c = new Properties();
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    c.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    List<ConsumerRecord<String, String>> out = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer())) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (out.size() < expected && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(500)).forEach(out::add);
      }
      consumer.poll(Duration.ofSeconds(1)).forEach(out::add);
      consumer.commitSync();
    }
    return out;
  }
}
