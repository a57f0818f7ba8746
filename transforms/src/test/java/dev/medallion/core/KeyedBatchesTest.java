package dev.medallion.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.medallion.testing.BeamPipelineExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.transforms.windowing.Sessions;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.TimestampedValue;
import org.apache.beam.sdk.values.TupleTag;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Records in batches per key and window: every record comes back once, from a batch of its own key
 * and window, stamped at the window's end, and no batch holds more than its maximum.
 */
@ExtendWith(BeamPipelineExtension.class)
class KeyedBatchesTest {
  private static final Instant T0 = Instant.parse("2026-11-29T10:15:00Z");
  private static final TupleTag<String> LATE = new TupleTag<>() {};

  /**
   * A batch as its key, its window (its start, or "global"), whether it is stamped at the window's
   * end, its records.
   */
  static class DescribeFn extends DoFn<KV<String, byte[]>, String> {
    @ProcessElement
    public void process(
        @Element KV<String, byte[]> batch,
        @Timestamp Instant ts,
        BoundedWindow w,
        OutputReceiver<String> out) {
      String window = w instanceof IntervalWindow iw ? iw.start().toString() : "global";
      List<String> records = KeyedBatches.decode(batch.getValue(), StringUtf8Coder.of());
      out.output(
          batch.getKey()
              + " "
              + window
              + (ts.equals(w.maxTimestamp()) ? " at-end " : " elsewhere ")
              + records);
    }
  }

  /** The time of a numbered record ("a7": 7), {@code secondsApart} per number after T0. */
  static Instant timeOf(String record, long secondsApart) {
    return T0.plus(Duration.standardSeconds(secondsApart * Integer.parseInt(record.substring(1))));
  }

  /** The start of a numbered record's minute ({@link #timeOf}), as a batch describes it. */
  static String minuteOf(String record, long secondsApart) {
    long seconds = (timeOf(record, secondsApart).getMillis() - T0.getMillis()) / 1000;
    return T0.plus(Duration.standardMinutes(seconds / 60)).toString();
  }

  /** Each record of a list, at its {@link #timeOf} two seconds apart. */
  static class OneBundleFn extends DoFn<List<String>, String> {
    @ProcessElement
    public void process(@Element List<String> records, OutputReceiver<String> out) {
      for (String r : records) {
        out.outputWithTimestamp(r, timeOf(r, 2));
      }
    }
  }

  /**
   * Checks each described batch: stamped at its window's end, of 1 to {@code max} records of its
   * key, in the window {@code windowOf} names for its records; and that they hold {@code expected},
   * each once.
   */
  private static void assertBatches(
      Iterable<String> described,
      int max,
      SerializableFunction<List<String>, String> windowOf,
      List<String> expected) {
    List<String> seen = new ArrayList<>();
    for (String d : described) {
      String[] parts = d.split(" ", 4);
      assertThat(parts[2]).as(d).isEqualTo("at-end");
      List<String> batch = List.of(parts[3].substring(1, parts[3].length() - 1).split(", "));
      assertThat(batch).as(d).hasSizeBetween(1, max).allMatch(r -> r.startsWith(parts[0]));
      assertThat(parts[1]).as(d).isEqualTo(windowOf.apply(batch));
      seen.addAll(batch);
    }
    assertThat(seen).containsExactlyInAnyOrderElementsOf(expected);
  }

  /** {@code n} records of {@code key} ({@code a0}, {@code a1}, …), {@code step} apart from T0. */
  private static List<TimestampedValue<String>> spaced(String key, int n, Duration step) {
    List<TimestampedValue<String>> records = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      records.add(TimestampedValue.of(key + i, T0.plus(step.multipliedBy(i))));
    }
    return records;
  }

  private static List<String> values(List<TimestampedValue<String>> records) {
    return records.stream().map(TimestampedValue::getValue).toList();
  }

  @Test
  void eachRecordComesBackOnceInABatchOfItsKeyAndWindow(TestPipeline p) {
    List<TimestampedValue<String>> records = spaced("a", 40, Duration.standardSeconds(1));
    records.add(TimestampedValue.of("b0", T0.plus(Duration.standardSeconds(5))));
    records.add(TimestampedValue.of("a-next", T0.plus(Duration.standardSeconds(61))));
    List<String> expected = values(records);

    PCollection<String> batches =
        p.apply(Create.timestamped(records).withCoder(StringUtf8Coder.of()))
            .apply(
                KeyedBatches.<String>into(
                        r -> r.substring(0, 1),
                        Window.into(FixedWindows.of(Duration.standardMinutes(1))))
                    .withMaxRecords(3))
            .apply(ParDo.of(new DescribeFn()));

    PAssert.that(batches)
        .satisfies(
            described -> {
              assertBatches(
                  described,
                  3,
                  batch ->
                      batch.contains("a-next")
                          ? T0.plus(Duration.standardMinutes(1)).toString()
                          : T0.toString(),
                  expected);
              return null;
            });
    p.run().waitUntilFinish();
  }

  @Test
  void keyedPerWindowEachBatchKeyNamesItsKeyAndTheEndOfItsWindow(TestPipeline p) {
    List<TimestampedValue<String>> records = spaced("a", 6, Duration.standardSeconds(20));
    records.add(TimestampedValue.of("b0", T0.plus(Duration.standardSeconds(5))));
    List<String> expected = values(records);

    PCollection<KV<String, byte[]>> batches =
        p.apply(Create.timestamped(records).withCoder(StringUtf8Coder.of()))
            .apply(
                KeyedBatches.<String>into(
                        r -> r.substring(0, 1),
                        Window.into(FixedWindows.of(Duration.standardMinutes(1))))
                    .keyedPerWindow());
    PCollection<String> described = batches.apply(ParDo.of(new DescribeFn()));

    // a0 to a2 in T0's minute, a3 to a5 in the next (20 s apart); b0 in T0's minute; a key names
    // the last instant of its minute, where its batches are stamped
    long first = T0.plus(Duration.standardMinutes(1)).getMillis() - 1;
    long next = T0.plus(Duration.standardMinutes(2)).getMillis() - 1;
    PAssert.that(batches.apply(ParDo.of(new KeyFn())))
        .satisfies(
            keys -> {
              // a key may come in more than one batch (one per bundle)
              assertThat(new TreeSet<>(toList(keys)))
                  .containsExactlyInAnyOrder("a@" + first, "a@" + next, "b@" + first);
              return null;
            });
    PAssert.that(described)
        .satisfies(
            all -> {
              List<String> seen = new ArrayList<>();
              for (String d : all) {
                String[] parts = d.split(" ", 4);
                assertThat(parts[2]).as(d).isEqualTo("at-end");
                seen.addAll(List.of(parts[3].substring(1, parts[3].length() - 1).split(", ")));
              }
              assertThat(seen).containsExactlyInAnyOrderElementsOf(expected);
              return null;
            });
    p.run().waitUntilFinish();
  }

  private static List<String> toList(Iterable<String> all) {
    List<String> list = new ArrayList<>();
    all.forEach(list::add);
    return list;
  }

  /** A batch's key, when it names the batch's own timestamp (else "stamped elsewhere"). */
  static class KeyFn extends DoFn<KV<String, byte[]>, String> {
    @ProcessElement
    public void process(
        @Element KV<String, byte[]> batch, @Timestamp Instant ts, OutputReceiver<String> out) {
      boolean own = batch.getKey().endsWith("@" + ts.getMillis());
      out.output(own ? batch.getKey() : batch.getKey() + " stamped elsewhere");
    }
  }

  @Test
  void batchesInTheGlobalWindowHaveNoWindowToKeyBy() {
    assertThatThrownBy(() -> KeyedBatches.<String>inTheGlobalWindow(r -> r).keyedPerWindow())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no window to key by");
  }

  @Test
  void inTheGlobalWindowEachRecordComesBackOnceInABatchOfItsKey(TestPipeline p) {
    List<TimestampedValue<String>> records = new ArrayList<>();
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 25; i++) {
      String r = (i % 3 == 0 ? "b" : "a") + i;
      records.add(TimestampedValue.of(r, T0.plus(Duration.standardMinutes(i))));
      expected.add(r);
    }

    PCollection<String> batches =
        p.apply(Create.timestamped(records).withCoder(StringUtf8Coder.of()))
            .apply(KeyedBatches.<String>inTheGlobalWindow(r -> r.substring(0, 1)).withMaxRecords(4))
            .apply(ParDo.of(new DescribeFn()));

    PAssert.that(batches)
        .satisfies(
            described -> {
              assertBatches(described, 4, batch -> "global", expected);
              return null;
            });
    p.run().waitUntilFinish();
  }

  @Test
  void theRecordsTurnedAwayGoToTheirOwnOutputAndIntoNoBatch(TestPipeline p) {
    List<TimestampedValue<String>> records = new ArrayList<>();
    List<String> kept = new ArrayList<>();
    List<String> turnedAway = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      String r = (i % 2 == 0 ? "a" : "b") + i;
      records.add(TimestampedValue.of(r, timeOf(r, 7)));
      if (i % 5 == 0) {
        turnedAway.add("late " + r);
      } else {
        kept.add(r);
      }
    }
    PCollectionTuple out =
        p.apply(Create.timestamped(records).withCoder(StringUtf8Coder.of()))
            .apply(
                KeyedBatches.<String>into(
                        r -> r.substring(0, 1),
                        Window.into(FixedWindows.of(Duration.standardMinutes(1))))
                    .withMaxRecords(4)
                    .rejecting(
                        LATE, r -> Integer.parseInt(r.substring(1)) % 5 == 0 ? "late " + r : null));

    PAssert.that(out.get(LATE)).containsInAnyOrder(turnedAway);
    PAssert.that(out.get(KeyedBatches.BATCHES).apply(ParDo.of(new DescribeFn())))
        .satisfies(
            described -> {
              assertBatches(described, 4, batch -> minuteOf(batch.get(0), 7), kept);
              return null;
            });
    p.run().waitUntilFinish();
  }

  @Test
  void theOpenBatchesAreHandedOnWhenTogetherTheyHoldTheMostAllowed(TestPipeline p) {
    // one element that becomes every record, so that they reach the batching in one bundle
    List<List<String>> records = List.of(new ArrayList<>());
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      String r = "abc".charAt(i % 3) + String.valueOf(i);
      records.get(0).add(r);
      expected.add(r);
    }

    PCollection<String> batches =
        p.apply(Create.of(records))
            .apply("AllInOneBundle", ParDo.of(new OneBundleFn()))
            .setCoder(StringUtf8Coder.of())
            .apply(
                KeyedBatches.<String>into(
                        r -> r.substring(0, 1),
                        Window.into(FixedWindows.of(Duration.standardMinutes(1))))
                    .withMaxHeld(5))
            .apply(ParDo.of(new DescribeFn()));

    PAssert.that(batches)
        .satisfies(
            described -> {
              assertBatches(described, 5, batch -> minuteOf(batch.get(0), 2), expected);
              return null;
            });
    p.run().waitUntilFinish();
  }

  @Test
  void aBatchHoldsAtLeastOneRecord() {
    assertThatThrownBy(
            () ->
                KeyedBatches.<String>into(
                        r -> r, Window.into(FixedWindows.of(Duration.standardMinutes(1))))
                    .withMaxHeld(0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () ->
                KeyedBatches.<String>into(
                        r -> r, Window.into(FixedWindows.of(Duration.standardMinutes(1))))
                    .withMaxRecords(0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void batchesGoOnlyIntoWindowsThatPartitionTimeFromTheGlobalWindow() {
    assertThatThrownBy(
            () ->
                KeyedBatches.<String>into(
                    r -> r, Window.into(Sessions.withGapDuration(Duration.standardMinutes(1)))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("partition time");
    Pipeline p = Pipeline.create(); // built, not run
    PCollection<String> windowed =
        p.apply(Create.of("a")).apply(Window.into(FixedWindows.of(Duration.standardMinutes(1))));
    assertThatThrownBy(
            () ->
                windowed.apply(
                    KeyedBatches.<String>into(
                        r -> r, Window.into(FixedWindows.of(Duration.standardMinutes(1))))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("global window");
  }
}
