package dev.medallion.testing;

import dev.medallion.core.CountsPerBundle;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.beam.sdk.transforms.DoFn;

/**
 * The project's DoFns that count per bundle ({@link CountsPerBundle}: a field of theirs is one, or
 * holds one, field by field through the project's own types) and say nowhere when their bundle
 * ends: without a {@code @FinishBundle}, what such a DoFn adds up never reaches the metrics.
 */
public final class BundleFlushes {
  private BundleFlushes() {}

  /** The DoFns that count per bundle, in the classes of the class path entry of {@code anchor}. */
  public static List<Class<?>> countingDoFns(Class<?> anchor) throws Exception {
    List<Class<?>> found = new ArrayList<>();
    for (Class<?> c : classesBeside(anchor)) {
      if (DoFn.class.isAssignableFrom(c) && holdsCounts(c, new HashSet<>())) {
        found.add(c);
      }
    }
    return found;
  }

  /**
   * Of {@link #countingDoFns}, those without a {@code @FinishBundle} method of their own or
   * inherited.
   */
  public static List<String> withoutFinishBundle(Class<?> anchor) throws Exception {
    List<String> missing = new ArrayList<>();
    for (Class<?> c : countingDoFns(anchor)) {
      if (!finishesBundles(c)) {
        missing.add(c.getName());
      }
    }
    return missing;
  }

  static boolean finishesBundles(Class<?> doFn) {
    for (Class<?> c = doFn; c != null && c != DoFn.class; c = c.getSuperclass()) {
      for (Method m : c.getDeclaredMethods()) {
        if (m.isAnnotationPresent(DoFn.FinishBundle.class)) {
          return true;
        }
      }
    }
    return false;
  }

  /** A field of {@code type} (or of its superclasses) is, or holds, a {@link CountsPerBundle}. */
  static boolean holdsCounts(Class<?> type, Set<Class<?>> seen) {
    if (!seen.add(type)) {
      return false;
    }
    for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
      for (Field f : c.getDeclaredFields()) {
        if (Modifier.isStatic(f.getModifiers())) {
          continue;
        }
        Class<?> t = f.getType();
        if (CountsPerBundle.class.isAssignableFrom(t)) {
          return true;
        }
        if (t.getName().startsWith("dev.medallion.") && holdsCounts(t, seen)) {
          return true;
        }
      }
    }
    return false;
  }

  private static List<Class<?>> classesBeside(Class<?> anchor) throws Exception {
    Path root = Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
    List<Class<?>> classes = new ArrayList<>();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path p : (Iterable<Path>) files::iterator) {
        String rel = root.relativize(p).toString();
        if (!rel.endsWith(".class") || !rel.startsWith("dev/medallion/")) {
          continue;
        }
        String name = rel.substring(0, rel.length() - ".class".length()).replace('/', '.');
        classes.add(Class.forName(name, false, anchor.getClassLoader()));
      }
    }
    return classes;
  }
}
