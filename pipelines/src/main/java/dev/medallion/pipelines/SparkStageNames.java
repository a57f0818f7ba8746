package dev.medallion.pipelines;

import java.lang.reflect.Field;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.apache.beam.runners.spark.translation.Dataset;
import org.apache.beam.runners.spark.translation.EvaluationContext;
import org.apache.beam.runners.spark.translation.TransformEvaluator;
import org.apache.beam.sdk.coders.Coder;
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
 * <p>The last stage of a job is named after the job's call site instead: the thread's when the job
 * starts. The runner starts one job per leaf of the pipeline (a step whose output nothing reads,
 * such as a table's last write step), one after the other, once everything is translated ({@code
 * EvaluationContext.computeOutputs}). So the context's set of leaves is replaced by one that
 * remembers which transform put each leaf there, and whose leaves set that transform's name as the
 * call site while their job starts ({@link NamedLeaves}).
 *
 * <p>The runner offers no hook for either: its translators sit in a private table ({@code
 * TransformTranslator.EVALUATORS}) and its leaves in a private field ({@code
 * EvaluationContext.leaves}), which this reaches by reflection. A runner without that table
 * (another Beam version) runs as before, with Spark's names; {@link #install} says so by returning
 * false; without that field, only the last stages keep Spark's names. A streaming job's stages are
 * named by {@link SparkStreamStageNames}, which {@link #install} installs too.
 */
final class SparkStageNames {
  private SparkStageNames() {}

  static final String TRANSLATORS = "org.apache.beam.runners.spark.translation.TransformTranslator";

  /**
   * Wraps the runner's batch translators, once per JVM (it is called for every job; a second call
   * finds them wrapped), after {@link SparkMultiOutputs} has wrapped the one of {@code ParDo}.
   * Returns whether they are.
   */
  static synchronized boolean install() {
    Map<String, TransformEvaluator<?>> translators = translators(TRANSLATORS);
    if (translators == null) {
      return false;
    }
    SparkMultiOutputs.install(translators);
    translators.replaceAll((urn, t) -> t instanceof Named<?> ? t : named(t));
    SparkStreamStageNames.install();
    return true;
  }

  private static <T extends PTransform<?, ?>> Named<T> named(TransformEvaluator<T> translator) {
    return new Named<>(translator);
  }

  @SuppressWarnings("unchecked")
  /** The private table of translators of the runner's class {@code translatorClass}. */
  static @Nullable Map<String, TransformEvaluator<?>> translators(String translatorClass) {
    try {
      Field f = Class.forName(translatorClass).getDeclaredField("EVALUATORS");
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
      NamedLeaves.into(context);
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

  /**
   * The leaves of a batch job, each remembered with the transform that put it there (the one being
   * translated when it was added). The runner only adds, removes and, at the end, walks them to
   * start their jobs; the walk yields each leaf wrapped so that its job starts under the
   * transform's name.
   */
  static final class NamedLeaves extends LinkedHashSet<Dataset> {
    private static final long serialVersionUID = 1L;
    private final transient EvaluationContext context;
    private final transient Map<Dataset, String> names = new IdentityHashMap<>();

    private NamedLeaves(EvaluationContext context, Set<Dataset> leaves) {
      this.context = context;
      for (Dataset leaf : leaves) {
        super.add(leaf);
      }
    }

    /** Puts named leaves into the context, once; leaves a context without the field as it is. */
    @SuppressWarnings("unchecked")
    static void into(EvaluationContext context) {
      try {
        Field f = EvaluationContext.class.getDeclaredField("leaves");
        f.setAccessible(true);
        Object leaves = f.get(context);
        if (leaves instanceof Set<?> && !(leaves instanceof NamedLeaves)) {
          f.set(context, new NamedLeaves(context, (Set<Dataset>) leaves));
        }
      } catch (ReflectiveOperationException | RuntimeException e) {
        // Another Beam version: its jobs' last stages keep Spark's names.
      }
    }

    @Override
    public boolean add(Dataset leaf) {
      if (context.getCurrentTransform() != null) {
        names.put(leaf, context.getCurrentTransform().getFullName());
      }
      return super.add(leaf);
    }

    @Override
    public boolean remove(Object leaf) {
      names.remove(leaf);
      return super.remove(leaf);
    }

    @Override
    public Iterator<Dataset> iterator() {
      Iterator<Dataset> leaves = super.iterator();
      return new Iterator<>() {
        private Dataset last;

        @Override
        public boolean hasNext() {
          return leaves.hasNext();
        }

        @Override
        public Dataset next() {
          last = leaves.next();
          String name = names.get(last);
          return name == null ? last : new NamedAction(last, name, context.getSparkContext());
        }

        @Override
        public void remove() {
          leaves.remove();
          names.remove(last);
        }
      };
    }
  }

  /** A leaf whose job starts with its transform's name as the call site. */
  static final class NamedAction implements Dataset {
    private static final long serialVersionUID = 1L;
    private final Dataset leaf;
    private final String name;
    private final transient JavaSparkContext spark;

    NamedAction(Dataset leaf, String name, JavaSparkContext spark) {
      this.leaf = leaf;
      this.name = name;
      this.spark = spark;
    }

    @Override
    public void action() {
      spark.setCallSite(name);
      try {
        leaf.action();
        SparkStreamStageNames.nameOutputsOf(leaf, name); // a stream's leaf: its output stream
      } finally {
        spark.clearCallSite();
      }
    }

    @Override
    public void cache(String storageLevel, Coder<?> coder) {
      leaf.cache(storageLevel, coder);
    }

    @Override
    public void setName(String name) {
      leaf.setName(name);
    }
  }
}
