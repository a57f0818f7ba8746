package dev.medallion.pipelines;

import java.lang.reflect.Field;
import java.util.Map;
import org.apache.beam.runners.spark.translation.EvaluationContext;
import org.apache.beam.runners.spark.translation.TransformEvaluator;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.spark.api.java.JavaSparkContext;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Names the Spark stages of a batch job after the Beam transforms that made them.
 *
 * <p>Spark names a stage after the call site that created its last RDD: the first frame outside
 * Spark of the thread's stack. Beam's SparkRunner creates every RDD inside its own translators, so
 * each stage was called after a line of Beam's code ({@code mapPartitionsToPair at
 * TransformTranslator.java:…}), whatever step of the pipeline it ran. Spark takes a call site the
 * creating thread sets instead ({@link JavaSparkContext#setCallSite}), and the runner creates a
 * transform's RDDs while it translates that transform. So each of the runner's batch translators is
 * wrapped in one that sets the transform's full name (e.g. {@code Gold/JoinPerDevice/GBK}) around
 * it, and a stage is called after the transform whose RDD ends it: the step before a shuffle.
 *
 * <p>The runner offers no hook for this: its translators sit in a private table ({@code
 * TransformTranslator.EVALUATORS}), which this reaches by reflection. A runner without that table
 * (another Beam version) runs as before, with Spark's names; {@link #install} says so by returning
 * false. Not in streaming: there Spark names a micro-batch's stages after the call site of the
 * stream that made them, which Beam's code creates too.
 */
final class SparkStageNames {
  private SparkStageNames() {}

  static final String TRANSLATORS = "org.apache.beam.runners.spark.translation.TransformTranslator";

  /**
   * Wraps the runner's batch translators, once per JVM (it is called for every job; a second call
   * finds them wrapped). Returns whether they are.
   */
  static synchronized boolean install() {
    Map<String, TransformEvaluator<?>> translators = translators();
    if (translators == null) {
      return false;
    }
    translators.replaceAll((urn, t) -> t instanceof Named<?> ? t : named(t));
    return true;
  }

  private static <T extends PTransform<?, ?>> Named<T> named(TransformEvaluator<T> translator) {
    return new Named<>(translator);
  }

  @SuppressWarnings("unchecked")
  private static @Nullable Map<String, TransformEvaluator<?>> translators() {
    try {
      Field f = Class.forName(TRANSLATORS).getDeclaredField("EVALUATORS");
      f.setAccessible(true);
      return (Map<String, TransformEvaluator<?>>) f.get(null);
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      return null;
    }
  }

  /** A translator that sets its transform's full name as the call site of the RDDs it creates. */
  static final class Named<T extends PTransform<?, ?>> implements TransformEvaluator<T> {
    private static final long serialVersionUID = 1L;
    private final TransformEvaluator<T> translator;

    Named(TransformEvaluator<T> translator) {
      this.translator = translator;
    }

    @Override
    public void evaluate(T transform, EvaluationContext context) {
      JavaSparkContext spark = context.getSparkContext();
      spark.setCallSite(context.getCurrentTransform().getFullName());
      try {
        translator.evaluate(transform, context);
      } finally {
        spark.clearCallSite();
      }
    }

    @Override
    public String toNativeString() {
      return translator.toNativeString();
    }
  }
}
