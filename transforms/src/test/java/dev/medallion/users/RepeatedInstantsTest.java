package dev.medallion.users;

import static dev.medallion.users.RepeatedInstants.hash;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.testing.CoderProperties;
import org.apache.beam.sdk.testing.CombineFnTester;
import org.apache.beam.sdk.util.CoderUtils;
import org.junit.jupiter.api.Test;

class RepeatedInstantsTest {
  private static final RepeatedInstants.Find FIND = new RepeatedInstants.Find();

  @Test
  void anInstantSeenTwiceIsRepeatedAndOneSeenOnceIsNot() {
    List<Long> seen =
        new ArrayList<>(
            List.of(
                hash("u-1", 1000L),
                hash("u-2", 1000L), // another user at the same instant
                hash("u-1", 1001L), // the same user a millisecond later
                hash("u-3", 5L),
                hash("u-1", 1000L),
                hash("u-3", 5L),
                hash("u-3", 5L)));
    // In every split and merge order the combine can take.
    CombineFnTester.testCombineFn(
        FIND, seen, RepeatedInstants.of(hash("u-1", 1000L), hash("u-3", 5L)));
    RepeatedInstants repeated = FIND.apply(seen);
    assertThat(repeated.size()).isEqualTo(2);
    assertThat(repeated.contains("u-1", 1000L)).isTrue();
    assertThat(repeated.contains("u-3", 5L)).isTrue();
    assertThat(repeated.contains("u-2", 1000L)).isFalse();
    assertThat(repeated.contains("u-1", 1001L)).isFalse();
  }

  @Test
  void nothingIsRepeatedInNothingOrInDistinctInstants() {
    CombineFnTester.testCombineFn(FIND, new ArrayList<>(), RepeatedInstants.of());
    List<Long> distinct = new ArrayList<>();
    for (int user = 0; user < 300; user++) {
      for (long millis = 0; millis < 300; millis++) {
        distinct.add(hash("u-" + user, millis));
      }
    }
    assertThat(FIND.apply(distinct).size()).as("90,000 distinct instants, no collision").isZero();
  }

  @Test
  void theHashTellsUsersAndInstantsApart() {
    assertThat(hash("ab", 1L)).isNotEqualTo(hash("ba", 1L));
    assertThat(hash("u", 1L)).isNotEqualTo(hash("u", 2L));
    assertThat(hash("u", 1L)).isEqualTo(hash("u", 1L));
    assertThat(hash("", 0L)).isNotEqualTo(hash("", -1L));
  }

  @Test
  void theCodersRoundTrip() throws Exception {
    CoderProperties.coderDecodeEncodeEqual(
        new RepeatedInstants.RepeatedInstantsCoder(), RepeatedInstants.of(3L, -7L, 3L));
    CoderProperties.coderDecodeEncodeEqual(
        new RepeatedInstants.RepeatedInstantsCoder(), RepeatedInstants.of());
    RepeatedInstants.Hashes hashes = FIND.createAccumulator();
    for (long h = 0; h < 100; h++) {
      FIND.addInput(hashes, h % 40);
    }
    RepeatedInstants.HashesCoder coder = new RepeatedInstants.HashesCoder();
    RepeatedInstants.Hashes decoded =
        CoderUtils.decodeFromByteArray(coder, CoderUtils.encodeToByteArray(coder, hashes));
    assertThat(FIND.extractOutput(decoded)).isEqualTo(FIND.extractOutput(hashes));
    assertThat(FIND.extractOutput(decoded).size()).isEqualTo(40);
  }
}
