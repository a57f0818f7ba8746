package dev.medallion.users;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.schemas.SchemaCoder;
import org.apache.beam.sdk.schemas.SchemaRegistry;
import org.apache.beam.sdk.testing.CoderProperties;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.beam.sdk.values.Row;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * The events' own coders give back every field as it was, null or not, and are schema coders of the
 * types' own schemas (so the table writers and every schema-aware step see the same rows).
 */
class UserEventCodersTest {
  private final Random random = new Random(5);

  private @Nullable String maybe(String s) {
    return random.nextInt(3) == 0 ? null : s + random.nextInt(1000);
  }

  private UserEventBronze bronze() {
    return new AutoValue_UserEventBronze(
        maybe("u-"),
        maybe("click"),
        random.nextBoolean() ? null : new Instant(1_795_000_000_000L + random.nextInt()),
        maybe("2026-11-"),
        "{\"user_id\":\"ü–€ " + random.nextInt() + "\"}",
        "file:/in/a.ndjson#" + random.nextInt(100),
        "/in/a.ndjson",
        random.nextLong(),
        new Instant(random.nextLong() >>> 20),
        "2026-12-04",
        random.nextInt(),
        maybe("e-"),
        maybe("s-"),
        maybe("p-"),
        random.nextBoolean() ? null : random.nextDouble() * 1e6 - 5e5,
        maybe("mobile"),
        maybe("DE"),
        maybe("price:string"),
        maybe("{\"feature_hash\":"));
  }

  private UserEvent silver() {
    return UserEvent.builder()
        .setEventId(maybe("e-"))
        .setUserId("u-" + random.nextInt(100))
        .setEventType("view")
        .setEventTimestamp(new Instant(-random.nextInt(1000)))
        .setEventDate("1969-12-31")
        .setSessionId(maybe("s-"))
        .setProductId(maybe("p-"))
        .setPrice(random.nextBoolean() ? null : -0.0)
        .setDevice(maybe("tablet"))
        .setCountry(maybe("FR"))
        .setInvalidFields(maybe("price"))
        .setRawLine("line " + random.nextInt() + " \uD83D\uDE00")
        .setSource("kafka:t/0#" + random.nextInt())
        .setSourceFile("")
        .setLineNumber(random.nextInt())
        .setIngestTs(new Instant(random.nextLong() >>> 20))
        .setExtra(maybe("{}"))
        .build();
  }

  @Test
  void everyFieldComesBackNullOrNot() throws Exception {
    for (int i = 0; i < 500; i++) {
      UserEventBronze b = bronze();
      CoderProperties.coderDecodeEncodeEqual(UserEventCoders.bronze(), b);
      UserEvent s = silver();
      CoderProperties.coderDecodeEncodeEqual(UserEventCoders.silver(), s);
    }
    // And the same events through Beam's own coder: the same values.
    UserEventBronze b = bronze();
    assertThat(roundTrip(UserEventCoders.bronze(), b)).isEqualTo(b);
    assertThat(roundTrip(SchemaRegistry.createDefault().getSchemaCoder(UserEventBronze.class), b))
        .isEqualTo(b);
  }

  /**
   * Every field of the schema, set, comes back: a field added to an event but not to its coder
   * fails here (the hand-built events above name the fields the coders know).
   */
  @Test
  void everyFieldOfTheSchemaIsCoded() throws Exception {
    assertEveryFieldComesBack(UserEventCoders.bronze());
    assertEveryFieldComesBack(UserEventCoders.silver());
  }

  private <T> void assertEveryFieldComesBack(SchemaCoder<T> coder) throws Exception {
    Schema schema = coder.getSchema();
    Row.Builder row = Row.withSchema(schema);
    for (Schema.Field f : schema.getFields()) {
      row.addValue(
          switch (f.getType().getTypeName()) {
            case STRING -> f.getName() + "-" + random.nextInt(1000);
            case INT32 -> random.nextInt();
            case INT64 -> random.nextLong();
            case DOUBLE -> random.nextDouble();
            case DATETIME -> new Instant(random.nextInt());
            default -> throw new AssertionError("a field type the test does not fill: " + f);
          });
    }
    T value = coder.getFromRowFunction().apply(row.build());
    T back = roundTrip(coder, value);
    assertThat(coder.getToRowFunction().apply(back)).isEqualTo(row.build());
  }

  @Test
  void theyAreSchemaCodersOfTheTypesOwnSchemas() throws Exception {
    SchemaRegistry registry = SchemaRegistry.createDefault();
    assertThat(UserEventCoders.bronze().getSchema())
        .isEqualTo(registry.getSchema(UserEventBronze.class));
    assertThat(UserEventCoders.silver().getSchema()).isEqualTo(registry.getSchema(UserEvent.class));
    UserEvent s = silver();
    assertThat(UserEventCoders.silver().getToRowFunction().apply(s))
        .isEqualTo(registry.getToRowFunction(UserEvent.class).apply(s));
  }

  private static <T> T roundTrip(Coder<T> coder, T value) throws Exception {
    return CoderUtils.decodeFromByteArray(coder, CoderUtils.encodeToByteArray(coder, value));
  }
}
