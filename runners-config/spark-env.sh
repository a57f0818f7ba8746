# Sourced by spark-cluster.sh and spark-submit.sh: Spark from the build's Maven jars, as a Spark
# 3.5 installation would provide it (spark-dist/target/spark-classpath.txt), and the JVM flags it
# needs on Java 17, so nobody types them.
spark_classpath_file=$root/spark-dist/target/spark-classpath.txt
spark_job_jar=$root/spark-job/target/medallion-spark-job.jar
# The README's main command (mvn … package exec:java) ends in the tools module, where the main job
# runs, before Maven reaches these two modules; a full `mvn package` or `mvn verify` builds them.
if [[ ! -f $spark_classpath_file || ! -f $spark_job_jar ]]; then
  echo "spark: building Spark's classpath and the job jar once (mvn -B -q -DskipTests package -pl spark-dist,spark-job -am; a minute or two)" >&2
  (cd "$root" && mvn -B -q -DskipTests package -pl spark-dist,spark-job -am) >&2 || {
    echo "spark: the build failed (see above)" >&2
    exit 1
  }
fi
spark_cp=$(< "$spark_classpath_file")
# A Spark home without jars of its own: the workers start executors on SPARK_DIST_CLASSPATH (Spark's
# way for a Spark built without Hadoop), which is the same classpath.
export SPARK_HOME=$root/spark-dist/target/spark-home
mkdir -p "$SPARK_HOME/jars" "$SPARK_HOME/conf"
export SPARK_DIST_CLASSPATH=$spark_cp
export SPARK_SCALA_VERSION=2.12
export SPARK_LOCAL_IP=${SPARK_LOCAL_IP:-127.0.0.1}
spark_java_flags=(
  --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED
  --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED
  --add-opens=java.base/java.lang.invoke=ALL-UNNAMED
)
# Spark's JVMs (the driver, the executors) use the parallel collector and inline less into what C2
# compiles, as ./medallion gives a Spark job (see there); the same flags in MEDALLION_JAVA_OPTS win
# for the driver. ./medallion's later C2 for a job on local[2] is not given here: it was measured
# only there.
spark_jit_flags=(-XX:InlineSmallCode=500 -XX:FreqInlineSize=100)
spark_executor_tuning=(-XX:+UseParallelGC "${spark_jit_flags[@]}")
spark_driver_tuning=()
if [[ ${MEDALLION_JAVA_OPTS:-} != *-XX:+Use*GC* ]]; then
  spark_driver_tuning+=(-XX:+UseParallelGC)
fi
if [[ ${MEDALLION_JAVA_OPTS:-} != *InlineSmallCode* && ${MEDALLION_JAVA_OPTS:-} != *FreqInlineSize* ]]; then
  spark_driver_tuning+=("${spark_jit_flags[@]}")
fi
# The driver (and spark-cluster.sh's master and workers, which start with these flags too) leaves
# to C1 the code that only builds, translates and submits the job, as ./medallion does (see
# runners-config/c2-exclude.json); not the executors, whose hosts may not hold this file.
if [[ ${MEDALLION_JAVA_OPTS:-} != *CompilerDirectivesFile* ]]; then
  spark_driver_tuning+=(-XX:CompilerDirectivesFile="$root/runners-config/c2-exclude.json")
fi
# Stdout keeps the result, as with ./medallion: the JVM's log writes its warnings to stderr, and
# its console ("1 compiler directives added") is off (-XX:+DisplayVMOutput in MEDALLION_JAVA_OPTS
# turns it back on, on stderr).
spark_java=(java -XX:+ExitOnOutOfMemoryError -XX:+UnlockDiagnosticVMOptions -XX:-DisplayVMOutput -XX:+DisplayVMOutputToStderr
  -Xlog:disable -Xlog:all=warning:stderr "${spark_java_flags[@]}" "${spark_driver_tuning[@]}" -cp "$spark_cp")
