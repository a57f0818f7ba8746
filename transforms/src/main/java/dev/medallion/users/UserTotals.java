package dev.medallion.users;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.MapCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.transforms.Combine;

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

  /** Totals of parts of the users' events merged into the totals of all of them. */
  static final class Merged
      extends Combine.CombineFn<
          Map<String, UserTotals>, Map<String, UserTotals>, Map<String, UserTotals>> {
    private final PerUser perUser = new PerUser();

    @Override
    public Map<String, UserTotals> createAccumulator() {
      return perUser.createAccumulator();
    }

    @Override
    public Map<String, UserTotals> addInput(
        Map<String, UserTotals> acc, Map<String, UserTotals> part) {
      return perUser.mergeAccumulators(List.of(acc, part));
    }

    @Override
    public Map<String, UserTotals> mergeAccumulators(Iterable<Map<String, UserTotals>> accs) {
      return perUser.mergeAccumulators(accs);
    }

    @Override
    public Map<String, UserTotals> extractOutput(Map<String, UserTotals> acc) {
      return acc;
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
