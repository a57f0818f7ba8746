package dev.medallion.pipelines;

import dev.medallion.core.BundleCounter;
import dev.medallion.core.DeadLetter;
import dev.medallion.core.EventTimestamps;
import dev.medallion.core.Rejections;
import dev.medallion.iot.BronzeEvent;
import dev.medallion.iot.Heartbeat;
import dev.medallion.iot.IotMedallion;
import dev.medallion.iot.SensorReading;
import java.nio.charset.StandardCharsets;
import java.util.function.Function;
import org.apache.beam.sdk.io.kafka.KafkaRecord;
import org.apache.beam.sdk.schemas.NoSuchSchemaException;
import org.apache.beam.sdk.schemas.SchemaCoder;
import org.apache.beam.sdk.schemas.SchemaRegistry;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.DoFn.MultiOutputReceiver;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.values.PBegin;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.Row;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.TupleTagList;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * The rows a previous stage forwarded to a Kafka topic ({@link ForwardToKafka}), read back for the
 * next stage: Bronze rows for Silver ({@link #bronze}), Silver readings and heartbeats for Gold
 * ({@link #silver}). Each record becomes its row again, stamped with its event time ({@code
 * event_ts}); a record that is not such a row (written to the topic by something else) is a dead
 * letter of the reading stage ({@code not_a_bronze_row}, {@code not_a_silver_row}) whose source is
 * the record's topic, partition and offset, and the stage goes on.
 */
public final class ReadForwardedRows extends PTransform<PBegin, PCollectionTuple> {
  private final KafkaOptions options;
  private final String stage;

  private ReadForwardedRows(KafkaOptions options, String stage) {
    this.options = options;
    this.stage = stage;
  }

  /** Bronze rows ({@link IotMedallion#BRONZE}) for the Silver stage. */
  public static ReadForwardedRows bronze(KafkaOptions o) {
    return new ReadForwardedRows(o, DeadLetter.SILVER);
  }

  /**
   * Silver readings and heartbeats ({@link IotMedallion#READINGS}, {@code HEARTBEATS}) for Gold.
   */
  public static ReadForwardedRows silver(KafkaOptions o) {
    return new ReadForwardedRows(o, DeadLetter.GOLD);
  }

  @Override
  public PCollectionTuple expand(PBegin begin) {
    SchemaRegistry registry = begin.getPipeline().getSchemaRegistry();
    ParseFn fn =
        stage.equals(DeadLetter.SILVER)
            ? new ParseFn(stage, kind(registry, BronzeEvent.class, IotMedallion.BRONZE), null)
            : new ParseFn(
                stage,
                kind(registry, SensorReading.class, IotMedallion.READINGS),
                kind(registry, Heartbeat.class, IotMedallion.HEARTBEATS));
    TupleTagList others = TupleTagList.of(DeadLetter.TAG);
    if (fn.other != null) {
      others = others.and(fn.other.tag);
    }
    PCollectionTuple out =
        begin
            .apply("ReadKafka " + options.getInputTopic(), KafkaReads.of(options, stage))
            .apply("ToRows", ParDo.of(fn).withOutputTags(mainTag(fn), others));
    setCoder(out, fn.main, registry);
    if (fn.other != null) {
      setCoder(out, fn.other, registry);
    }
    return out;
  }

  @SuppressWarnings("unchecked") // the DoFn outputs several classes, each to its own tag
  static TupleTag<Object> mainTag(ParseFn fn) {
    return (TupleTag<Object>) fn.main.tag();
  }

  private static <T> void setCoder(PCollectionTuple out, Kind<T> kind, SchemaRegistry registry) {
    try {
      out.get(kind.tag).setCoder(registry.getSchemaCoder(kind.type));
    } catch (NoSuchSchemaException e) {
      throw new IllegalStateException(e);
    }
  }

  static <T> Kind<T> kind(SchemaRegistry registry, Class<T> type, TupleTag<T> tag) {
    try {
      SchemaCoder<T> coder = registry.getSchemaCoder(type);
      return new Kind<>(type, tag, RowJsonCodec.of(coder.getSchema()), coder.getFromRowFunction());
    } catch (NoSuchSchemaException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A kind of row on the topic: its class, output, JSON and conversion from a Beam row. */
  record Kind<T>(
      Class<T> type, TupleTag<T> tag, RowJsonCodec json, SerializableFunction<Row, T> fromRow)
      implements java.io.Serializable {
    /** The row {@code text} holds, out to its tag at its event time. */
    void output(String text, MultiOutputReceiver out, Function<T, Instant> eventTs) {
      T value = fromRow.apply(json.read(text));
      out.get(tag).outputWithTimestamp(value, eventTs.apply(value));
    }
  }

  /** Reads each record back into its row; {@code other}, when set, holds heartbeats. */
  static class ParseFn extends DoFn<KafkaRecord<byte[], byte[]>, Object> {
    private final BundleCounter read = new BundleCounter(Rejections.NAMESPACE, Progress.KAFKA_IN);
    private final String stage;
    final Kind<?> main;
    final @Nullable Kind<?> other;
    private final Rejections.Examples rejections = new Rejections.Examples();

    ParseFn(String stage, Kind<?> main, @Nullable Kind<?> other) {
      this.stage = stage;
      this.main = main;
      this.other = other;
    }

    @ProcessElement
    @SuppressWarnings("unchecked") // main and other are of the classes the stage chose
    public void process(@Element KafkaRecord<byte[], byte[]> r, MultiOutputReceiver out) {
      read.add();
      byte[] bytes = r.getKV().getValue();
      String json = bytes == null ? "" : new String(bytes, StandardCharsets.UTF_8);
      try {
        if (other == null) {
          ((Kind<BronzeEvent>) main).output(json, out, BronzeEvent::getEventTs);
        } else if (isReading(json)) {
          ((Kind<SensorReading>) main).output(json, out, SensorReading::getEventTs);
        } else {
          ((Kind<Heartbeat>) other).output(json, out, Heartbeat::getEventTs);
        }
      } catch (RuntimeException e) {
        String reason = stage.equals(DeadLetter.SILVER) ? "not_a_bronze_row" : "not_a_silver_row";
        DeadLetter letter =
            DeadLetter.of(
                stage,
                reason,
                "the record is not a row the previous stage forwards: "
                    + dev.medallion.core.Failures.oneLine(e),
                json,
                KafkaReads.sourceId(r.getTopic(), r.getPartition(), r.getOffset()),
                r.getTopic(),
                null,
                Instant.now());
        rejections.count(stage, letter);
        out.get(DeadLetter.TAG).output(letter);
      }
    }

    @FinishBundle
    public void finish() {
      read.flush();
      rejections.flush();
    }

    /** A Silver reading has a sensor type; a heartbeat has none (not even escaped in a payload). */
    private static boolean isReading(String json) {
      return json.contains("\"sensor_type\"");
    }

    /** Rows go back to their event time, earlier than their arrival. */
    @Override
    public Duration getAllowedTimestampSkew() {
      return EventTimestamps.ANY_EARLIER;
    }
  }
}
