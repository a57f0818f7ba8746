package dev.medallion.users;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.medallion.core.DeadLetter;
import dev.medallion.core.EventTimestamps;
import dev.medallion.core.InvalidRecordException;
import dev.medallion.core.Json;
import dev.medallion.core.Rejections;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.TupleTagList;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * Changes of data, as exports from operational databases carry them: a Bronze row whose record has
 * an {@code op} ({@code I}, {@code U} or {@code D}; Debezium's {@code c}, {@code r}, {@code u},
 * {@code d} too) and an {@code updated_at} is one version of the record with its key ({@code
 * --cdcKey}, e.g. {@code event_id}). Of a key's versions the latest wins (latest {@code
 * updated_at}, then the one ingested last): it goes on to Silver, unless it is a delete, which
 * removes the record. Every other version goes to {@link #REPLACED} as a Silver dead letter ({@code
 * cdc_superseded}, {@code cdc_deleted}: counted as {@code silver_user_replaced}, not as rejections;
 * or {@code invalid_op}, {@code missing_<key>}, {@code missing_updated_at}, {@code
 * invalid_updated_at}: rejections), so the counts still balance. Rows without an {@code op} are not
 * changes and pass through. The result depends only on the rows, not on their order, so both of the
 * batch job's reads of Bronze resolve alike.
 */
public class ResolveChanges extends PTransform<PCollection<UserEventBronze>, PCollectionTuple> {
  public static final TupleTag<UserEventBronze> CURRENT = new TupleTag<>() {};
  public static final TupleTag<DeadLetter> REPLACED = new TupleTag<>() {};

  private static final TupleTag<KV<String, UserEventBronze>> CHANGES = new TupleTag<>() {};

  private final String key;
  private final boolean counted;

  private ResolveChanges(String key, boolean counted) {
    this.key = key;
    this.counted = counted;
  }

  /**
   * Changes keyed by the record field {@code key} (a Bronze column, or a field of {@code extra}).
   */
  public static ResolveChanges byKey(String key) {
    return new ResolveChanges(key, true);
  }

  /** The same, for a second read of the same rows: its replaced rows are not counted again. */
  public ResolveChanges again() {
    return new ResolveChanges(key, false);
  }

  @Override
  public PCollectionTuple expand(PCollection<UserEventBronze> bronze) {
    PCollectionTuple split =
        bronze.apply(
            "SplitChanges",
            ParDo.of(new SplitFn(key, counted))
                .withOutputTags(CURRENT, TupleTagList.of(CHANGES).and(REPLACED)));
    PCollectionTuple resolved =
        split
            .get(CHANGES)
            .setCoder(KvCoder.of(StringUtf8Coder.of(), bronze.getCoder()))
            .apply("VersionsByKey", GroupByKey.create())
            .apply(
                "LatestVersion",
                ParDo.of(new LatestFn(key, counted))
                    .withOutputTags(CURRENT, TupleTagList.of(REPLACED)));
    PCollection<UserEventBronze> current =
        PCollectionList.of(split.get(CURRENT).setCoder(bronze.getCoder()))
            .and(resolved.get(CURRENT).setCoder(bronze.getCoder()))
            .apply("CurrentRows", Flatten.pCollections());
    PCollection<DeadLetter> replaced =
        PCollectionList.of(split.get(REPLACED))
            .and(resolved.get(REPLACED))
            .apply("ReplacedRows", Flatten.pCollections());
    return PCollectionTuple.of(CURRENT, current).and(REPLACED, replaced);
  }

  /** What makes a Bronze row a change: its op (upper case), its key and its updated_at. */
  record Change(UserEventBronze row, String op, String key, Instant updatedAt) {
    boolean isDelete() {
      return op.equals("D");
    }

    /**
     * The row as a change, its {@code extra} parsed once; null when it has no {@code op}.
     *
     * @throws InvalidRecordException {@code invalid_op}, {@code missing_<key>}, {@code
     *     missing_updated_at} or {@code invalid_updated_at}
     */
    static @Nullable Change of(UserEventBronze b, String keyField) {
      String extraText = b.getExtra();
      if (extraText == null || !extraText.contains("\"op\"")) {
        return null;
      }
      ObjectNode extra = Json.parseObject(extraText);
      JsonNode opNode = extra.get("op");
      if (opNode == null || opNode.isNull()) {
        return null;
      }
      String op = opNode.asText().toUpperCase(Locale.ROOT);
      if (!OPS.contains(op)) {
        throw new InvalidRecordException(
            "invalid_op", "op \"" + opNode.asText() + "\" is not I, U or D (or c, r, u, d)");
      }
      return new Change(
          b, op.equals("C") || op.equals("R") ? "I" : op, keyOf(b, extra, keyField), at(extra));
    }

    private static Instant at(ObjectNode extra) {
      JsonNode v = extra.get("updated_at");
      if (v == null || v.isNull()) {
        throw new InvalidRecordException(
            "missing_updated_at", "a change (op) needs updated_at to be ordered");
      }
      try {
        return EventTimestamps.parse(v, "updated_at");
      } catch (InvalidRecordException e) {
        throw new InvalidRecordException("invalid_updated_at", e.getMessage());
      }
    }

    private static String keyOf(UserEventBronze b, ObjectNode extra, String key) {
      String v =
          switch (key) {
            case "event_id" -> b.getEventId();
            case "user_id" -> b.getUserId();
            case "session_id" -> b.getSessionId();
            case "product_id" -> b.getProductId();
            default -> {
              JsonNode n = extra.get(key);
              yield n == null || n.isNull() ? null : n.asText();
            }
          };
      if (v == null || v.isBlank()) {
        throw new InvalidRecordException("missing_" + key, "a change (op) needs its key " + key);
      }
      return v;
    }
  }

  private static final List<String> OPS = List.of("I", "U", "D", "C", "R");

  /** Versions in the order they happened: updated_at, then the order they were ingested in. */
  static final Comparator<Change> ORDER =
      Comparator.comparing(Change::updatedAt)
          .thenComparing(c -> c.row().getIngestTs())
          .thenComparing(c -> c.row().getSourceFile())
          .thenComparingLong(c -> c.row().getLineNumber());

  /** Passes rows that are no change; keys the changes; sends a change it cannot use away. */
  static class SplitFn extends DoFn<UserEventBronze, UserEventBronze> {
    private final String key;
    private final boolean counted;
    private final Rejections.Examples rejections = new Rejections.Examples();

    SplitFn(String key, boolean counted) {
      this.key = key;
      this.counted = counted;
    }

    @ProcessElement
    public void process(@Element UserEventBronze b, MultiOutputReceiver out) {
      try {
        Change change = Change.of(b, key);
        if (change == null) {
          out.get(CURRENT).output(b);
        } else {
          out.get(CHANGES).output(KV.of(change.key(), b));
        }
      } catch (InvalidRecordException e) {
        DeadLetter letter = letter(b, e.getReason(), e.getMessage());
        if (counted) {
          rejections.count(CleanUserEvents.STAGE, letter);
        }
        out.get(REPLACED).output(letter);
      }
    }

    @FinishBundle
    public void finishBundle() {
      rejections.flush();
    }
  }

  /** The latest version of one key, or its delete; every other version away. */
  static class LatestFn extends DoFn<KV<String, Iterable<UserEventBronze>>, UserEventBronze> {
    private static final org.apache.beam.sdk.metrics.Counter REPLACED_ROWS =
        org.apache.beam.sdk.metrics.Metrics.counter(
            Rejections.NAMESPACE, CleanUserEvents.STAGE + "_replaced");

    private final String key;
    private final boolean counted;

    LatestFn(String key, boolean counted) {
      this.key = key;
      this.counted = counted;
    }

    @ProcessElement
    public void process(
        @Element KV<String, Iterable<UserEventBronze>> versions, MultiOutputReceiver out) {
      List<Change> all = new ArrayList<>();
      for (UserEventBronze b : versions.getValue()) {
        all.add(Change.of(b, key)); // SplitFn let only valid changes through
      }
      all.sort(ORDER);
      Change latest = all.get(all.size() - 1);
      boolean deleted = latest.isDelete();
      for (Change c : all) {
        if (c != latest || deleted) {
          String reason = deleted ? "cdc_deleted" : "cdc_superseded";
          String why =
              (c == latest ? "the delete of " : (deleted ? "deleted by " : "replaced by "))
                  + key
                  + " "
                  + versions.getKey()
                  + (c == latest ? "" : " at " + latest.row().getSource())
                  + " (updated_at "
                  + latest.updatedAt()
                  + ")";
          if (counted) {
            REPLACED_ROWS.inc(); // not a rejection: the record has a later version
          }
          out.get(REPLACED).output(letter(c.row(), reason, why));
        }
      }
      if (!deleted) {
        out.get(CURRENT).output(latest.row());
      }
    }
  }

  private static DeadLetter letter(UserEventBronze b, String reason, String detail) {
    return DeadLetter.of(
        DeadLetter.SILVER,
        reason,
        detail,
        b.getRawLine(),
        b.getSource(),
        b.getSourceFile(),
        b.getEventTimestamp(),
        b.getIngestTs());
  }
}
