package dev.medallion.pipelines;

import static org.assertj.core.api.Assertions.assertThat;

import dev.medallion.iot.Lateness;
import dev.medallion.iot.WindowedDeviceStats;
import java.util.Set;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/** Where a restarted Gold fills its windows from, and which Silver rows it takes. */
class GoldSeedTest {
  private static final Duration DISORDER = Duration.standardSeconds(30);
  private static final Duration LATENESS = Duration.standardSeconds(120);

  private static Instant at(String time) {
    return Instant.parse("2026-11-29T" + time + "Z");
  }

  @Test
  void theSeedStartsAWindowBeforeTheFirstWindowALaterRecordCanStillChange() {
    // Read from 10:05:10 on; with 30 s of disorder a record may have arrived at 10:04:40. The
    // 10:02 window (ends 10:03, plus 120 s: 10:05) still takes such a record; the 10:01 window
    // (ends 10:02, plus 120 s: 10:04) does not. One window more is taken to be safe.
    Instant from = GoldSeed.from(at("10:05:10"), DISORDER, LATENESS);
    assertThat(from).isEqualTo(at("10:01:00"));
    assertThat(tooLate(at("10:02:30"), at("10:04:40"))).isFalse();
    assertThat(tooLate(at("10:01:59.999"), at("10:04:40"))).isTrue();
    // on a window boundary
    assertThat(GoldSeed.from(at("10:03:30"), DISORDER, LATENESS)).isEqualTo(at("10:00:00"));
    assertThat(tooLate(at("10:01:00"), at("10:03:00"))).isFalse();
    assertThat(tooLate(at("10:00:59.999"), at("10:03:00"))).isTrue();
  }

  private static boolean tooLate(Instant ts, Instant arrival) {
    return Lateness.isTooLate(ts, arrival, WindowedDeviceStats.WINDOW, LATENESS);
  }

  @Test
  void aRecordOnTimeIsAlwaysTakenATooLateOneOnlyWhenNobodyJudgesIt() {
    Instant first = at("10:10:00");
    // on time: Gold counts it once even if it reads it from Kafka too
    assertThat(wanted(at("10:09:00"), at("10:09:30"), "a", first, Set.of())).isTrue();
    // too late, and this run reads it again from its topic: the topic's copy is judged
    assertThat(wanted(at("10:01:00"), at("10:09:45"), "b", first, Set.of())).isFalse();
    // too late, arrived before what this run reads, in no quarantine yet: judged from the seed
    assertThat(wanted(at("10:01:00"), at("10:09:00"), "c", first, Set.of())).isTrue();
    // ... unless the quarantine holds it already
    assertThat(wanted(at("10:01:00"), at("10:09:00"), "c", first, Set.of("c"))).isFalse();
    // nothing left to read on the topic: a too-late row no quarantine holds is judged now
    assertThat(wanted(at("10:01:00"), at("10:09:45"), "d", null, Set.of())).isTrue();
  }

  private static boolean wanted(
      Instant ts, Instant arrival, String source, Instant first, Set<String> judged) {
    return GoldSeed.wanted(ts, arrival, source, LATENESS, DISORDER, first, judged);
  }
}
