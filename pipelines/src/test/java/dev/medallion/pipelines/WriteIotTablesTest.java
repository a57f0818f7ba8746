package dev.medallion.pipelines;

import static org.assertj.core.api.Assertions.assertThat;

import dev.medallion.core.RawEvent;
import dev.medallion.iot.IngestToBronze;
import org.joda.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class WriteIotTablesTest {
  @ParameterizedTest
  @CsvSource({
    "2026-11-29T00:00:00Z, date=2026-11-29/hour=00",
    "2026-11-29T09:59:59.999Z, date=2026-11-29/hour=09",
    "2026-11-29T10:00:00Z, date=2026-11-29/hour=10",
    "2026-11-29T23:30:00Z, date=2026-11-29/hour=23",
    "2026-11-30T01:15:00+02:00, date=2026-11-29/hour=23"
  })
  void bronzeIsPartitionedByTheEventsUtcDateAndTwoDigitHour(String ts, String partition) {
    String line = "{\"device_id\":\"dev-0001\",\"battery_pct\":80,\"ts\":\"" + ts + "\"}";
    RawEvent raw = RawEvent.of(line, "file", "t.ndjson", null, 1L, null);

    assertThat(WriteIotTables.hourPartition(IngestToBronze.classify(raw, new Instant(0))))
        .isEqualTo(partition);
  }
}
