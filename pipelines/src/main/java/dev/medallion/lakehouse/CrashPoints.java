package dev.medallion.lakehouse;

/**
 * Fault injection for the crash tests: started with {@code -Dmedallion.crashAt=<point>}, the JVM
 * halts when the run reaches that point, as {@code kill -9} would stop it there (no {@code
 * finally}, no shutdown hook, exit code 137). Without the property (always, outside the tests) a
 * point does nothing.
 */
public final class CrashPoints {
  private CrashPoints() {}

  /** The job succeeded and its files are written; its manifest is not committed yet. */
  public static final String BEFORE_COMMIT = "before-commit";

  /** Publishing: Silver is replaced, the other staged tables are not yet. */
  public static final String MID_PUBLISH = "mid-publish";

  /** Replacing a table: its old files are deleted, the new ones not yet moved in. */
  public static final String REPLACE_DELETED_OLD = "replace-deleted-old";

  public static void reached(String point) {
    if (point.equals(System.getProperty("medallion.crashAt"))) {
      Runtime.getRuntime().halt(137);
    }
  }
}
