package dev.medallion.pipelines;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Defaults the command line gives the DirectRunner unless the user set them: its immutability and
 * encodability checks are off, as they are meant for developing a DoFn (the tests run with them on)
 * and keep an encoded copy of every element, which doubles a batch job's memory; and {@code run()}
 * does not block, so the live progress line can run beside it.
 */
final class RunnerDefaults {
  private RunnerDefaults() {}

  static String[] apply(String[] args) {
    boolean direct =
        Arrays.stream(args)
            .filter(a -> a.startsWith("--runner="))
            .allMatch(a -> a.endsWith("=DirectRunner") || a.endsWith(".DirectRunner"));
    if (!direct) {
      return args;
    }
    List<String> all = new ArrayList<>(Arrays.asList(args));
    for (String flag :
        List.of(
            "--enforceImmutability=false", "--enforceEncodability=false", "--blockOnRun=false")) {
      String name = flag.substring(0, flag.indexOf('='));
      if (Arrays.stream(args).noneMatch(a -> a.equals(name) || a.startsWith(name + "="))) {
        all.add(flag);
      }
    }
    return all.toArray(String[]::new);
  }
}
