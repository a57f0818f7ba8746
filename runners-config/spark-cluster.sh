#!/usr/bin/env bash
# A Spark standalone cluster on this machine, from Spark's own Maven jars (no download, no Spark
# installation): one master and two workers, each a JVM of its own, bound to 127.0.0.1.
#
#   runners-config/spark-cluster.sh [--workers=2] [--cores=1] [--memory=2g] [--port=7077]
#                                   [--webui-port=8080] [--dir=target/spark-cluster]
#
# Prints the master URL to submit to (spark://127.0.0.1:7077) and the web UI's address; Ctrl-C
# (or SIGTERM) stops the master and the workers. Port 0 picks a free port. Submit to it with
# runners-config/spark-submit.sh. Needs the build (mvn -B -q -DskipTests package).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
workers=2
cores=1
memory=2g
port=7077
webui=8080
dir=$root/target/spark-cluster
for arg in "$@"; do
  case $arg in
    --workers=*) workers=${arg#*=} ;;
    --cores=*) cores=${arg#*=} ;;
    --memory=*) memory=${arg#*=} ;;
    --port=*) port=${arg#*=} ;;
    --webui-port=*) webui=${arg#*=} ;;
    --dir=*) dir=${arg#*=} ;;
    -h | --help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "spark-cluster: unknown argument $arg (try --help)" >&2; exit 2 ;;
  esac
done
# shellcheck source=runners-config/spark-env.sh
source "$root/runners-config/spark-env.sh"

mkdir -p "$dir"
pids=()
stop() {
  trap - INT TERM EXIT
  for p in "${pids[@]}"; do kill -TERM "$p" 2> /dev/null || true; done
  wait 2> /dev/null || true
}
trap 'stop; exit 0' INT TERM
trap stop EXIT

# waitfor LOG PATTERN: the first line of LOG matching PATTERN, once it is there (60 s at most)
waitfor() {
  for _ in $(seq 600); do
    if line=$(grep -m 1 -E "$2" "$1" 2> /dev/null); then
      echo "$line"
      return 0
    fi
    sleep 0.1
  done
  echo "spark-cluster: gave up waiting; see $1" >&2
  tail -n 20 "$1" >&2
  return 1
}

"${spark_java[@]}" org.apache.spark.deploy.master.Master --host 127.0.0.1 --port "$port" \
  --webui-port "$webui" > "$dir/master.log" 2>&1 &
pids+=($!)
master=$(waitfor "$dir/master.log" "Starting Spark master at spark://" | grep -o 'spark://[0-9.:]*')
ui=$(waitfor "$dir/master.log" "MasterWebUI.*started at http://" | grep -oE 'http://[^ ]+')
for ((i = 1; i <= workers; i++)); do
  mkdir -p "$dir/worker-$i"
  "${spark_java[@]}" org.apache.spark.deploy.worker.Worker --host 127.0.0.1 --cores "$cores" \
    --memory "$memory" --work-dir "$dir/worker-$i" --webui-port 0 "$master" \
    > "$dir/worker-$i.log" 2>&1 &
  pids+=($!)
done
for ((i = 1; i <= workers; i++)); do
  waitfor "$dir/worker-$i.log" "Successfully registered with master" > /dev/null
done
echo "spark-cluster: master $master, $workers workers ($cores core(s), $memory each); web UI $ui" >&2
echo "spark-cluster: logs in $dir; Ctrl-C stops it" >&2
echo "$master"
wait
