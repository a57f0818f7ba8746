package dev.medallion.tools;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.beam.sdk.options.Default;
import org.apache.beam.sdk.options.Description;
import org.apache.beam.sdk.options.PipelineOptions;

/**
 * The flags of a pipeline command, generated from its Beam options interface (Medallion's own
 * flags, with their descriptions and defaults), for the command's picocli {@code --help}.
 */
final class OptionsHelp {
  private OptionsHelp() {}

  static String[] flags(Class<? extends PipelineOptions> options) {
    List<Method> getters = new ArrayList<>();
    for (Method m : options.getMethods()) {
      if (m.getDeclaringClass().getPackageName().startsWith("dev.medallion")
          && m.getName().startsWith("get")
          && m.getParameterCount() == 0) {
        getters.add(m);
      }
    }
    getters.sort(Comparator.comparing(Method::getName));
    List<String> lines = new ArrayList<>();
    for (Method m : getters) {
      String name = Character.toLowerCase(m.getName().charAt(3)) + m.getName().substring(4);
      Description d = m.getAnnotation(Description.class);
      String dflt = defaultOf(m);
      lines.add("  --" + name + (dflt == null ? "" : "  (default: " + dflt + ")"));
      if (d != null) {
        lines.addAll(wrap(d.value().replace("%", "%%"), "      ", 78));
      }
    }
    lines.add("");
    lines.addAll(
        wrap(
            "Beam flags work too, on every runner: --runner=DirectRunner (default) or SparkRunner"
                + " (with --sparkMaster=local[2]), --streaming, --awsRegion, --endpoint, ….",
            "",
            78));
    lines.add("Exit codes: 0 ok, 1 the job failed (the reason on stderr), 2 bad usage.");
    return lines.toArray(String[]::new);
  }

  /** {@code text} in lines of at most {@code width} characters, each after {@code indent}. */
  static List<String> wrap(String text, String indent, int width) {
    List<String> out = new ArrayList<>();
    StringBuilder line = new StringBuilder(indent);
    for (String word : text.split(" ")) {
      if (line.length() > indent.length() && line.length() + 1 + word.length() > width) {
        out.add(line.toString());
        line = new StringBuilder(indent);
      }
      line.append(line.length() > indent.length() ? " " : "").append(word);
    }
    out.add(line.toString());
    return out;
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
