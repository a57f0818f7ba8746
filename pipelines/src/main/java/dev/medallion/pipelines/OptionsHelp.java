package dev.medallion.pipelines;

import java.io.PrintStream;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.beam.sdk.options.Default;
import org.apache.beam.sdk.options.Description;
import org.apache.beam.sdk.options.PipelineOptions;

/**
 * {@code --help} of a pipeline command, generated from its options interface: Medallion's own flags
 * with their descriptions and defaults, then a word on the Beam flags it also takes.
 */
final class OptionsHelp {
  private OptionsHelp() {}

  static void print(
      PrintStream out, String command, String summary, Class<? extends PipelineOptions> options) {
    out.println("usage: medallion " + command + " [--flag=value …]");
    out.println(summary);
    out.println();
    out.println("Flags:");
    List<Method> getters = new ArrayList<>();
    for (Method m : options.getMethods()) {
      if (m.getDeclaringClass().getPackageName().startsWith("dev.medallion")
          && m.getName().startsWith("get")
          && m.getParameterCount() == 0) {
        getters.add(m);
      }
    }
    getters.sort(Comparator.comparing(Method::getName));
    for (Method m : getters) {
      String name = Character.toLowerCase(m.getName().charAt(3)) + m.getName().substring(4);
      Description d = m.getAnnotation(Description.class);
      String dflt = defaultOf(m);
      out.printf(
          "  --%-26s %s%s%n",
          name, d == null ? "" : d.value(), dflt == null ? "" : " (default: " + dflt + ")");
    }
    out.println();
    out.println(
        "Beam flags work too, on every runner: --runner=DirectRunner (default) or SparkRunner"
            + " (with --sparkMaster=local[2]), --streaming, --awsRegion, --endpoint, …");
    out.println("Exit codes: 0 ok, 1 the job failed (the reason on stderr), 2 bad usage.");
  }

  private static String defaultOf(Method m) {
    if (m.getAnnotation(Default.String.class) != null) {
      String v = m.getAnnotation(Default.String.class).value();
      return v.isEmpty() ? null : v;
    }
    if (m.getAnnotation(Default.Integer.class) != null) {
      return String.valueOf(m.getAnnotation(Default.Integer.class).value());
    }
    if (m.getAnnotation(Default.Long.class) != null) {
      return String.valueOf(m.getAnnotation(Default.Long.class).value());
    }
    if (m.getAnnotation(Default.Double.class) != null) {
      return String.valueOf(m.getAnnotation(Default.Double.class).value());
    }
    if (m.getAnnotation(Default.Boolean.class) != null) {
      return String.valueOf(m.getAnnotation(Default.Boolean.class).value());
    }
    if (m.getAnnotation(Default.InstanceFactory.class) != null) {
      return "computed";
    }
    return null;
  }
}
