package dev.medallion.generator;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Iterator;
import java.util.Locale;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import org.joda.time.Instant;

/**
 * Generates sensor readings and device heartbeats as NDJSON lines in arrival order, with knobs for
 * malformed lines, resent duplicates, late events, out-of-range values, unknown devices and missing
 * heartbeats. Deterministic: a config gives the same sequence every time.
 *
 * <p>Event time advances in rounds of {@code interval}; in each round every device sends one
 * reading (temperature, humidity and pressure in turn) and, every {@code heartbeatEvery} rounds, a
 * heartbeat. An event normally arrives when it happens; a late one arrives {@code lateDelay} after,
 * and a resent one arrives again a few seconds after the original.
 */
public final class EventGenerator implements Iterator<GeneratedLine> {
  private static final String[] TYPES = {"temperature", "humidity", "pressure"};
  private static final String[] STATUSES = {"ok", "ok", "ok", "ok", "degraded", "error"};

  private final GeneratorConfig config;
  private final SplittableRandom random;
  private final PriorityQueue<GeneratedLine> pending =
      new PriorityQueue<>(
          (a, b) ->
              a.arrivalMillis() != b.arrivalMillis()
                  ? Long.compare(a.arrivalMillis(), b.arrivalMillis())
                  : Long.compare(a.order(), b.order()));
  private final long endMillis;
  // The registry's id of device d at d - 1.
  private final String[] deviceIds;
  private long round;
  private long order;
  private long emitted;

  public EventGenerator(GeneratorConfig config) {
    this.config = config;
    this.random = new SplittableRandom(config.seed());
    this.endMillis = config.start().getMillis() + config.duration().getMillis();
    this.deviceIds = new String[Math.max(0, config.devices())];
    for (int d = 1; d <= deviceIds.length; d++) {
      deviceIds[d - 1] = DeviceRegistryWriter.deviceId(d);
    }
  }

  public GeneratorConfig config() {
    return config;
  }

  private long roundStart(long r) {
    return config.start().getMillis() + r * config.interval().getMillis();
  }

  @Override
  public boolean hasNext() {
    if (config.maxLines() > 0 && emitted >= config.maxLines()) {
      return false;
    }
    fillUntilHeadIsDue();
    return !pending.isEmpty();
  }

  @Override
  public GeneratedLine next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    emitted++;
    return pending.poll();
  }

  /** Generates rounds until the earliest pending line arrives before the next round begins. */
  private void fillUntilHeadIsDue() {
    while (roundStart(round) < endMillis
        && (pending.isEmpty() || pending.peek().arrivalMillis() >= roundStart(round))) {
      generateRound(round++);
    }
  }

  private void generateRound(long r) {
    long spacing = config.interval().getMillis() / Math.max(1, config.devices());
    for (int d = 1; d <= config.devices(); d++) {
      long ts = roundStart(r) + (d - 1) * spacing + random.nextInt(0, (int) Math.max(1, spacing));
      String type = TYPES[(int) ((r + d) % TYPES.length)];
      emit(reading(d, type, ts), ts);
      if ((r + d) % config.heartbeatEvery() == 0 && !chance(config.missingHeartbeatRate())) {
        long hts = ts + 1;
        emit(heartbeat(d, hts), hts);
      }
    }
  }

  private void emit(String line, long ts) {
    if (chance(config.malformedRate())) {
      line = malformed(line);
    }
    long arrival = ts;
    if (chance(config.lateRate())) {
      arrival = ts + config.lateDelay().getMillis();
    }
    pending.add(new GeneratedLine(line, ts, arrival, order++));
    if (chance(config.duplicateRate())) {
      pending.add(new GeneratedLine(line, ts, arrival + random.nextInt(1000, 5000), order++));
    }
  }

  private String reading(int d, String type, long ts) {
    String device = deviceId(d);
    String unit;
    double value;
    switch (type) {
      case "temperature" -> {
        value = 15 + 10 * random.nextDouble();
        unit = "C";
        if (chance(config.fahrenheitRate())) {
          value = value * 9 / 5 + 32;
          unit = "F";
        }
        if (chance(config.outOfRangeRate())) {
          value = 200 + random.nextInt(100);
          unit = "C";
        }
      }
      case "humidity" -> {
        value = 30 + 40 * random.nextDouble();
        unit = "%";
        if (chance(config.outOfRangeRate())) {
          value = 101 + random.nextInt(50);
        }
      }
      default -> {
        value = 990 + 40 * random.nextDouble();
        unit = "hPa";
        if (chance(config.outOfRangeRate())) {
          value = 50 + random.nextInt(100);
        }
      }
    }
    StringBuilder line =
        new StringBuilder(128)
            .append("{\"device_id\":\"")
            .append(device)
            .append("\",\"sensor_type\":\"")
            .append(type)
            .append("\",\"value\":");
    return appendFixed(line, value, 2)
        .append(",\"unit\":\"")
        .append(unit)
        .append("\",\"ts\":\"")
        .append(new Instant(ts))
        .append("\",\"seq\":")
        .append(round)
        .append('}')
        .toString();
  }

  private String heartbeat(int d, long ts) {
    double battery = Math.max(0, 100 - round * 0.05 - d % 7 - random.nextInt(0, 3));
    int rssi = -50 - random.nextInt(0, 40);
    String status = STATUSES[random.nextInt(STATUSES.length)];
    StringBuilder line =
        new StringBuilder(112)
            .append("{\"device_id\":\"")
            .append(deviceId(d))
            .append("\",\"battery_pct\":");
    return appendFixed(line, battery, 1)
        .append(",\"rssi_dbm\":")
        .append(rssi)
        .append(",\"status\":\"")
        .append(status)
        .append("\",\"ts\":")
        .append(ts)
        .append('}')
        .toString();
  }

  /**
   * {@code value} with {@code decimals} digits after the point, the text of {@code
   * String.format(Locale.ROOT, "%.<decimals>f", value)}. For the values the generator makes (+0,
   * and 0.001 up to 10 million) it is their shortest decimal ({@link Double#toString}) rounded half
   * up, as the format rounds (99.85 gives 99.9), in a quarter of the format's time, which had been
   * a tenth of a generated stream's CPU; any other value goes through the format itself.
   */
  static StringBuilder appendFixed(StringBuilder out, double value, int decimals) {
    boolean plain = (value >= 1e-3 && value < 1e7) || Double.doubleToRawLongBits(value) == 0L;
    if (!plain) {
      return out.append(String.format(Locale.ROOT, "%." + decimals + "f", value));
    }
    return out.append(
        new BigDecimal(Double.toString(value))
            .setScale(decimals, RoundingMode.HALF_UP)
            .toPlainString());
  }

  private String deviceId(int d) {
    if (chance(config.unknownDeviceRate())) {
      return String.format(Locale.ROOT, "dev-9%03d", d % 1000);
    }
    return deviceIds[d - 1];
  }

  private String malformed(String line) {
    return switch (random.nextInt(3)) {
      case 0 -> line.substring(0, line.length() / 2);
      case 1 -> line.replaceFirst("\"ts\":[^,}]+", "\"ts\":\"yesterday\"");
      default -> "#garbage " + line.hashCode();
    };
  }

  private boolean chance(double p) {
    return p > 0 && random.nextDouble() < p;
  }
}
