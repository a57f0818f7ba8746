package dev.medallion.pipelines;

import java.io.Serializable;
import java.lang.reflect.Field;
import java.util.List;
import java.util.Map;
import org.apache.beam.runners.spark.translation.Dataset;
import org.apache.beam.runners.spark.translation.EvaluationContext;
import org.apache.beam.runners.spark.translation.TransformEvaluator;
import org.apache.beam.runners.spark.translation.streaming.UnboundedDataset;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.values.PValue;
import org.apache.spark.SparkContext;
import org.apache.spark.rdd.RDD;
import org.apache.spark.streaming.Time;
import org.apache.spark.streaming.dstream.DStream;
import org.apache.spark.streaming.dstream.ForEachDStream;
import org.apache.spark.streaming.dstream.TransformedDStream;
import org.apache.spark.util.CallSite;
import org.checkerframework.checker.nullness.qual.Nullable;
import scala.collection.JavaConverters;
import scala.collection.Seq;
import scala.runtime.AbstractFunction2;

/**
 * Names the Spark stages of a streaming job after the Beam transforms that made them, as {@link
 * SparkStageNames} does for a batch job.
 *
 * <p>In a stream, Spark makes each micro-batch's RDDs anew from the job's streams ({@code
 * DStream}s), which the runner creates while it translates a transform. A stream gives the RDDs it
 * makes its own call site, taken from the stack when the stream was created (a line of Beam's
 * runner), except for two kinds: a {@code transform} stream (what the runner uses for {@code
 * ParDo}) leaves its RDDs the call site of the stack that makes them, again Beam's; and an output
 * stream (a job per leaf of the pipeline) names its job the same way. So each of the runner's
 * streaming translators is wrapped in one that, after the runner has translated a transform, walks
 * back from its outputs' streams over every stream the translation created and gives each the
 * transform's full name as its call site; a {@code transform} stream's function is wrapped so that
 * it makes its RDDs under that name; an output stream the translation registers (an unbounded
 * read's report) is named after it too; and a leaf's output stream, made when the runner starts the
 * leaves ({@link SparkStageNames.NamedLeaves}), is named after the transform that made the leaf and
 * names its job with it.
 *
 * <p>The runner and Spark offer no hook for this: the translators sit in a private table ({@code
 * StreamingTransformTranslator.EVALUATORS}), the datasets in a private field, and a stream's call
 * site and functions in private fields, all reached by reflection. Where one is missing (another
 * Beam or Spark version), the streams keep Spark's names.
 */
final class SparkStreamStageNames {
  private SparkStreamStageNames() {}

  static final String TRANSLATORS =
      "org.apache.beam.runners.spark.translation.streaming.StreamingTransformTranslator";

  /** How the long form of a named stream's call site starts: it is not named again. */
  static final String MARK = "medallion transform ";

  /** Wraps the runner's streaming translators (once); whether they are. */
  static synchronized boolean install() {
    Map<String, TransformEvaluator<?>> translators = SparkStageNames.translators(TRANSLATORS);
    if (translators == null) {
      return false;
    }
    translators.replaceAll((urn, t) -> t instanceof Named<?> ? t : named(t));
    return true;
  }

  private static <T extends PTransform<?, ?>> Named<T> named(TransformEvaluator<T> translator) {
    return new Named<>(translator);
  }

  /** A streaming translator that names the streams it creates after its transform. */
  static final class Named<T extends PTransform<?, ?>> implements TransformEvaluator<T> {
    private static final long serialVersionUID = 1L;
    private final TransformEvaluator<T> translator;

    Named(TransformEvaluator<T> translator) {
      this.translator = translator;
    }

    @Override
    public void evaluate(T transform, EvaluationContext context) {
      SparkStageNames.NamedLeaves.into(context);
      String name = context.getCurrentTransform().getFullName();
      List<DStream<?>> outputStreams = outputStreams(context);
      translator.evaluate(transform, context);
      for (PValue output : context.getOutputs(transform).values()) {
        if (datasetOf(context, output) instanceof UnboundedDataset<?> stream) {
          name(stream.getDStream().dstream(), name);
        }
      }
      // An output stream the translation registered itself (an unbounded read's report of what
      // it read, each micro-batch).
      for (DStream<?> made : outputStreams(context)) {
        if (outputStreams.stream().noneMatch(s -> s == made)) {
          name(made, name);
        }
      }
    }

    @Override
    public String toNativeString() {
      return translator.toNativeString();
    }
  }

  /**
   * Names {@code stream} and every stream it reads that no earlier transform named: what the
   * translation of the transform {@code name} created.
   */
  static void name(DStream<?> stream, String name) {
    if (isNamed(stream)) {
      return;
    }
    try {
      set(DStream.class, stream, "creationSite", new CallSite(name, MARK + name));
      if (stream instanceof TransformedDStream<?>) {
        Field f = TransformedDStream.class.getDeclaredField("transformFunc");
        f.setAccessible(true);
        @SuppressWarnings("unchecked")
        scala.Function2<Seq<RDD<?>>, Time, RDD<?>> function =
            (scala.Function2<Seq<RDD<?>>, Time, RDD<?>>) f.get(stream);
        if (!(function instanceof NamedFunction)) {
          f.set(stream, new NamedFunction(function, name));
        }
      } else if (stream instanceof ForEachDStream<?>) {
        // Its job runs under its call site rather than the stack of the runner's action.
        set(ForEachDStream.class, stream, "displayInnerRDDOps", false);
      }
    } catch (ReflectiveOperationException | RuntimeException e) {
      return; // another Spark version: this stream keeps Spark's name
    }
    for (DStream<?> read : JavaConverters.seqAsJavaList(stream.dependencies())) {
      name(read, name);
    }
  }

  /**
   * Names the output streams Spark's graph has for {@code leaf}'s stream and that nothing named
   * yet: the ones the runner made to start the leaf's jobs.
   */
  static void nameOutputsOf(Dataset leaf, String name) {
    if (!(leaf instanceof UnboundedDataset<?> stream)) {
      return;
    }
    DStream<?> parent = stream.getDStream().dstream();
    try {
      for (DStream<?> output : parent.context().graph().getOutputStreams()) {
        if (!isNamed(output) && output.dependencies().contains(parent)) {
          name(output, name);
        }
      }
    } catch (RuntimeException e) {
      // another Spark version: the jobs keep Spark's names
    }
  }

  /** The output streams of the context's streaming graph so far (none in batch). */
  private static List<DStream<?>> outputStreams(EvaluationContext context) {
    try {
      return context.getStreamingContext() == null
          ? List.of()
          : List.of(context.getStreamingContext().ssc().graph().getOutputStreams());
    } catch (RuntimeException e) {
      return List.of();
    }
  }

  private static boolean isNamed(DStream<?> stream) {
    CallSite site = stream.creationSite();
    return site != null && site.longForm() != null && site.longForm().startsWith(MARK);
  }

  private static void set(Class<?> owner, Object target, String field, Object value)
      throws ReflectiveOperationException {
    Field f = owner.getDeclaredField(field);
    f.setAccessible(true);
    f.set(target, value);
  }

  private static @Nullable Dataset datasetOf(EvaluationContext context, PValue value) {
    try {
      Field f = EvaluationContext.class.getDeclaredField("datasets");
      f.setAccessible(true);
      return (Dataset) ((Map<?, ?>) f.get(context)).get(value);
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }

  /**
   * A {@code transform} stream's function, run with its transform's name as the call site of the
   * RDDs it makes (Spark clears the call site before it calls the function).
   */
  static final class NamedFunction extends AbstractFunction2<Seq<RDD<?>>, Time, RDD<?>>
      implements Serializable {
    private static final long serialVersionUID = 1L;
    private final scala.Function2<Seq<RDD<?>>, Time, RDD<?>> function;
    private final String name;

    NamedFunction(scala.Function2<Seq<RDD<?>>, Time, RDD<?>> function, String name) {
      this.function = function;
      this.name = name;
    }

    @Override
    public RDD<?> apply(Seq<RDD<?>> parents, Time time) {
      SparkContext spark = parents.head().context();
      spark.setCallSite(name);
      try {
        return function.apply(parents, time);
      } finally {
        spark.clearCallSite();
      }
    }
  }
}
