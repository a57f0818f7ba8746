#!/usr/bin/env bash
# spark-submit of the bundled job jar (spark-job/target/medallion-spark-job.jar) through Spark's
# own entry point (org.apache.spark.deploy.SparkSubmit, from the build's Spark jars), for a machine
# without a Spark installation. With one, its bin/spark-submit takes the same jar and arguments.
#
#   runners-config/spark-submit.sh [--master=spark://127.0.0.1:7077] [--conf=key=value …]
#                                  COMMAND [flags…]
#
# COMMAND is any command that launches a pipeline (run, bronze, silver, gold, users, compact), with
# its usual flags; --runner=SparkRunner is added. Client mode: the driver runs in this process, the
# executors on the cluster's workers (runners-config/spark-cluster.sh starts one). --master
# defaults to local[2].
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
master='local[2]'
conf=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --master=*) master=${1#*=}; shift ;;
    --conf=*) conf+=(--conf "${1#*=}"); shift ;;
    -h | --help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) break ;;
  esac
done
if [[ $# -eq 0 ]]; then
  echo "spark-submit: name a command (run, users, …); try --help" >&2
  exit 2
fi
# shellcheck source=runners-config/spark-env.sh
source "$root/runners-config/spark-env.sh"
jar=$spark_job_jar
command=$1
shift
# shellcheck disable=SC2086 # MEDALLION_JAVA_OPTS holds several flags, as for ./medallion
exec "${spark_java[@]}" ${MEDALLION_JAVA_OPTS:-} -Dlog4j2.configurationFile="$root/runners-config/spark-log4j2.properties" \
  org.apache.spark.deploy.SparkSubmit --master "$master" --deploy-mode client \
  --class dev.medallion.tools.Medallion --name "medallion $command" \
  --conf "spark.executor.extraJavaOptions=${spark_java_flags[*]} ${spark_executor_tuning[*]}" "${conf[@]}" \
  "$jar" "$command" --runner=SparkRunner --filesToStage="$jar" "$@"
