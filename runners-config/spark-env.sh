# Sourced by spark-cluster.sh and spark-submit.sh: Spark from the build's Maven jars, as a Spark
# 3.5 installation would provide it (spark-dist/target/spark-classpath.txt), and the JVM flags it
# needs on Java 17, so nobody types them.
spark_classpath_file=$root/spark-dist/target/spark-classpath.txt
if [[ ! -f $spark_classpath_file ]]; then
  echo "spark: not built yet; build it once with: mvn -B -q -DskipTests package" >&2
  exit 2
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
spark_java=(java -XX:+ExitOnOutOfMemoryError "${spark_java_flags[@]}" -cp "$spark_cp")
