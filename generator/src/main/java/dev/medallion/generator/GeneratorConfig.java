package dev.medallion.generator;

import java.io.Serializable;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * What the generator makes. The same config and seed always give the same lines in the same order.
 * Rates are per generated event, between 0 and 1.
 *
 * @param seed the seed of every random choice
 * @param devices devices {@code dev-0001}..{@code dev-NNNN}, the first ones of the registry
 * @param start event time of the first round
 * @param interval event time between two rounds; in each round every device sends one reading
 * @param duration event time to generate (rounds start before {@code start + duration})
 * @param maxLines stop after this many lines (0: no limit)
 * @param heartbeatEvery a device sends a heartbeat every this many rounds
 */
public record GeneratorConfig(
    long seed,
    int devices,
    Instant start,
    Duration interval,
    Duration duration,
    long maxLines,
    int heartbeatEvery,
    double malformedRate,
    double duplicateRate,
    double lateRate,
    Duration lateDelay,
    double outOfRangeRate,
    double unknownDeviceRate,
    double missingHeartbeatRate,
    double fahrenheitRate)
    implements Serializable {

  /** Clean data: no knob turned. */
  public static GeneratorConfig clean(long seed, int devices, Instant start, Duration duration) {
    return new GeneratorConfig(
        seed,
        devices,
        start,
        Duration.standardSeconds(5),
        duration,
        0,
        3,
        0,
        0,
        0,
        Duration.standardMinutes(1),
        0,
        0,
        0,
        0.1);
  }

  public GeneratorConfig withKnobs(
      double malformed,
      double duplicate,
      double late,
      Duration lateDelay,
      double outOfRange,
      double unknownDevice,
      double missingHeartbeat) {
    return new GeneratorConfig(
        seed,
        devices,
        start,
        interval,
        duration,
        maxLines,
        heartbeatEvery,
        malformed,
        duplicate,
        late,
        lateDelay,
        outOfRange,
        unknownDevice,
        missingHeartbeat,
        fahrenheitRate);
  }

  public GeneratorConfig withMaxLines(long max) {
    return new GeneratorConfig(
        seed,
        devices,
        start,
        interval,
        duration,
        max,
        heartbeatEvery,
        malformedRate,
        duplicateRate,
        lateRate,
        lateDelay,
        outOfRangeRate,
        unknownDeviceRate,
        missingHeartbeatRate,
        fahrenheitRate);
  }

  public GeneratorConfig withInterval(Duration every) {
    return new GeneratorConfig(
        seed,
        devices,
        start,
        every,
        duration,
        maxLines,
        heartbeatEvery,
        malformedRate,
        duplicateRate,
        lateRate,
        lateDelay,
        outOfRangeRate,
        unknownDeviceRate,
        missingHeartbeatRate,
        fahrenheitRate);
  }
}
