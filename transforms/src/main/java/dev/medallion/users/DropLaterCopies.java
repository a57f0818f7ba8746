package dev.medallion.users;

import dev.medallion.core.DeadLetter;
import dev.medallion.core.Rejections;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.View;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.PCollectionView;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.TupleTagList;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Silver's dedupe: of the events with the same {@code (user_id, event_timestamp)} instant, across
 * all files and runs, the first ingested copy (earliest ingest time, then file name, then line) is
 * kept ({@link #KEPT}); the later copies go to {@link #LATER_COPIES} as {@code duplicate} dead
 * letters naming the kept copy.
 *
 * <p>Only the events' identities are shuffled ({@link Copy}: user, instant, ingest time, file,
 * line; grouped per bucket of users), never the events: the later copies found there (a few per
 * cent of the events) are a side input of a pass over the events, which drops them.
 */
public class DropLaterCopies extends PTransform<PCollection<UserEvent>, PCollectionTuple> {
  public static final TupleTag<UserEvent> KEPT = new TupleTag<>() {};
  public static final TupleTag<DeadLetter> LATER_COPIES = new TupleTag<>() {};

  private final String stage;

  DropLaterCopies(String stage) {
    this.stage = stage;
  }

  @Override
  public PCollectionTuple expand(PCollection<UserEvent> events) {
    PCollectionView<Map<String, String>> later =
        events
            .apply("CopyIdentities", ParDo.of(new ToCopyFn()))
            .setCoder(KvCoder.of(VarIntCoder.of(), new CopyCoder()))
            .apply("GroupByUserBucket", GroupByKey.create())
            .apply("FindLaterCopies", ParDo.of(new FindLaterCopiesFn()))
            .setCoder(KvCoder.of(StringUtf8Coder.of(), StringUtf8Coder.of()))
            .apply("AsMap", View.asMap());
    return events.apply(
        "DropThem",
        ParDo.of(new DropFn(later, stage))
            .withSideInputs(later)
            .withOutputTags(KEPT, TupleTagList.of(LATER_COPIES)));
  }

  /** What identifies an event and orders its copies. */
  static final class Copy {
    final String userId;
    final long millis;
    final long ingestMillis;
    final String sourceFile;
    final long line;
    final String source;

    Copy(
        String userId,
        long millis,
        long ingestMillis,
        String sourceFile,
        long line,
        String source) {
      this.userId = userId;
      this.millis = millis;
      this.ingestMillis = ingestMillis;
      this.sourceFile = sourceFile;
      this.line = line;
      this.source = source;
    }

    static Copy of(UserEvent e) {
      return new Copy(
          e.getUserId(),
          e.getEventTimestamp().getMillis(),
          e.getIngestTs().getMillis(),
          e.getSourceFile(),
          e.getLineNumber(),
          e.getSource());
    }

    /** The row's identity: one Bronze row per ingest time, file and line. */
    String id() {
      return id(ingestMillis, sourceFile, line);
    }

    static String id(long ingestMillis, String sourceFile, long line) {
      return ingestMillis + "|" + line + "|" + sourceFile;
    }
  }

  /** The first ingested copy first: earliest ingest time (one per run), then file, then line. */
  static final Comparator<Copy> FIRST =
      Comparator.<Copy>comparingLong(c -> c.ingestMillis)
          .thenComparing(c -> c.sourceFile)
          .thenComparingLong(c -> c.line);

  static class ToCopyFn extends DoFn<UserEvent, KV<Integer, Copy>> {
    @ProcessElement
    public void process(@Element UserEvent e, OutputReceiver<KV<Integer, Copy>> out) {
      out.output(KV.of(UserBuckets.of(e.getUserId()), Copy.of(e)));
    }
  }

  /** Within a bucket of users: each later copy's id → the source of the copy kept. */
  static class FindLaterCopiesFn extends DoFn<KV<Integer, Iterable<Copy>>, KV<String, String>> {
    @ProcessElement
    public void process(
        @Element KV<Integer, Iterable<Copy>> bucket, OutputReceiver<KV<String, String>> out) {
      Map<String, Object> seen = new HashMap<>();
      for (Copy c : bucket.getValue()) {
        String instant = c.userId + "|" + c.millis;
        Object before = seen.putIfAbsent(instant, c);
        if (before instanceof Copy first) {
          List<Copy> all = new ArrayList<>(2);
          all.add(first);
          all.add(c);
          seen.put(instant, all);
        } else if (before != null) {
          @SuppressWarnings("unchecked")
          List<Copy> all = (List<Copy>) before;
          all.add(c);
          seen.put(instant, all);
        }
      }
      for (Object v : seen.values()) {
        if (v instanceof List<?> copies) {
          @SuppressWarnings("unchecked")
          List<Copy> all = (List<Copy>) copies;
          all.sort(FIRST);
          Copy first = all.get(0);
          java.util.Set<String> said = new java.util.HashSet<>(List.of(first.id()));
          for (Copy later : all.subList(1, all.size())) {
            // A row held twice (the same ingest, file and line) is one row: never dropped.
            if (said.add(later.id())) {
              out.output(KV.of(later.id(), first.source));
            }
          }
        }
      }
    }
  }

  /** Keeps an event unless it is a later copy. */
  static class DropFn extends DoFn<UserEvent, UserEvent> {
    private final PCollectionView<Map<String, String>> later;
    private final Counter accepted;
    private final Counter duplicates;
    private transient @Nullable Map<String, String> laterInBundle;

    DropFn(PCollectionView<Map<String, String>> later, String stage) {
      this.later = later;
      this.accepted = Rejections.accepted(stage);
      this.duplicates = Metrics.counter(Rejections.NAMESPACE, stage + "_duplicates");
    }

    @StartBundle
    public void start() {
      laterInBundle = null;
    }

    @ProcessElement
    public void process(@Element UserEvent e, ProcessContext c, MultiOutputReceiver out) {
      if (laterInBundle == null) {
        // The DirectRunner builds the map anew on every call: once per bundle is enough (the
        // events are in the global window, so the side input is one map).
        laterInBundle = c.sideInput(later);
      }
      String kept =
          laterInBundle.get(
              Copy.id(e.getIngestTs().getMillis(), e.getSourceFile(), e.getLineNumber()));
      if (kept == null) {
        accepted.inc();
        out.get(KEPT).output(e);
        return;
      }
      duplicates.inc();
      out.get(LATER_COPIES)
          .output(
              DeadLetter.of(
                  DeadLetter.SILVER,
                  "duplicate",
                  "same user_id and event_timestamp instant as " + kept,
                  e.getRawLine(),
                  e.getSource(),
                  e.getSourceFile(),
                  e.getEventTimestamp(),
                  e.getIngestTs()));
    }
  }

  static final class CopyCoder extends AtomicCoder<Copy> {
    private static final StringUtf8Coder STRING = StringUtf8Coder.of();
    private static final VarLongCoder LONG = VarLongCoder.of();

    @Override
    public void encode(Copy c, OutputStream out) throws IOException {
      STRING.encode(c.userId, out);
      LONG.encode(c.millis, out);
      LONG.encode(c.ingestMillis, out);
      STRING.encode(c.sourceFile, out);
      LONG.encode(c.line, out);
      STRING.encode(c.source, out);
    }

    @Override
    public Copy decode(InputStream in) throws IOException {
      return new Copy(
          STRING.decode(in),
          LONG.decode(in),
          LONG.decode(in),
          STRING.decode(in),
          LONG.decode(in),
          STRING.decode(in));
    }
  }
}
