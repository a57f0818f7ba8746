package dev.medallion.core;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

/**
 * How full this JVM's heap was after its latest garbage collection, as a share of the most it may
 * grow to ({@code -Xmx}): what was still reachable then (and, after a young collection, what the
 * old generation held), so a heap full of garbage does not count. Read from the collectors'
 * notifications, so asking costs nothing. Before the first collection the share is 0.
 */
final class HeapAfterGc {
  private HeapAfterGc() {}

  private static volatile double share;

  private static final Set<String> HEAP_POOLS =
      ManagementFactory.getMemoryPoolMXBeans().stream()
          .filter(pool -> pool.getType() == MemoryType.HEAP)
          .map(MemoryPoolMXBean::getName)
          .collect(Collectors.toUnmodifiableSet());

  static {
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (gc instanceof NotificationEmitter emitter) {
        emitter.addNotificationListener(
            (notification, handback) -> {
              if (GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(
                  notification.getType())) {
                noteCollection(
                    GarbageCollectionNotificationInfo.from(
                        (CompositeData) notification.getUserData()));
              }
            },
            null,
            null);
      }
    }
  }

  private static void noteCollection(GarbageCollectionNotificationInfo info) {
    long used = 0;
    for (Map.Entry<String, MemoryUsage> pool :
        info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
      if (HEAP_POOLS.contains(pool.getKey())) {
        used += pool.getValue().getUsed();
      }
    }
    share = (double) used / Runtime.getRuntime().maxMemory();
  }

  /** The share of the largest heap in use after the latest collection, 0 before the first. */
  static double share() {
    return share;
  }
}
