package dev.medallion.users;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;

/**
 * Silver's dedupe decision: of the events with the same {@code (user_id, event_timestamp)} instant,
 * across all files and runs, the first ingested copy (earliest ingest time, then file name, then
 * line) is kept; this outputs every later copy's {@link Copy#id() id} with the source of the copy
 * kept. Only the events' identities ({@link Copy}, keyed by bucket of users) are shuffled, never
 * the events; {@link DropLaterCopies} applies the decision.
 */
public class FindLaterCopies
    extends PTransform<
        PCollection<KV<Integer, FindLaterCopies.Copy>>, PCollection<KV<String, String>>> {

  /** The identities' coder, keyed by bucket: set it on the input. */
  static final KvCoder<Integer, Copy> IDENTITY_CODER =
      KvCoder.of(VarIntCoder.of(), new CopyCoder());

  @Override
  public PCollection<KV<String, String>> expand(PCollection<KV<Integer, Copy>> identities) {
    return identities
        .apply("GroupByUserBucket", GroupByKey.create())
        .apply("LaterCopies", ParDo.of(new LaterCopiesFn()))
        .setCoder(KvCoder.of(StringUtf8Coder.of(), StringUtf8Coder.of()));
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

    /** Keyed by its user's bucket. */
    KV<Integer, Copy> keyed() {
      return KV.of(UserBuckets.of(userId), this);
    }

    /** The row's identity: one Bronze row per ingest time, file and line. */
    String id() {
      return id(ingestMillis, sourceFile, line);
    }

    static String id(long ingestMillis, String sourceFile, long line) {
      return ingestMillis + "|" + line + "|" + sourceFile;
    }

    static String id(UserEvent e) {
      return id(e.getIngestTs().getMillis(), e.getSourceFile(), e.getLineNumber());
    }
  }

  /** The first ingested copy first: earliest ingest time (one per run), then file, then line. */
  static final Comparator<Copy> FIRST =
      Comparator.<Copy>comparingLong(c -> c.ingestMillis)
          .thenComparing(c -> c.sourceFile)
          .thenComparingLong(c -> c.line);

  /** Within a bucket of users: each later copy's id → the source of the copy kept. */
  static class LaterCopiesFn extends DoFn<KV<Integer, Iterable<Copy>>, KV<String, String>> {
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
        }
      }
      for (Object v : seen.values()) {
        if (v instanceof List<?> copies) {
          @SuppressWarnings("unchecked")
          List<Copy> all = (List<Copy>) copies;
          all.sort(FIRST);
          Copy first = all.get(0);
          Set<String> said = new HashSet<>(List.of(first.id()));
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
