package dev.medallion.core;

import java.io.Serializable;

/**
 * Metrics a DoFn adds up over a bundle and reports when the bundle ends ({@link #flush}, from its
 * {@code @FinishBundle}): {@link BundleCounter}, {@link Rejections.Examples}, or a function that
 * holds them (a rule's rejections, say). The DirectRunner gathers a step's metrics after every
 * element once one has been touched in the bundle: counting per record made it build and merge an
 * update per record.
 */
public interface CountsPerBundle extends Serializable {
  /** Reports what this bundle added up, and starts again from nothing. */
  void flush();
}
