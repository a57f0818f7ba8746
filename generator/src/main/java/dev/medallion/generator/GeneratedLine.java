package dev.medallion.generator;

import java.io.Serializable;

/**
 * One generated line, when its event happened and when it arrives (both epoch millis, event time).
 * {@code order} breaks ties between lines arriving at the same instant.
 */
public record GeneratedLine(String line, long eventMillis, long arrivalMillis, long order)
    implements Serializable {}
