package dev.medallion.generator;

import dev.medallion.core.RawEvent;
import java.io.IOException;
import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.SerializableCoder;
import org.apache.beam.sdk.io.UnboundedSource;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.schemas.NoSuchSchemaException;
import org.apache.beam.sdk.schemas.SchemaRegistry;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * The generator as an unbounded Beam source (the legacy {@code UnboundedSource} API, which the
 * SparkRunner reads in streaming too). Lines are released in arrival order at {@code speedup} times
 * real time: with a speedup of 60, one minute of event time passes in one second. Each line is
 * stamped with its arrival time, which is also the watermark; a late line's event time is behind
 * it. When the configured duration is exhausted the watermark goes to the end of time (or to {@link
 * #withEndWatermark}) and the pipeline finishes by itself.
 */
public class GeneratorSource extends UnboundedSource<RawEvent, GeneratorSource.Position> {
  /**
   * The generators of readers closed in this JVM before their last line, by source and position,
   * for the next reader of that position to go on with. A runner re-creates a reader from its
   * checkpoint (the DirectRunner after one bundle in twenty on average), and without this the new
   * reader generates every line before its position again: a live run's cost per re-creation grew
   * with its length (5 % of the CPU after 32,000 lines). A few at most: one per source and
   * position, taken by the first reader that asks.
   */
  private static final Map<String, Paused> PAUSED =
      new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Paused> eldest) {
          return size() > 8;
        }
      };

  /** Lines generated again to reach a checkpoint's position, in this JVM (tests). */
  static final AtomicLong REGENERATED = new AtomicLong();

  private final GeneratorConfig config;
  private final double speedup;
  private final Instant end;

  /** This source and its copies (a runner serializes them), to find their paused generators. */
  private final String id;

  public GeneratorSource(GeneratorConfig config, double speedup) {
    this(config, speedup, BoundedWindow.TIMESTAMP_MAX_VALUE, UUID.randomUUID().toString());
  }

  private GeneratorSource(GeneratorConfig config, double speedup, Instant end, String id) {
    this.config = config;
    this.speedup = speedup;
    this.end = end;
    this.id = id;
  }

  /**
   * The watermark once every line is out: the end of time unless told otherwise ({@link
   * dev.medallion.core.StreamEnd}).
   */
  public GeneratorSource withEndWatermark(Instant end) {
    return new GeneratorSource(config, speedup, end, id);
  }

  public String sourceName() {
    return "seed=" + config.seed();
  }

  @Override
  public List<GeneratorSource> split(int desiredNumSplits, PipelineOptions options) {
    return List.of(this);
  }

  @Override
  public UnboundedReader<RawEvent> createReader(
      PipelineOptions options, @Nullable Position checkpoint) {
    return new Reader(this, checkpoint == null ? 0 : checkpoint.emitted);
  }

  @Override
  public Coder<Position> getCheckpointMarkCoder() {
    return SerializableCoder.of(Position.class);
  }

  @Override
  public Coder<RawEvent> getOutputCoder() {
    try {
      return SchemaRegistry.createDefault().getSchemaCoder(RawEvent.class);
    } catch (NoSuchSchemaException e) {
      throw new IllegalStateException(e);
    }
  }

  /** How many lines were emitted: the generator is deterministic, so that is all it needs. */
  public static class Position implements UnboundedSource.CheckpointMark, Serializable {
    final long emitted;

    Position(long emitted) {
      this.emitted = emitted;
    }

    @Override
    public void finalizeCheckpoint() {}
  }

  /** A closed reader's generator, with the line it had generated but not given out yet. */
  private record Paused(
      EventGenerator generator, @Nullable GeneratedLine ahead, Instant watermark) {}

  static class Reader extends UnboundedReader<RawEvent> {
    private final GeneratorSource source;
    private final EventGenerator generator;
    private long emitted;
    private @Nullable GeneratedLine current;
    private long realStartNanos;
    private long firstArrival = Long.MIN_VALUE;
    private Instant watermark = BoundedWindow.TIMESTAMP_MIN_VALUE;
    private @Nullable GeneratedLine ahead;

    Reader(GeneratorSource source, long alreadyEmitted) {
      this.source = source;
      Paused paused;
      synchronized (PAUSED) {
        paused = PAUSED.remove(source.id + "@" + alreadyEmitted);
      }
      if (paused != null) {
        this.generator = paused.generator();
        this.ahead = paused.ahead();
        this.watermark = paused.watermark();
      } else {
        this.generator = new EventGenerator(source.config);
        for (long i = 0; i < alreadyEmitted && generator.hasNext(); i++) {
          GeneratedLine skipped = generator.next();
          watermark = new Instant(skipped.arrivalMillis());
          REGENERATED.incrementAndGet();
        }
      }
      this.emitted = alreadyEmitted;
    }

    @Override
    public boolean start() {
      realStartNanos = System.nanoTime();
      return advance();
    }

    @Override
    public boolean advance() {
      if (ahead == null) {
        if (!generator.hasNext()) {
          current = null;
          watermark = source.end;
          return false;
        }
        ahead = generator.next();
      }
      if (firstArrival == Long.MIN_VALUE) {
        firstArrival = ahead.arrivalMillis();
      }
      long dueNanos =
          realStartNanos
              + (long) ((ahead.arrivalMillis() - firstArrival) * 1_000_000L / source.speedup);
      if (System.nanoTime() < dueNanos) {
        return false; // not yet: Beam calls again
      }
      current = ahead;
      ahead = null;
      emitted++;
      watermark = new Instant(current.arrivalMillis());
      return true;
    }

    @Override
    public RawEvent getCurrent() {
      if (current == null) {
        throw new NoSuchElementException();
      }
      Instant arrival = new Instant(current.arrivalMillis());
      return RawEvent.of(current.line(), "generator", source.sourceName(), null, emitted, arrival);
    }

    @Override
    public Instant getCurrentTimestamp() {
      if (current == null) {
        throw new NoSuchElementException();
      }
      return new Instant(current.arrivalMillis());
    }

    @Override
    public Instant getWatermark() {
      return watermark;
    }

    @Override
    public Position getCheckpointMark() {
      return new Position(emitted);
    }

    @Override
    public GeneratorSource getCurrentSource() {
      return source;
    }

    /** Leaves the generator, if it has lines left, to the next reader of this position. */
    @Override
    public void close() throws IOException {
      if (ahead != null || generator.hasNext()) {
        synchronized (PAUSED) {
          PAUSED.put(source.id + "@" + emitted, new Paused(generator, ahead, watermark));
        }
      }
    }
  }
}
