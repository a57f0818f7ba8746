package dev.medallion.users;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.util.Arrays;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.CoderRegistry;
import org.apache.beam.sdk.transforms.Combine;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Which {@code (user_id, event_timestamp)} instants Silver's valid events hold more than once, as
 * 64-bit hashes: Silver's dedupe needs to look closer only at the events whose instant is in here
 * ({@link DropLaterCopies}), usually a few per cent of them. A hash says "maybe repeated": two
 * instants with the same hash are told apart by their exact key there, so a collision costs a
 * little work, never a wrong result.
 *
 * <p>Found with a {@code Combine} ({@link Find}) that both runners lift before their shuffle, so
 * what is shuffled and held is 8 bytes per event, not the events: at 4M events, 32 MB.
 */
public final class RepeatedInstants implements Serializable {
  private static final long serialVersionUID = 1L;

  private static final RepeatedInstants NONE = new RepeatedInstants(new long[0]);

  /** Sorted, each once. */
  private final long[] hashes;

  private RepeatedInstants(long[] sortedHashes) {
    this.hashes = sortedHashes;
  }

  /** These hashes as repeated (any order, repeats allowed). */
  static RepeatedInstants of(long... hashes) {
    long[] sorted = Arrays.stream(hashes).sorted().distinct().toArray();
    return sorted.length == 0 ? NONE : new RepeatedInstants(sorted);
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof RepeatedInstants r && Arrays.equals(hashes, r.hashes);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(hashes);
  }

  @Override
  public String toString() {
    return "RepeatedInstants" + Arrays.toString(hashes);
  }

  /** Whether the instant of this user may be held by more than one valid event. */
  public boolean contains(String userId, long millis) {
    return Arrays.binarySearch(hashes, hash(userId, millis)) >= 0;
  }

  /** How many instants (hashes) are repeated. */
  public int size() {
    return hashes.length;
  }

  /** A 64-bit hash of an instant of a user: FNV-1a over the id, mixed with the milliseconds. */
  static long hash(String userId, long millis) {
    long h = 0xcbf29ce484222325L;
    for (int i = 0; i < userId.length(); i++) {
      h = (h ^ userId.charAt(i)) * 0x100000001b3L;
    }
    return mix(h ^ mix(millis + 0x9e3779b97f4a7c15L));
  }

  /** SplitMix64's finaliser: every input bit reaches every output bit. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  /** The hashes, sorted and each once, seen more than once among the inputs. */
  static final class Find extends Combine.CombineFn<Long, Hashes, RepeatedInstants> {
    @Override
    public Hashes createAccumulator() {
      return new Hashes(new long[64], 0);
    }

    @Override
    public Hashes addInput(Hashes acc, Long hash) {
      acc.add(hash);
      return acc;
    }

    @Override
    public Hashes mergeAccumulators(Iterable<Hashes> accumulators) {
      int total = 0;
      for (Hashes a : accumulators) {
        total += a.size;
      }
      long[] all = new long[Math.max(total, 1)];
      int n = 0;
      for (Hashes a : accumulators) {
        System.arraycopy(a.values, 0, all, n, a.size);
        n += a.size;
      }
      return new Hashes(all, n);
    }

    @Override
    public RepeatedInstants extractOutput(Hashes acc) {
      long[] seen = Arrays.copyOf(acc.values, acc.size);
      Arrays.sort(seen);
      long[] repeated = new long[seen.length / 2];
      int n = 0;
      for (int i = 1; i < seen.length; i++) {
        boolean again = seen[i] == seen[i - 1];
        if (again && (n == 0 || repeated[n - 1] != seen[i])) {
          repeated[n++] = seen[i];
        }
      }
      return n == 0 ? NONE : new RepeatedInstants(Arrays.copyOf(repeated, n));
    }

    @Override
    public Coder<Hashes> getAccumulatorCoder(CoderRegistry registry, Coder<Long> inputCoder) {
      return new HashesCoder();
    }

    @Override
    public Coder<RepeatedInstants> getDefaultOutputCoder(
        CoderRegistry registry, Coder<Long> inputCoder) {
      return new RepeatedInstantsCoder();
    }
  }

  /** The hashes seen so far, in the order seen. */
  static final class Hashes {
    private long[] values;
    private int size;

    Hashes(long[] values, int size) {
      this.values = values;
      this.size = size;
    }

    void add(long hash) {
      if (size == values.length) {
        values = Arrays.copyOf(values, values.length * 2);
      }
      values[size++] = hash;
    }
  }

  static final class HashesCoder extends AtomicCoder<Hashes> {
    @Override
    public void encode(Hashes h, OutputStream out) throws IOException {
      writeLongs(h.values, h.size, out);
    }

    @Override
    public Hashes decode(InputStream in) throws IOException {
      long[] values = readLongs(in);
      return new Hashes(values.length == 0 ? new long[64] : values, values.length);
    }
  }

  static final class RepeatedInstantsCoder extends AtomicCoder<RepeatedInstants> {
    @Override
    public void encode(RepeatedInstants r, OutputStream out) throws IOException {
      writeLongs(r.hashes, r.hashes.length, out);
    }

    @Override
    public RepeatedInstants decode(InputStream in) throws IOException {
      long[] hashes = readLongs(in);
      return hashes.length == 0 ? NONE : new RepeatedInstants(hashes);
    }
  }

  private static void writeLongs(long[] values, int size, OutputStream out) throws IOException {
    DataOutputStream data = new DataOutputStream(out);
    data.writeInt(size);
    for (int i = 0; i < size; i++) {
      data.writeLong(values[i]);
    }
    data.flush();
  }

  private static long[] readLongs(InputStream in) throws IOException {
    DataInputStream data = new DataInputStream(in);
    int size = data.readInt();
    if (size < 0) {
      throw new IOException("a negative count of hashes: " + size);
    }
    long[] values = new long[size];
    for (int i = 0; i < size; i++) {
      values[i] = data.readLong();
    }
    return values;
  }
}
