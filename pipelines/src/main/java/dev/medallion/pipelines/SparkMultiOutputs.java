package dev.medallion.pipelines;

import dev.medallion.core.CoderInRuns;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import org.apache.beam.runners.spark.metrics.MetricsAccumulator;
import org.apache.beam.runners.spark.translation.BoundedDataset;
import org.apache.beam.runners.spark.translation.EvaluationContext;
import org.apache.beam.runners.spark.translation.MultiDoFnFunction;
import org.apache.beam.runners.spark.translation.TransformEvaluator;
import org.apache.beam.runners.spark.translation.TranslationUtils;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.reflect.DoFnSignature;
import org.apache.beam.sdk.transforms.reflect.DoFnSignatures;
import org.apache.beam.sdk.util.VarInt;
import org.apache.beam.sdk.util.construction.PTransformTranslation;
import org.apache.beam.sdk.util.construction.ParDoTranslation;
import org.apache.beam.sdk.util.construction.SplittableParDoNaiveBounded;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.beam.sdk.values.WindowedValues;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.storage.StorageLevel;
import org.checkerframework.checker.nullness.qual.Nullable;
import scala.Tuple2;

/**
 * Keeps the outputs of a batch job's multi-output step as packed bytes, and lets each reader decode
 * only its own output.
 *
 * <p>A step with two outputs that later steps read (rows and dead letters: Bronze's parse, Silver's
 * checks) is run once and kept by Beam's Spark runner, so that each reader does not run it again.
 * With a storage level other than {@code MEMORY_ONLY} (Medallion's is {@code DISK_ONLY}) the runner
 * keeps each element as an object holding its encoded bytes, written with Java serialization, and
 * every reader reads back, deserializes and decodes every element of every output before it keeps
 * the ones of its own: the quarantine's writer decoded all 2M Bronze rows to find its 10k dead
 * letters. In a profile of {@code users} at 2M events on {@code local[2]}, that reading back was a
 * third of the job's CPU samples and the writing a tenth.
 *
 * <p>Here each element is encoded once with its output's coder into chunks of about {@link
 * #CHUNK_BYTES} (output index, length, bytes), the chunks are kept at the job's storage level, and
 * each reader skips the other outputs' elements by their length and decodes only its own. What is
 * run and kept, and when, is as before: the step runs once per part of its input. A value coder
 * that can write its values in runs ({@link CoderInRuns}) writes an output's repeated text once per
 * chunk ({@link #forOneChunk}).
 *
 * <p>The runner's translator of {@code ParDo} is wrapped (its table is private: reached by
 * reflection, as {@link SparkStageNames} does); the wrapper hands every other case to it unchanged:
 * one output read, a stateful or splittable {@code DoFn}, the level {@code MEMORY_ONLY} (where the
 * runner keeps the objects themselves).
 */
final class SparkMultiOutputs {
  private SparkMultiOutputs() {}

  /**
   * The size a chunk of packed elements grows to before the next one starts: under half of G1's
   * smallest region (1 MiB), so that a chunk is not a humongous object there.
   */
  static final int CHUNK_BYTES = 256 << 10;

  /**
   * Wraps the runner's {@code ParDo} translator in {@code translators} (the runner's table, before
   * {@link SparkStageNames} wraps each entry: a named entry was installed already).
   */
  static void install(Map<String, TransformEvaluator<?>> translators) {
    translators.computeIfPresent(
        PTransformTranslation.PAR_DO_TRANSFORM_URN,
        (urn, t) ->
            t instanceof Translator<?, ?> || t instanceof SparkStageNames.Named<?> ? t : wrap(t));
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static TransformEvaluator<?> wrap(TransformEvaluator<?> runners) {
    return new Translator(runners);
  }

  /** The runner's {@code ParDo} translator, with multi-output steps kept packed. */
  static final class Translator<InputT, OutputT>
      implements TransformEvaluator<ParDo.MultiOutput<InputT, OutputT>> {
    private static final long serialVersionUID = 1L;
    private final TransformEvaluator<ParDo.MultiOutput<InputT, OutputT>> runners;

    Translator(TransformEvaluator<ParDo.MultiOutput<InputT, OutputT>> runners) {
      this.runners = runners;
    }

    @Override
    public void evaluate(ParDo.MultiOutput<InputT, OutputT> transform, EvaluationContext context) {
      Map<TupleTag<?>, PCollection<?>> read = readOutputs(transform, context);
      StorageLevel level = StorageLevel.fromString(context.storageLevel());
      DoFnSignature signature = DoFnSignatures.signatureForDoFn(transform.getFn());
      boolean plain =
          signature.stateDeclarations().isEmpty()
              && signature.timerDeclarations().isEmpty()
              && signature.timerFamilyDeclarations().isEmpty()
              && !signature.processElement().isSplittable()
              && signature.onWindowExpiration() == null
              && !(transform.getFn() instanceof SplittableParDoNaiveBounded.NaiveProcessFn);
      if (read.size() < 2 || !plain || level.equals(StorageLevel.MEMORY_ONLY())) {
        runners.evaluate(transform, context);
        return;
      }
      translatePacked(transform, context, read, level);
    }

    @SuppressWarnings("unchecked")
    private void translatePacked(
        ParDo.MultiOutput<InputT, OutputT> transform,
        EvaluationContext context,
        Map<TupleTag<?>, PCollection<?>> read,
        StorageLevel level) {
      JavaRDD<WindowedValue<InputT>> in =
          ((BoundedDataset<InputT>) context.borrowDataset(transform)).getRDD();
      PCollection<InputT> input = (PCollection<InputT>) context.getInput(transform);
      MultiDoFnFunction<InputT, OutputT> run =
          new MultiDoFnFunction<>(
              MetricsAccumulator.getInstance(),
              context.getCurrentTransform().getFullName(),
              transform.getFn(),
              context.getSerializableOptions(),
              transform.getMainOutputTag(),
              transform.getAdditionalOutputTags().getAll(),
              input.getCoder(),
              context.getOutputCoders(),
              TranslationUtils.getSideInputs(
                  transform.getSideInputs().values(),
                  context.getSparkContext(),
                  context.getPViews()),
              input.getWindowingStrategy(),
              false,
              ParDoTranslation.getSchemaInformation(context.getCurrentTransform()),
              ParDoTranslation.getSideInputMapping(context.getCurrentTransform()),
              false,
              context.isStreamingSideInput());
      List<TupleTag<?>> tags = new ArrayList<>(read.keySet());
      Map<TupleTag<?>, Coder<WindowedValue<?>>> coders = TranslationUtils.getTupleTagCoders(read);
      List<Coder<WindowedValue<?>>> inOrder = new ArrayList<>();
      for (TupleTag<?> tag : tags) {
        inOrder.add(coders.get(tag));
      }
      JavaPairRDD<TupleTag<?>, WindowedValue<?>> all = in.mapPartitionsToPair(run);
      JavaRDD<byte[]> packed = all.mapPartitions(new Pack(tags, inOrder)).persist(level);
      for (int i = 0; i < tags.size(); i++) {
        JavaRDD<WindowedValue<Object>> values =
            packed.mapPartitions(new Unpack<>(i, (Coder) inOrder.get(i)));
        context.putDataset(read.get(tags.get(i)), dataset(values));
      }
    }

    /**
     * The outputs some step reads: as the runner decides it, every output but an additional one no
     * step reads (the main output always counts).
     */
    private static Map<TupleTag<?>, PCollection<?>> readOutputs(
        ParDo.MultiOutput<?, ?> transform, EvaluationContext context) {
      Map<TupleTag<?>, PCollection<?>> outputs = context.getOutputs(transform);
      Map<TupleTag<?>, PCollection<?>> read = new LinkedHashMap<>();
      for (Map.Entry<TupleTag<?>, PCollection<?>> e : outputs.entrySet()) {
        if (e.getKey().equals(transform.getMainOutputTag()) || !context.isLeaf(e.getValue())) {
          read.put(e.getKey(), e.getValue());
        }
      }
      return read;
    }

    @Override
    public String toNativeString() {
      return runners.toNativeString();
    }
  }

  private static @Nullable Constructor<?> datasetConstructor;

  /** The runner's dataset of an RDD (its constructor is not public). */
  private static synchronized BoundedDataset<Object> dataset(JavaRDD<WindowedValue<Object>> rdd) {
    try {
      if (datasetConstructor == null) {
        Constructor<?> c = BoundedDataset.class.getDeclaredConstructor(JavaRDD.class);
        c.setAccessible(true);
        datasetConstructor = c;
      }
      @SuppressWarnings("unchecked")
      BoundedDataset<Object> dataset = (BoundedDataset<Object>) datasetConstructor.newInstance(rdd);
      return dataset;
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("Beam's Spark runner has no BoundedDataset(JavaRDD)", e);
    }
  }

  /**
   * The coder of one chunk's elements of an output: where the values' coder can write them in runs
   * ({@link CoderInRuns}: Bronze's events, Silver's readings and heartbeats), the text they repeat
   * is written once per chunk and output; otherwise {@code coder} itself. A chunk's elements of one
   * output are encoded, and decoded by that output's reader, in the same order.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  static <W> Coder<W> forOneChunk(Coder<W> coder) {
    if (coder instanceof WindowedValues.WindowedValueCoder<?> windowed
        && windowed.getValueCoder() instanceof CoderInRuns<?> runs) {
      return (Coder) windowed.withValueCoder(runs.forOneRun());
    }
    return coder;
  }

  /** A part's elements, each as (output index, length, encoded bytes), in chunks. */
  static final class Pack
      implements FlatMapFunction<Iterator<Tuple2<TupleTag<?>, WindowedValue<?>>>, byte[]> {
    private static final long serialVersionUID = 1L;
    private final List<TupleTag<?>> tags;
    private final List<Coder<WindowedValue<?>>> coders;

    Pack(List<TupleTag<?>> tags, List<Coder<WindowedValue<?>>> coders) {
      this.tags = tags;
      this.coders = coders;
    }

    @Override
    public Iterator<byte[]> call(Iterator<Tuple2<TupleTag<?>, WindowedValue<?>>> elements) {
      Map<TupleTag<?>, Integer> index = new HashMap<>();
      for (int i = 0; i < tags.size(); i++) {
        index.put(tags.get(i), i);
      }
      return new Iterator<>() {
        private final ChunkOutput element = new ChunkOutput(1 << 10);
        private final ChunkOutput chunk = new ChunkOutput(CHUNK_BYTES + (64 << 10));
        // Each output's coder of this chunk (forOneChunk), made at its first element.
        private final List<@Nullable Coder<WindowedValue<?>>> inChunk =
            new ArrayList<>(Collections.nCopies(coders.size(), null));

        @Override
        public boolean hasNext() {
          return elements.hasNext();
        }

        @Override
        public byte[] next() {
          if (!elements.hasNext()) {
            throw new NoSuchElementException();
          }
          chunk.reset();
          Collections.fill(inChunk, null);
          try {
            while (elements.hasNext() && chunk.size() < CHUNK_BYTES) {
              Tuple2<TupleTag<?>, WindowedValue<?>> e = elements.next();
              Integer i = index.get(e._1());
              if (i == null) {
                continue; // an output no step reads
              }
              element.reset();
              Coder<WindowedValue<?>> coder = inChunk.get(i);
              if (coder == null) {
                coder = forOneChunk(coders.get(i));
                inChunk.set(i, coder);
              }
              coder.encode(e._2(), element);
              VarInt.encode(i, chunk);
              VarInt.encode(element.size(), chunk);
              element.writeTo(chunk);
            }
          } catch (IOException ex) {
            throw new UncheckedIOException(ex);
          }
          return chunk.toByteArray();
        }
      };
    }
  }

  /** One output's elements, decoded from the packed chunks; the others' skipped. */
  static final class Unpack<T> implements FlatMapFunction<Iterator<byte[]>, WindowedValue<T>> {
    private static final long serialVersionUID = 1L;
    private final int output;
    private final Coder<WindowedValue<T>> coder;

    Unpack(int output, Coder<WindowedValue<T>> coder) {
      this.output = output;
      this.coder = coder;
    }

    @Override
    public Iterator<WindowedValue<T>> call(Iterator<byte[]> chunks) {
      return new Iterator<>() {
        private @Nullable ChunkInput chunk;
        private Coder<WindowedValue<T>> inChunk = coder;
        private @Nullable WindowedValue<T> next;

        @Override
        public boolean hasNext() {
          try {
            while (next == null) {
              if (chunk == null || chunk.available() == 0) {
                if (!chunks.hasNext()) {
                  return false;
                }
                chunk = new ChunkInput(chunks.next());
                inChunk = forOneChunk(coder);
                continue;
              }
              int i = VarInt.decodeInt(chunk);
              int length = VarInt.decodeInt(chunk);
              if (i != output) {
                chunk.skipNBytes(length);
                continue;
              }
              int before = chunk.available();
              next = inChunk.decode(chunk);
              if (before - chunk.available() != length) {
                throw new IllegalStateException(
                    "output "
                        + output
                        + ": an element decoded from "
                        + (before - chunk.available())
                        + " of its "
                        + length
                        + " bytes");
              }
            }
            return true;
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }

        @Override
        public WindowedValue<T> next() {
          if (!hasNext()) {
            throw new NoSuchElementException();
          }
          WindowedValue<T> value = next;
          next = null;
          return value;
        }
      };
    }
  }

  /**
   * {@link java.io.ByteArrayOutputStream} without its lock: each of its writes is a synchronized
   * call, and encoding writes a byte at a time (a varint per string); with Java's streams, taking
   * and releasing the locks was a good part of the encoding's and decoding's CPU on the users job.
   */
  static final class ChunkOutput extends OutputStream {
    private byte[] bytes;
    private int size;

    ChunkOutput(int capacity) {
      bytes = new byte[capacity];
    }

    @Override
    public void write(int b) {
      if (size == bytes.length) {
        grow(1);
      }
      bytes[size++] = (byte) b;
    }

    @Override
    public void write(byte[] b, int off, int len) {
      Objects.checkFromIndexSize(off, len, b.length);
      if (bytes.length - size < len) {
        grow(len);
      }
      System.arraycopy(b, off, bytes, size, len);
      size += len;
    }

    int size() {
      return size;
    }

    void reset() {
      size = 0;
    }

    void writeTo(ChunkOutput out) {
      out.write(bytes, 0, size);
    }

    byte[] toByteArray() {
      return Arrays.copyOf(bytes, size);
    }

    private void grow(int more) {
      bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
    }
  }

  /**
   * {@link java.io.ByteArrayInputStream} of a chunk, without its lock (see {@link ChunkOutput}).
   */
  static final class ChunkInput extends InputStream {
    private final byte[] bytes;
    private int position;

    ChunkInput(byte[] bytes) {
      this.bytes = bytes;
    }

    @Override
    public int read() {
      return position < bytes.length ? bytes[position++] & 0xff : -1;
    }

    @Override
    public int read(byte[] b, int off, int len) {
      Objects.checkFromIndexSize(off, len, b.length);
      if (len == 0) {
        return 0;
      }
      int n = Math.min(len, bytes.length - position);
      if (n <= 0) {
        return -1;
      }
      System.arraycopy(bytes, position, b, off, n);
      position += n;
      return n;
    }

    @Override
    public long skip(long n) {
      long skipped = Math.max(0, Math.min(n, bytes.length - position));
      position += (int) skipped;
      return skipped;
    }

    @Override
    public int available() {
      return bytes.length - position;
    }
  }
}
