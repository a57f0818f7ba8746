package dev.medallion.users;

/**
 * Users are grouped into a fixed number of buckets (by a stable hash of {@code user_id}) wherever
 * the batch pipeline groups by user: each group then holds many users, which keeps the number of
 * groups small. The DirectRunner pays a fixed cost per group (it translates the consuming step for
 * every bundle, and every key is its own bundle), so one group per user made a 20,000-user run take
 * minutes; the result does not depend on the bucket count.
 */
public final class UserBuckets {
  public static final int COUNT = 64;

  private UserBuckets() {}

  /**
   * Gold's buckets: what a bucket holds there is a few numbers per user, and each bucket becomes a
   * file of Gold, so fewer.
   */
  public static final int GOLD_COUNT = 16;

  public static int of(String userId) {
    return of(userId, COUNT);
  }

  public static int of(String userId, int count) {
    return Math.floorMod(userId.hashCode(), count);
  }
}
