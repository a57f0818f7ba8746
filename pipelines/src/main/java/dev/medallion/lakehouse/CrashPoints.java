package dev.medallion.lakehouse;

/**
 * Fault injection for the crash tests: started with {@code -Dmedallion.crashAt=<point>}, the JVM
 * halts when the run reaches that point, as {@code kill -9} would stop it there (no {@code
 * finally}, no shutdown hook, exit code 137). Without the property (always, outside the tests) a
 * point does nothing.
 */
public final class CrashPoints {
  private CrashPoints() {}

  /** The job succeeded and its files are written; nothing is committed yet. */
  public static final String BEFORE_COMMIT = "before-commit";

  /** The run's first commit is in (Bronze, with its ingested files); its other tables not yet. */
  public static final String MID_PUBLISH = "mid-publish";

  public static void reached(String point) {
    if (point.equals(System.getProperty("medallion.crashAt"))) {
      Runtime.getRuntime().halt(137);
    }
  }
}
