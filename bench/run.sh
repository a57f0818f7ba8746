#!/usr/bin/env bash
# The benchmark: the project's jobs beside their anchor, DuckDB doing the same three tables in SQL
# (bench/users.sql), measured side by side in one run on this machine.
#
#   bench/run.sh [--sizes=200000,2000000,4000000] [--repeats=3] [--jobs=duckdb,loop,direct,spark]
#                [--iot=1000000[,4000000…]] [--heap=2g] [--timeout=1800] [--no-build]
#
# The job `cluster` (not in the default list) runs the same commands with spark-submit on the
# repository's standalone cluster (runners-config/spark-cluster.sh: a master and two workers of
# one core each, started for the benchmark on free ports), executors of --executor-memory
# (1536m); its CPU and peak RSS add the executors' (sampled each second) to the driver's.
#
# For every size it generates the users workload once (cached in $MEDALLION_BENCH_DATA, default
# ~/.cache/medallion-bench), then repeats, alternating the jobs: DuckDB (2 threads); the same
# tables in one pass of a hand-written Java loop (bench/UsersLoop.java: one thread reads and
# decides, one per table encodes Parquet; the practical limit); `users` on the DirectRunner and on
# Spark local[2]. Each job is one process, timed from outside (/usr/bin/time: wall, user + system
# CPU, peak RSS), with a fresh output folder; the project's Gold (and the loop's) is checked equal
# to DuckDB's row for row. --iot replays that many generated readings + heartbeats (each size of
# a list in turn) through `run` on both runners, beside the IoT tables in one pass of a
# hand-written loop (bench/IotLoop.java, the job `loop`), and checks every Gold equal to the first
# one's of its size (0: skip). Every timed job is appended to bench/results/runs.csv; the medians
# (and wall time / DuckDB's) to bench/results/summary.csv, printed at the end;
# bench/results/chart.png and the README's table are redrawn from summary.csv.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
sizes=200000,2000000,4000000
repeats=3
jobs=duckdb,loop,direct,spark
iot=1000000
heap=2g
timeout=1800
executor_memory=1536m
build=1
for arg in "$@"; do
  case $arg in
    --sizes=*) sizes=${arg#*=} ;;
    --repeats=*) repeats=${arg#*=} ;;
    --jobs=*) jobs=${arg#*=} ;;
    --iot=*) iot=${arg#*=} ;;
    --heap=*) heap=${arg#*=} ;;
    --timeout=*) timeout=${arg#*=} ;;
    --executor-memory=*) executor_memory=${arg#*=} ;;
    --no-build) build=0 ;;
    *) echo "bench/run.sh: unknown argument $arg (see the comment at the top of the script)" >&2; exit 2 ;;
  esac
done
if [[ $build == 1 ]]; then
  mvn -B -q -DskipTests package
fi
data=${MEDALLION_BENCH_DATA:-$HOME/.cache/medallion-bench}
results=$root/bench/results
work=$(mktemp -d)
cluster_pid=""
cleanup() {
  if [[ -n $cluster_pid ]]; then kill -TERM "$cluster_pid" 2> /dev/null || true; wait "$cluster_pid" 2> /dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$data" "$results" "$work/classes"
duckdb=$(tr ':' '\n' < tools/target/classpath.txt | grep duckdb_jdbc | head -n 1)
javac -nowarn -d "$work/classes" -cp "$duckdb" bench/RunSql.java bench/BenchReport.java
javac -nowarn -d "$work/classes" -cp "$(cat tools/target/classpath.txt)" bench/LoopTables.java \
  bench/UsersLoop.java bench/IotLoop.java
sql=(java -cp "$duckdb:$work/classes" RunSql)
sql() { "${sql[@]}" "$@"; }

# Untimed: the launcher's first pipeline command after a build records its class archive.
# A partial archive (what a command that ran no job recorded, README) would make the warm-up run on
# it and a timed job record the archive: 20.75 s against 8.33 s for users at 200k, 2026-12-07.
rm -f tools/target/medallion-*.partial.jsa
./medallion users --input='testdata/users/raw/*.ndjson' --lakehouse="$work/warm-up" > /dev/null 2>&1
# and the first one on Spark records the archive of commands on Spark.
./medallion run --runner=SparkRunner --sparkMaster='local[2]' --input=testdata/iot/events.ndjson \
  --devices=testdata/devices.csv --lakehouse="$work/warm-up-spark" > /dev/null 2>&1

run_id=$(date -u +%Y%m%dT%H%M%SZ)
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
[[ -n $(git status --porcelain -- pipelines transforms tools bench/*.sql 2>/dev/null) ]] && commit="$commit+dirty"
runs_csv=$results/runs.csv
[[ -f $runs_csv ]] || echo "run_id,date,commit,workload,events,job,heap,repeat,wall_s,cpu_s,peak_rss_mb,exit,gold" > "$runs_csv"

# time_job NAME OUTDIR -- COMMAND...: runs it with the timeout, leaves "wall cpu rss exit" in $work/last
time_job() {
  local log=$work/$1.log
  shift
  set +e
  /usr/bin/time -f "%e %U %S %M" -o "$work/time" timeout "$timeout" "$@" > "$log" 2>&1
  local code=$?
  set -e
  read -r wall user sys rss < <(tail -n 1 "$work/time")
  awk -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" -v c="$code" \
    'BEGIN { printf "%.2f %.2f %.0f %d\n", w, u + s, r / 1024, c }' > "$work/last"
  if [[ $code != 0 ]]; then
    echo "  (exit $code; last lines of its output:)" >&2
    tail -n 5 "$log" | sed 's/^/    /' >&2
  fi
}

# The executors of the cluster, while $work/sampling exists: their CPU seconds (each one's last
# reading) and the peak of their summed RSS, left as "cpu_s rss_mb" in $work/executors.
sample_executors() {
  local -A ticks=()
  local peak=0 sum p rss st total=0 hz
  hz=$(getconf CLK_TCK)
  while [[ -f $work/sampling ]]; do
    sum=0
    for p in $(pgrep -f CoarseGrainedExecutorBackend || true); do
      read -r -a st < "/proc/$p/stat" 2> /dev/null || continue
      ticks[$p]=$((st[13] + st[14]))
      rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$p/status" 2> /dev/null || true)
      sum=$((sum + ${rss:-0}))
    done
    ((sum > peak)) && peak=$sum
    sleep 1
  done
  for p in "${!ticks[@]}"; do total=$((total + ticks[$p])); done
  awk -v t="$total" -v hz="$hz" -v r="$peak" 'BEGIN { printf "%.2f %.0f\n", t / hz, r / 1024 }' > "$work/executors"
}

# time_cluster_job NAME -- COMMAND...: time_job, plus the executors' CPU and RSS
time_cluster_job() {
  touch "$work/sampling"
  sample_executors &
  local sampler=$!
  time_job "$@"
  rm -f "$work/sampling"
  wait "$sampler"
  read -r wall cpu rss code < "$work/last"
  read -r ecpu erss < "$work/executors"
  awk -v w="$wall" -v c="$cpu" -v r="$rss" -v x="$code" -v ec="$ecpu" -v er="$erss" \
    'BEGIN { printf "%.2f %.2f %.0f %d\n", w, c + ec, r + er, x }' > "$work/last"
}

# record WORKLOAD EVENTS JOB REPEAT GOLD
record() {
  read -r wall cpu rss code < "$work/last"
  local h=$heap
  [[ $3 == duckdb ]] && h=-
  echo "$run_id,$(date -u +%F),$commit,$1,$2,$3,$h,$4,$wall,$cpu,$rss,$code,$5" >> "$runs_csv"
  printf '  %-8s %9s %-7s #%s  %8s s wall %8s s CPU %7s MB  exit %s  gold %s\n' "$1" "$2" "$3" "$4" "$wall" "$cpu" "$rss" "$code" "$5" >&2
}

# gold_equal A B: "equal" when the two user_features folders hold the same rows
gold_equal() {
  local out
  out=$(sql bench/gold-equal.sql a="$1" b="$2" 2>/dev/null || true)
  if [[ $out =~ ^0[[:space:]]0[[:space:]] ]]; then echo equal; else echo "DIFFERS(${out//$'\t'/ })"; fi
}

# project JOB: the command line of ./medallion on that job's runner (or spark-submit to the
# cluster), with the heap, in $cmd; $timer times it
project() {
  cmd=(env MEDALLION_JAVA_OPTS="-Xmx$heap" ./medallion)
  runner=()
  timer=time_job
  case $1 in
    spark) runner=(--runner=SparkRunner --sparkMaster='local[2]') ;;
    cluster)
      cmd=(env MEDALLION_JAVA_OPTS="-Xmx$heap" runners-config/spark-submit.sh --master="$master"
        --conf=spark.executor.memory="$executor_memory")
      timer=time_cluster_job
      ;;
  esac
}

if [[ ,$jobs, == *,cluster,* ]]; then
  runners-config/spark-cluster.sh --port=0 --webui-port=0 --memory=2g --dir="$work/cluster" \
    > "$work/cluster.url" 2> "$work/cluster.log" &
  cluster_pid=$!
  for _ in $(seq 120); do [[ -s $work/cluster.url ]] && break; sleep 1; done
  master=$(head -n 1 "$work/cluster.url")
  [[ $master == spark://* ]] || { cat "$work/cluster.log" >&2; echo "bench/run.sh: the cluster did not start" >&2; exit 1; }
  echo "cluster: $master (two workers, one core each; executors of $executor_memory)" >&2
fi

for events in ${sizes//,/ }; do
  input=$data/users-$events.ndjson
  if [[ ! -s $input ]]; then
    echo "generating $events user events into $input" >&2
    ./medallion generate --kind users --seed 1 --count "$events" --users $((events / 10)) --days 7 \
      --malformedRate 0.005 --duplicateRate 0.02 --missingKeysRate 0.005 --badPriceRate 0.01 \
      > "$input.tmp" 2>/dev/null
    mv "$input.tmp" "$input"
  fi
  lines=$(wc -l < "$input")
  echo "users: $lines lines ($events generated events)" >&2
  anchor=$work/duckdb-gold-$events
  for ((r = 1; r <= repeats; r++)); do
    for job in ${jobs//,/ }; do
      out=$work/out
      rm -rf "$out"
      case $job in
        duckdb)
          mkdir -p "$out"
          time_job "$job" "${sql[@]}" bench/users.sql input="$input" out="$out" threads=2
          gold=anchor
          if [[ -d $out/gold ]]; then rm -rf "$anchor"; mv "$out/gold" "$anchor"; fi
          ;;
        loop)
          time_job "$job" java "-Xmx$heap" -cp "$(cat tools/target/classpath.txt):$work/classes" \
            UsersLoop input="$input" out="$out"
          gold=unchecked
          [[ -d $anchor && -d $out/gold ]] && gold=$(gold_equal "$out/gold" "$anchor")
          ;;
        direct | spark | cluster)
          project "$job"
          $timer "$job" "${cmd[@]}" users --input="$input" --lakehouse="$out" "${runner[@]}"
          gold=unchecked
          [[ -d $anchor && -d $out/gold ]] && gold=$(gold_equal "$out/gold/user_features" "$anchor")
          ;;
        *) echo "bench/run.sh: unknown job $job (duckdb, loop, direct, spark, cluster)" >&2; exit 2 ;;
      esac
      record users "$lines" "$job" "$r" "$gold"
    done
  done
done

for iot_events in ${iot//,/ }; do
  [[ $iot_events -gt 0 ]] || continue
  devices=$((iot_events / 1000))
  input=$data/iot-$iot_events.ndjson
  if [[ ! -s $input ]]; then
    echo "generating about $iot_events readings and heartbeats into $input" >&2
    ./medallion generate --seed 1 --generatorDevices "$devices" --durationMinutes 61 \
      --malformedRate 0.01 --duplicateRate 0.02 --outOfRangeRate 0.01 \
      --registry "$data/iot-$iot_events-devices.csv" > "$input.tmp" 2>/dev/null
    mv "$input.tmp" "$input"
  fi
  lines=$(wc -l < "$input")
  echo "iot: $lines lines from $devices devices" >&2
  first=""
  for ((r = 1; r <= repeats; r++)); do
    for job in ${jobs//,/ }; do
      [[ $job == duckdb ]] && continue
      out=$work/out-$job-$r
      rm -rf "$out"
      if [[ $job == loop ]]; then
        time_job "$job" java "-Xmx$heap" -cp "$(cat tools/target/classpath.txt):$work/classes" \
          IotLoop input="$input" devices="$data/iot-$iot_events-devices.csv" out="$out"
      else
        project "$job"
        $timer "$job" "${cmd[@]}" run --input="$input" --devices="$data/iot-$iot_events-devices.csv" \
          --lakehouse="$out" "${runner[@]}"
      fi
      gold=first
      read -r _ _ _ code < "$work/last"
      if [[ $code != 0 ]]; then
        gold=failed # a run that did not finish is no reference for the others
        rm -rf "$out"
      elif [[ ! -d $out/gold ]]; then
        gold=none
      elif [[ -n $first ]]; then
        a=$(sql bench/iot-gold-equal.sql a="$first" b="$out" 2>/dev/null || true)
        if [[ $a =~ ^0[[:space:]]0[[:space:]]0[[:space:]]0 ]]; then gold=equal; else gold="DIFFERS(${a//$'\t'/ })"; fi
        rm -rf "$out"
      else
        first=$out
      fi
      record iot "$lines" "$job" "$r" "$gold"
    done
  done
done

java -cp "$work/classes" BenchReport summarize "$runs_csv" "$run_id" "$results/summary.csv"
java -Djava.awt.headless=true -cp "$work/classes" BenchReport chart "$results/summary.csv" "$results/chart.png"
java -cp "$work/classes" BenchReport readme "$results/summary.csv" README.md
echo "appended to bench/results/summary.csv; redrew bench/results/chart.png and the README's table" >&2
