package dev.medallion.users;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.schemas.SchemaRegistry;
import org.apache.beam.sdk.testing.CoderProperties;
import org.apache.beam.sdk.util.CoderUtils;
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
