package dev.medallion.core;

import org.apache.beam.sdk.coders.Coder;

/**
 * A coder whose values can also be written in runs, one after another, the text they repeat written
 * once per run (a record's device, sensor type, source): {@link #forOneRun} gives a coder of one
 * run, to encode its values in order, or to decode them in the same order. Its bytes mean nothing
 * outside their run. A runner's own packing of values (the kept outputs of a multi-output step on
 * Spark) uses it where the value coder offers it.
 */
public interface CoderInRuns<T> {
  /** A new coder for one run of values: it remembers the text of the values it has coded. */
  Coder<T> forOneRun();
}
