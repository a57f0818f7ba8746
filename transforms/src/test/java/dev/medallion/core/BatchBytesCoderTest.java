package dev.medallion.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.Random;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.CoderException;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.testing.CoderProperties;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.beam.sdk.util.SerializableUtils;
import org.apache.beam.sdk.values.KV;
import org.junit.jupiter.api.Test;

/**
 * A batch's bytes come back as they were, alone, as the last value of a {@code KV} (where Beam's
 * byte-array coder reads to the end of the stream), and one after another in a stream; equal
 * contents are one structural value; a stream cut short is an error, not a shorter batch.
 */
class BatchBytesCoderTest {
  private static final BatchBytesCoder CODER = BatchBytesCoder.of();

  private static byte[] bytes(int length, long seed) {
    byte[] b = new byte[length];
    new Random(seed).nextBytes(b);
    return b;
  }

  @Test
  void batchesOfEverySizeComeBackAsTheyWere() throws Exception {
    for (int length : new int[] {0, 1, 127, 128, 8191, 8192, 8193, 300_000}) {
      byte[] batch = bytes(length, length);
      byte[] encoded = CoderUtils.encodeToByteArray(CODER, batch);
      assertThat(encoded.length).isEqualTo(length + (length < 128 ? 1 : length < 16384 ? 2 : 3));
      assertThat(CoderUtils.decodeFromByteArray(CODER, encoded)).isEqualTo(batch);
      CoderProperties.coderDecodeEncodeEqual(CODER, batch);
      CoderProperties.structuralValueDecodeEncodeEqual(CODER, batch);
      CoderProperties.testByteCount(CODER, Coder.Context.NESTED, new byte[][] {batch});
      CoderProperties.testByteCount(CODER, Coder.Context.OUTER, new byte[][] {batch});
    }
  }

  @Test
  void aKeyedBatchIsCopiedWholeAndApart() throws Exception {
    KvCoder<String, byte[]> kv = KvCoder.of(StringUtf8Coder.of(), CODER);
    byte[] batch = bytes(200_000, 7);
    KV<String, byte[]> copy = CoderUtils.clone(kv, KV.of("dev-0001", batch));
    assertThat(copy.getKey()).isEqualTo("dev-0001");
    assertThat(copy.getValue()).isEqualTo(batch).isNotSameAs(batch);
  }

  @Test
  void batchesOneAfterAnotherInAStreamAreReadEachToItsEnd() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] first = bytes(10_000, 1);
    byte[] second = bytes(3, 2);
    CODER.encode(first, out);
    CODER.encode(second, out);
    ByteArrayInputStream in = new ByteArrayInputStream(out.toByteArray());
    assertThat(CODER.decode(in)).isEqualTo(first);
    assertThat(CODER.decode(in)).isEqualTo(second);
    assertThat(in.available()).isZero();
  }

  @Test
  void equalContentsAreOneStructuralValueAndTheCoderIsDeterministic() throws Exception {
    assertThat(CODER.structuralValue(new byte[] {1, 2, 3}))
        .isEqualTo(CODER.structuralValue(new byte[] {1, 2, 3}))
        .isNotEqualTo(CODER.structuralValue(new byte[] {1, 2, 4}));
    CODER.verifyDeterministic();
    assertThat(SerializableUtils.clone(CODER)).isSameAs(CODER);
  }

  @Test
  void aBatchCutShortIsAnError() throws Exception {
    byte[] encoded = CoderUtils.encodeToByteArray(CODER, bytes(1_000, 3));
    byte[] cut = java.util.Arrays.copyOf(encoded, 500);
    assertThatThrownBy(() -> CODER.decode(new ByteArrayInputStream(cut)))
        .isInstanceOf(java.io.EOFException.class);
    assertThatThrownBy(() -> CODER.encode(null, new ByteArrayOutputStream()))
        .isInstanceOf(CoderException.class);
  }
}
