package dev.medallion.users;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.util.CoderUtils;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * Totals kept as encoded parts ({@link UserTotals.MergedParts}, the DirectRunner's state) come out
 * as the totals of all the events added up at once: with more parts than are kept unmerged, and
 * from accumulators merged with each other.
 */
class UserTotalsTest {
  private static final String[] TYPES = {"click", "purchase", "view", "add_to_cart", "share"};
  private final Random random = new Random(11);
  private final UserTotals.PerUser perUser = new UserTotals.PerUser();
  private final UserTotals.MergedParts merged = new UserTotals.MergedParts();

  private UserEvent event() {
    return ComputeUserFeaturesTest.event(
        "u-" + random.nextInt(30),
        TYPES[random.nextInt(TYPES.length)],
        new Instant(1_795_000_000_000L + random.nextInt(1_000_000)));
  }

  @Test
  void partsComeOutAsTheTotalsOfAllTheirEvents() throws Exception {
    Map<String, UserTotals> all = perUser.createAccumulator();
    List<byte[]> parts = new ArrayList<>();
    int count = 3 * UserTotals.MergedParts.MAX_PARTS + 5;
    for (int p = 0; p < count; p++) {
      Map<String, UserTotals> part = perUser.createAccumulator();
      for (int i = 0; i < 20; i++) {
        UserEvent e = event();
        perUser.addInput(part, e);
        perUser.addInput(all, e);
      }
      parts.add(UserTotals.encode(part));
    }

    List<byte[]> one = merged.createAccumulator();
    for (byte[] part : parts) {
      one = merged.addInput(one, part);
      assertThat(one).hasSizeLessThanOrEqualTo(UserTotals.MergedParts.MAX_PARTS);
    }
    assertSameTotals(merged.extractOutput(one), all);

    List<byte[]> first = merged.createAccumulator();
    List<byte[]> second = merged.createAccumulator();
    for (int p = 0; p < count; p++) {
      if (p % 2 == 0) {
        first = merged.addInput(first, parts.get(p));
      } else {
        second = merged.addInput(second, parts.get(p));
      }
    }
    assertSameTotals(merged.extractOutput(merged.mergeAccumulators(List.of(first, second))), all);
  }

  /** The same users, each with totals that encode alike (every count, first and last event). */
  private static void assertSameTotals(Map<String, UserTotals> got, Map<String, UserTotals> want)
      throws Exception {
    assertThat(got.keySet()).isEqualTo(want.keySet());
    Coder<UserTotals> coder = new UserTotals.TotalsCoder();
    Map<String, String> gotBytes = new HashMap<>();
    Map<String, String> wantBytes = new HashMap<>();
    for (String user : want.keySet()) {
      gotBytes.put(
          user, new String(CoderUtils.encodeToByteArray(coder, got.get(user)), "ISO-8859-1"));
      wantBytes.put(
          user, new String(CoderUtils.encodeToByteArray(coder, want.get(user)), "ISO-8859-1"));
    }
    assertThat(gotBytes).isEqualTo(wantBytes);
  }
}
