package dev.medallion.pipelines;

import java.util.List;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.io.UnboundedSource;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.transforms.display.DisplayData;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * An unbounded source that a runner cannot split: asked for any number of parts, it gives one, the
 * inner source asked for one (a Kafka source then reads every partition of its topic). For a
 * bounded read of N records ({@code Read.from(source).withMaxNumRecords(N)}), which gives each part
 * an equal share of N and lets a part wait for its share without end: over a topic whose partitions
 * hold unequal counts, a part whose partitions hold fewer records than its share waited forever,
 * with the records it lacked in the other parts' partitions.
 */
final class OneSplit<T, C extends UnboundedSource.CheckpointMark> extends UnboundedSource<T, C> {
  private final UnboundedSource<T, C> inner;

  private OneSplit(UnboundedSource<T, C> inner) {
    this.inner = inner;
  }

  static <T, C extends UnboundedSource.CheckpointMark> OneSplit<T, C> of(
      UnboundedSource<T, C> inner) {
    return new OneSplit<>(inner);
  }

  @Override
  public List<? extends UnboundedSource<T, C>> split(int desiredNumSplits, PipelineOptions options)
      throws Exception {
    List<? extends UnboundedSource<T, C>> one = inner.split(1, options);
    if (one.size() != 1) {
      // KafkaIO splits per partition whatever it is asked when it deduplicates by offset
      throw new IllegalStateException(
          "a bounded read needs one reader, and its source split into " + one.size());
    }
    return one;
  }

  @Override
  public UnboundedReader<T> createReader(PipelineOptions options, @Nullable C checkpointMark)
      throws java.io.IOException {
    return inner.createReader(options, checkpointMark);
  }

  @Override
  public Coder<C> getCheckpointMarkCoder() {
    return inner.getCheckpointMarkCoder();
  }

  @Override
  public Coder<T> getOutputCoder() {
    return inner.getOutputCoder();
  }

  @Override
  public boolean requiresDeduping() {
    return inner.requiresDeduping();
  }

  @Override
  public void validate() {
    inner.validate();
  }

  @Override
  public void populateDisplayData(DisplayData.Builder builder) {
    inner.populateDisplayData(builder);
  }
}
