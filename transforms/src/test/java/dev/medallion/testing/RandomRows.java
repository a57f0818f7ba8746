package dev.medallion.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.values.Row;
import org.joda.time.Instant;
import org.joda.time.ReadableInstant;

/** Rows of a flat schema with random values, and their comparison value by value. */
public final class RandomRows {
  private RandomRows() {}

  /**
   * A row of {@code schema}: a quarter of its nullable fields null, strings from {@code texts},
   * doubles from {@code doubles} (either sign) or random ones of two decimals, numbers of every
   * size and small ones, instants from 1843 to 2096.
   */
  public static Row of(Schema schema, Random random, String[] texts, double[] doubles) {
    Row.Builder row = Row.withSchema(schema);
    for (Schema.Field f : schema.getFields()) {
      if (f.getType().getNullable() && random.nextInt(4) == 0) {
        row.addValue(null);
        continue;
      }
      row.addValue(
          switch (f.getType().getTypeName()) {
            case STRING -> texts[random.nextInt(texts.length)];
            case BOOLEAN -> random.nextBoolean();
            case INT32 -> random.nextBoolean() ? random.nextInt() : random.nextInt(100) - 50;
            case INT64 -> random.nextBoolean() ? random.nextLong() : (long) random.nextInt(1000);
            case FLOAT -> random.nextFloat();
            case DOUBLE ->
                random.nextBoolean()
                    ? doubles[random.nextInt(doubles.length)] * (random.nextBoolean() ? 1 : -1)
                    : Math.round(random.nextDouble() * 1e6) / 100.0;
            case DATETIME -> new Instant(random.nextLong() % 4_000_000_000_000L);
            default -> throw new AssertionError(f + " has a type the test does not make");
          });
    }
    return row.build();
  }

  /** The same value in each field (an instant by its milliseconds, whatever its class). */
  public static void assertSameValues(Schema schema, Row actual, Row expected) {
    assertThat(actual).isNotNull();
    for (int i = 0; i < schema.getFieldCount(); i++) {
      Object a = actual.getValue(i);
      Object e = expected.getValue(i);
      if (a instanceof ReadableInstant at && e instanceof ReadableInstant et) {
        assertThat(at.getMillis()).as(schema.getField(i).getName()).isEqualTo(et.getMillis());
      } else {
        assertThat(a).as(schema.getField(i).getName()).isEqualTo(e);
      }
    }
  }
}
