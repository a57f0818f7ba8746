package dev.medallion.users;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.ByteArrayCoder;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.ListCoder;
import org.apache.beam.sdk.coders.MapCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.transforms.Combine;
import org.apache.beam.sdk.util.CoderUtils;

/**
 * What Gold needs of one user's events, added up: the count per event type, the count, and the
 * first and last event (its instant and type). A few numbers per user whatever the number of
 * events, so Gold combines them before any shuffle ({@link PerUser}) instead of grouping events.
 */
final class UserTotals {
  long clicks;
  long purchases;
  long views;
  long carts;
  long count;
  long firstMillis = Long.MAX_VALUE;
  long lastMillis = Long.MIN_VALUE;
  String lastType = "";

  void add(String eventType, long millis) {
    count++;
    switch (eventType) {
      case "click" -> clicks++;
      case "purchase" -> purchases++;
      case "view" -> views++;
      case "add_to_cart" -> carts++;
      default -> {}
    }
    firstMillis = Math.min(firstMillis, millis);
    if (millis > lastMillis) {
      lastMillis = millis;
      lastType = eventType;
    }
  }

  /** Adds another part of the same user's events (Silver has one event per instant: no tie). */
  void merge(UserTotals o) {
    clicks += o.clicks;
    purchases += o.purchases;
    views += o.views;
    carts += o.carts;
    count += o.count;
    firstMillis = Math.min(firstMillis, o.firstMillis);
    if (o.lastMillis > lastMillis) {
      lastMillis = o.lastMillis;
      lastType = o.lastType;
    }
  }

  /** The totals of each user of a bucket of users, from their events. */
  static final class PerUser
      extends Combine.CombineFn<UserEvent, Map<String, UserTotals>, Map<String, UserTotals>> {
    @Override
    public Map<String, UserTotals> createAccumulator() {
      return new HashMap<>();
    }

    @Override
    public Map<String, UserTotals> addInput(Map<String, UserTotals> acc, UserEvent e) {
      acc.computeIfAbsent(e.getUserId(), k -> new UserTotals())
          .add(e.getEventType(), e.getEventTimestamp().getMillis());
      return acc;
    }

    @Override
    public Map<String, UserTotals> mergeAccumulators(Iterable<Map<String, UserTotals>> accs) {
      Map<String, UserTotals> all = null;
      for (Map<String, UserTotals> acc : accs) {
        if (all == null) {
          all = acc;
          continue;
        }
        for (Map.Entry<String, UserTotals> u : acc.entrySet()) {
          UserTotals mine = all.putIfAbsent(u.getKey(), u.getValue());
          if (mine != null) {
            mine.merge(u.getValue());
          }
        }
      }
      return all == null ? createAccumulator() : all;
    }

    @Override
    public Map<String, UserTotals> extractOutput(Map<String, UserTotals> acc) {
      return acc;
    }

    @Override
    public Coder<Map<String, UserTotals>> getAccumulatorCoder(
        org.apache.beam.sdk.coders.CoderRegistry registry, Coder<UserEvent> input) {
      return CODER;
    }

    @Override
    public Coder<Map<String, UserTotals>> getDefaultOutputCoder(
        org.apache.beam.sdk.coders.CoderRegistry registry, Coder<UserEvent> input) {
      return CODER;
    }
  }

  /**
   * Totals of parts of the users' events, each part encoded ({@link #CODER}), merged into the
   * totals of all of them. The parts are kept as they come, encoded, and merged when there are more
   * than {@link #MAX_PARTS} of them and at the end: a runner that copies state whenever a bundle
   * reads it again (the DirectRunner, through the state's coder) then copies bytes, not every
   * user's totals object by object. With the totals themselves as the accumulator, that copy, once
   * per bucket and bundle of a state that grows with the users, made the DirectRunner's users job
   * grow faster than its input: 63 s at 2M events, 165 s at 4M (medians of 3, 2026-12-04 at {@code
   * 4b945a6}; JFR at 4M: 39 % of the samples copying the totals, 15 % at 2M).
   */
  static final class MergedParts
      extends Combine.CombineFn<byte[], List<byte[]>, Map<String, UserTotals>> {
    /** Parts kept unmerged before they are merged into one. */
    static final int MAX_PARTS = 16;

    private final PerUser perUser = new PerUser();

    @Override
    public List<byte[]> createAccumulator() {
      return new ArrayList<>();
    }

    @Override
    public List<byte[]> addInput(List<byte[]> acc, byte[] part) {
      acc.add(part);
      if (acc.size() > MAX_PARTS) {
        byte[] merged = encode(extractOutput(acc));
        acc.clear();
        acc.add(merged);
      }
      return acc;
    }

    @Override
    public List<byte[]> mergeAccumulators(Iterable<List<byte[]>> accs) {
      List<byte[]> all = createAccumulator();
      for (List<byte[]> acc : accs) {
        for (byte[] part : acc) {
          all = addInput(all, part);
        }
      }
      return all;
    }

    @Override
    public Map<String, UserTotals> extractOutput(List<byte[]> acc) {
      List<Map<String, UserTotals>> parts = new ArrayList<>(acc.size());
      for (byte[] part : acc) {
        parts.add(decode(part));
      }
      return perUser.mergeAccumulators(parts);
    }

    @Override
    public Coder<List<byte[]>> getAccumulatorCoder(
        org.apache.beam.sdk.coders.CoderRegistry registry, Coder<byte[]> input) {
      return PARTS_CODER;
    }
  }

  static final Coder<List<byte[]>> PARTS_CODER = ListCoder.of(ByteArrayCoder.of());

  /** A part's totals as bytes ({@link #CODER}). */
  static byte[] encode(Map<String, UserTotals> totals) {
    try {
      return CoderUtils.encodeToByteArray(CODER, totals);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Map<String, UserTotals> decode(byte[] part) {
    try {
      return CoderUtils.decodeFromByteArray(CODER, part);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static final Coder<Map<String, UserTotals>> CODER =
      MapCoder.of(StringUtf8Coder.of(), new TotalsCoder());

  /** The totals as eight values. */
  static final class TotalsCoder extends AtomicCoder<UserTotals> {
    private static final VarLongCoder LONG = VarLongCoder.of();
    private static final StringUtf8Coder STRING = StringUtf8Coder.of();

    @Override
    public void encode(UserTotals t, OutputStream out) throws IOException {
      LONG.encode(t.clicks, out);
      LONG.encode(t.purchases, out);
      LONG.encode(t.views, out);
      LONG.encode(t.carts, out);
      LONG.encode(t.count, out);
      LONG.encode(t.firstMillis, out);
      LONG.encode(t.lastMillis, out);
      STRING.encode(t.lastType, out);
    }

    @Override
    public UserTotals decode(InputStream in) throws IOException {
      UserTotals t = new UserTotals();
      t.clicks = LONG.decode(in);
      t.purchases = LONG.decode(in);
      t.views = LONG.decode(in);
      t.carts = LONG.decode(in);
      t.count = LONG.decode(in);
      t.firstMillis = LONG.decode(in);
      t.lastMillis = LONG.decode(in);
      t.lastType = STRING.decode(in);
      return t;
    }
  }
}
