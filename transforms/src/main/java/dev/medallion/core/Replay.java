package dev.medallion.core;

import java.util.List;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.PBegin;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionView;

/**
 * A bounded source that a pipeline can read twice: once as the data comes, and once more after some
 * side inputs are ready. A step that needs a decision made over all of its input (Silver's later
 * copies, Gold's snapshot date) reads its input again after the decision, instead of holding every
 * element until the decision is made: memory stays per bundle, whatever the data's size. Files are
 * cheap to read again ({@link ReadNdjsonLines#replay()}, {@link ReadTable#replay()}).
 */
@FunctionalInterface
public interface Replay<T> {
  /**
   * The source's elements, read under the step name {@code name}; with {@code after} not empty,
   * read only once every one of those views is ready.
   */
  PCollection<T> read(PBegin begin, String name, List<PCollectionView<?>> after);

  /**
   * Any bounded read, for small inputs (tests): a second read holds its elements until the views
   * are ready, where a file source would not even start reading.
   */
  static <T> Replay<T> of(PTransform<PBegin, PCollection<T>> read) {
    return (begin, name, after) -> {
      PCollection<T> elements = begin.apply(name, read);
      return after.isEmpty() ? elements : elements.apply(name + "AfterViews", afterViews(after));
    };
  }

  /** Passes its input on once every one of {@code views} is ready. */
  static <T> PTransform<PCollection<T>, PCollection<T>> afterViews(List<PCollectionView<?>> views) {
    return new PTransform<>() {
      @Override
      public PCollection<T> expand(PCollection<T> input) {
        return input
            .apply("WaitForViews", ParDo.of(new PassFn<T>()).withSideInputs(views))
            .setCoder(input.getCoder());
      }
    };
  }

  /**
   * Outputs what it gets. Its side inputs are never read: a runner calls it only once they are
   * ready, which is the point.
   */
  class PassFn<T> extends DoFn<T, T> {
    @ProcessElement
    public void process(@Element T element, OutputReceiver<T> out) {
      out.output(element);
    }
  }
}
