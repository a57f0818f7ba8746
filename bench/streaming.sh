#!/usr/bin/env bash
# The streaming benchmark: generator -> Kafka -> Bronze -> Silver -> Gold, each stage its own
# process (the four-terminal run), against the broker of the repository; and the same layers all
# in one process, fed by the built-in generator (generator) or by the topic (kafka).
#
#   bench/streaming.sh [--events=100000] [--devices=500] [--minutes=3] [--runners=direct,spark]
#                      [--phases=backlog,live,generator,kafka] [--heap=2g] [--no-build]
#
# backlog: the generator first writes --events readings and heartbeats to iot-raw at full speed;
#   then the three stages start together and each reads the topic the stage before it fills.
#   Per stage: records read, and records/s over the seconds it was reading (its progress line);
#   end to end: events / (last Gold row written - first Bronze row ingested), from the tables.
#   A stage that read fewer records than its input topic holds (stopped on its idle timeout while
#   the stage before it was still forwarding) stops the bench with a message, nothing recorded.
#   On Spark (local[2]) a Kafka stage is a bounded read (--maxRecords, the records the stage before
#   it forwarded), so the stages run one after the other and their rate is records / wall time, start-up
#   included; its Gold is checked equal to the DirectRunner's.
# live (both runners): the stages run first; then the generator sends --devices devices' readings
#   and heartbeats for --minutes at real time (about 0.27 lines/s per device) with event time =
#   now, so each record's received_at is when it was sent. Latency of an event = the first Gold
#   device_minute row of its device and minute written after it arrived - its received_at
#   (p50, p99, max, from the tables); the bound the performance issue sets is the window (60 s) +
#   the allowed lateness (120 s) + 5 s. The DirectRunner's stages end when idle for 20 s; on Spark
#   (streaming jobs) each is stopped with SIGTERM, one after the other, 20 s apart.
# generator (DirectRunner): `run` with its built-in generator at full speed, all in one process:
#   about --events lines of --devices devices (16 lines per device and minute of event time), as
#   fast as the pipeline takes them. Its rate: the lines read / (the last Gold row written - the
#   first Bronze row ingested), from the tables; wall, CPU and peak RSS of the process. Latency
#   as live's, from each reading's ingest time in Bronze (its received_at is on the generator's
#   sped-up clock).
# kafka (DirectRunner): the backlog of --events lines as above, then `run --inputTopic=iot-raw`
#   reads it, all three layers in one process (the four-terminal run's stages without the topics
#   between them). Its rate: the records read / (the last Gold row written - the first Bronze row
#   ingested - its 15 s idle stop, after which the last windows fire), from the tables; wall, CPU
#   and peak RSS of the process; latency as the generator's, from each reading's ingest time.
# Every figure is appended to bench/results/streaming.csv and the README's streaming table is
# redrawn from the newest figures there of each phase, runner and stage.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
events=100000
devices=500
minutes=3
runners=direct,spark
phases=backlog,live,generator,kafka
heap=2g
build=1
for arg in "$@"; do
  case $arg in
    --events=*) events=${arg#*=} ;;
    --devices=*) devices=${arg#*=} ;;
    --minutes=*) minutes=${arg#*=} ;;
    --runners=*) runners=${arg#*=} ;;
    --phases=*) phases=${arg#*=} ;;
    --heap=*) heap=${arg#*=} ;;
    --no-build) build=0 ;;
    *) echo "bench/streaming.sh: unknown argument $arg (see the comment at the top of the script)" >&2; exit 2 ;;
  esac
done
if [[ $build == 1 ]]; then
  mvn -B -q -DskipTests package
fi
results=$root/bench/results
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2> /dev/null || true; done
  wait 2> /dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$results" "$work/classes"
duckdb=$(tr ':' '\n' < tools/target/classpath.txt | grep duckdb_jdbc | head -n 1)
kafka_cp=$(tr ':' '\n' < tools/target/classpath.txt | grep -E '/(kafka-clients|slf4j-api)-' | paste -sd:)
javac -nowarn -d "$work/classes" -cp "$duckdb:$kafka_cp" bench/RunSql.java bench/TopicSize.java
sql() { java -cp "$duckdb:$work/classes" RunSql "$@"; }
topic_size() { java -cp "$kafka_cp:$work/classes" TopicSize "$bootstrap" "$1" 2> /dev/null; }
m=(env MEDALLION_JAVA_OPTS="-Xmx$heap" ./medallion)
# Untimed: the launcher's first pipeline command after a build records its class archive, which
# slowed whichever phase ran `run` first (the generator's 104,755 lines: 5.3 s against 3.3 s).
# A partial archive (what a command that ran no job recorded, README) would make the warm-up run on
# it and a timed job record the archive: 20.75 s against 8.33 s for users at 200k, 2026-12-07.
rm -f tools/target/medallion-*.partial.jsa
./medallion users --input='testdata/users/raw/*.ndjson' --lakehouse="$work/warm-up" > /dev/null 2>&1
# and the first one on Spark records the archive of commands on Spark.
./medallion run --runner=SparkRunner --sparkMaster='local[2]' --input=testdata/iot/events.ndjson \
  --devices=testdata/devices.csv --lakehouse="$work/warm-up-spark" > /dev/null 2>&1

run_id=$(date -u +%Y%m%dT%H%M%SZ)
commit=$(git rev-parse --short HEAD 2> /dev/null || echo unknown)
[[ -n $(git status --porcelain -- pipelines transforms tools generator 2> /dev/null) ]] && commit="$commit+dirty"
csv=$results/streaming.csv
[[ -f $csv ]] || echo "run_id,date,commit,phase,runner,stage,events,seconds,events_per_s,wall_s,cpu_s,peak_rss_mb,p50_s,p99_s,max_s" > "$csv"
# row PHASE RUNNER STAGE EVENTS SECONDS RATE WALL CPU RSS P50 P99 MAX
row() {
  local IFS=,
  echo "$run_id,$(date -u +%F),$commit,$*" >> "$csv"
  printf '  %-8s %-7s %-10s %9s events %8s s %9s /s | wall %6s s CPU %6s s %6s MB | latency p50 %s p99 %s max %s\n' "$@" >&2
}

# The broker, on free ports, in a folder of its own.
# start_broker [PARTITIONS]
start_broker() {
  rm -rf "$work/kafka"
  ./medallion kafka --dir="$work/kafka" --port=0 --controllerPort=0 --partitions="${1:-4}" > "$work/kafka.log" 2>&1 &
  broker_pid=$!
  pids+=("$broker_pid")
  for _ in $(seq 120); do
    grep -q "running;" "$work/kafka.log" && break
    sleep 1
  done
  bootstrap=$(sed -n 's/.*broker on \([0-9.:]*\) .*/\1/p' "$work/kafka.log" | head -n 1)
  [[ -n $bootstrap ]] || { cat "$work/kafka.log" >&2; echo "bench/streaming.sh: the broker did not start" >&2; exit 1; }
}
stop_broker() {
  kill -TERM "$broker_pid" 2> /dev/null || true
  wait "$broker_pid" 2> /dev/null || true
}

# stage NAME LAKEHOUSE FLAGS...: runs one stage in the background, timed; its output in $work/NAME.*
stage() {
  local name=$1 lake=$2
  shift 2
  /usr/bin/time -f "%e %U %S %M" -o "$work/$name.time" "${m[@]}" "$name" --bootstrapServers="$bootstrap" \
    --lakehouse="$lake" --generatorDevices="$devices" "$@" > "$work/$name.out" 2> "$work/$name.err" &
  pids+=($!)
  eval "${name}_pid=$!"
}
# active NAME: the seconds the stage was reading, from its progress line (first to last second
# with records in)
active() {
  tr '\r' '\n' < "$work/$1.err" | sed -n 's/^ *\[ *\([0-9]*\)s\] in *\([0-9]*\) rec\/s.*/\1 \2/p' |
    awk '$2 > 0 { if (first == "") first = $1; last = $1 } END { print (first == "" ? 0 : last - first + 1) }'
}
# read_by NAME: the records the stage read, from its end report
read_by() { sed -n 's/^kafka  : \([0-9]*\) records read.*/\1/p' "$work/$1.out"; }
# per_s N SECONDS: N per second, none under a second (a small --events can go through in less
# than a second, below what the tables' instants resolve: too_short says so)
per_s() { awk -v n="$1" -v s="$2" 'BEGIN { if (s >= 1) printf "%.0f", n / s }'; }
# too_short PHASE SPAN: says when a span is too short to give a rate
too_short() {
  if awk -v s="$2" 'BEGIN { exit !(s < 1) }'; then
    echo "bench/streaming.sh: the $1 phase took $2 s from first row to last (idle stop left out): too short to give a rate, none recorded; --events=1000000 measures it" >&2
  fi
}
# measured NAME: "wall cpu rss" of a finished stage
measured() {
  awk '{ printf "%.1f %.1f %.0f\n", $1, $2 + $3, $4 / 1024 }' "$work/$1.time"
}
waitfor() {
  local code=0
  wait "$1" || code=$?
  if [[ $code != 0 ]]; then
    echo "bench/streaming.sh: a stage failed (exit $code):" >&2
    tail -n 5 "$work"/*.out >&2
    exit 1
  fi
}

# span_of LAKE IDLE: the seconds from the first Bronze row ingested to the last Gold row
# written, less IDLE (an idle stop the run waited out before its last windows fired), from the
# tables.
span_of() {
  sql /dev/stdin lake="$1" idle="$2" <<'SQL'
SELECT round((epoch_ms((SELECT max(written_at) FROM read_parquet('${lake}/gold/device_minute/**/*.parquet')))
      - epoch_ms((SELECT min(ingest_ts) FROM read_parquet('${lake}/bronze/iot_events/**/*.parquet')))) / 1000.0
      - ${idle}, 1);
SQL
}

backlog() {
  echo "backlog: $events events to iot-raw at full speed${1:+ ($1)}" >&2
  "${m[@]}" generate --sink=kafka --bootstrapServers="$bootstrap" --generatorDevices="$devices" \
    --durationMinutes=100000 --speedup=1000000000 --count="$events" --malformedRate=0.01 \
    --duplicateRate=0.02 --lateRate=0.02 --outOfRangeRate=0.01 > /dev/null 2> "$work/generate.err"
}
direct_lake=$work/lake-direct
gold_idle=30
if [[ ,$phases, == *,backlog,* && ,$runners, == *,direct,* ]]; then
  start_broker
  backlog
  stage bronze "$direct_lake" --inputTopic=iot-raw --outputTopic=iot-bronze --idleStopSeconds=15
  stage silver "$direct_lake" --inputTopic=iot-bronze --outputTopic=iot-silver --idleStopSeconds=30
  stage gold "$direct_lake" --inputTopic=iot-silver --idleStopSeconds=$gold_idle
  waitfor "$bronze_pid"; waitfor "$silver_pid"; waitfor "$gold_pid"
  # Each stage read its whole topic, or it stopped on its idle timeout before the stage before it
  # had forwarded everything, and its rate and the end-to-end span would be wrong.
  for s in bronze:iot-raw silver:iot-bronze gold:iot-silver; do
    read_n=$(read_by "${s%%:*}") topic_n=$(topic_size "${s#*:}")
    if [[ $read_n != "$topic_n" ]]; then
      echo "bench/streaming.sh: ${s%%:*} read $read_n of the $topic_n records in ${s#*:}: it stopped on its idle timeout early; no figures recorded" >&2
      stop_broker
      exit 1
    fi
  done
  for s in bronze silver gold; do
    n=$(read_by $s)
    secs=$(active $s)
    read -r wall cpu rss < <(measured $s)
    row backlog direct $s "$n" "$secs" "$(per_s "$n" "$secs")" "$wall" "$cpu" "$rss" "" "" ""
  done
  stop_broker
  # The last windows fire when Gold has been idle for $gold_idle s: that wait is not work.
  span=$(span_of "$direct_lake" "$gold_idle")
  too_short backlog "$span"
  row backlog direct end-to-end "$events" "$span" "$(per_s "$events" "$span")" "" "" "" "" "" ""
fi
if [[ ,$phases, == *,backlog,* && ,$runners, == *,spark,* ]]; then
  # One partition per topic, as before a bounded read was one reader of every partition (a read
  # split by Beam waited forever over partitions of unequal counts): the figures stay comparable.
  start_broker 1
  backlog "one partition, for Spark"
  spark_lake=$work/lake-spark
  spark=(--runner=SparkRunner --sparkMaster='local[2]' --consumerGroup=bench-spark)
  stage bronze "$spark_lake" "${spark[@]}" --inputTopic=iot-raw --outputTopic=iot-bronze --maxRecords="$events"
  waitfor "$bronze_pid"
  n_bronze=$(topic_size iot-bronze)
  stage silver "$spark_lake" "${spark[@]}" --inputTopic=iot-bronze --outputTopic=iot-silver --maxRecords="$n_bronze"
  waitfor "$silver_pid"
  n_silver=$(topic_size iot-silver)
  stage gold "$spark_lake" "${spark[@]}" --inputTopic=iot-silver --maxRecords="$n_silver"
  waitfor "$gold_pid"
  for s in bronze silver gold; do
    case $s in bronze) n=$events ;; silver) n=$n_bronze ;; gold) n=$n_silver ;; esac
    read -r wall cpu rss < <(measured $s)
    row backlog spark $s "$n" "$wall" "$(per_s "$n" "$wall")" "$wall" "$cpu" "$rss" "" "" ""
  done
  if [[ -d $direct_lake/gold ]]; then
    a=$(sql bench/gold-current-equal.sql a="$direct_lake" b="$spark_lake" 2> /dev/null || true)
    if [[ $a =~ ^0[[:space:]]0[[:space:]]0[[:space:]]0 ]]; then echo "  Gold on Spark equals Gold on the DirectRunner" >&2
    else echo "  Gold on Spark DIFFERS from the DirectRunner's: ${a//$'\t'/ }" >&2; exit 1; fi
  fi
  stop_broker
fi

# latency LAKE ARRIVAL: the readings with a Gold row, and the seconds from each reading's ARRIVAL
# (a column of Silver's readings) to the first Gold device_minute row of its device and minute
# written after it: p50, p99, max.
latency() {
  sql /dev/stdin lake="$1" arrival="$2" <<'SQL'
WITH e AS (
  SELECT row_number() OVER () AS id, device_id, time_bucket(INTERVAL 1 minute, event_ts) AS w, ${arrival} AS arrival
  FROM read_parquet('${lake}/silver/sensor_readings/**/*.parquet')),
g AS (SELECT device_id, window_start AS w, written_at FROM read_parquet('${lake}/gold/device_minute/**/*.parquet')),
l AS (
  SELECT e.id, (epoch_ms(min(g.written_at)) - epoch_ms(min(e.arrival))) / 1000.0 AS s
  FROM e JOIN g ON e.device_id = g.device_id AND e.w = g.w AND g.written_at >= e.arrival
  GROUP BY e.id)
SELECT count(*), round(quantile_cont(s, 0.5), 1), round(quantile_cont(s, 0.99), 1), round(max(s), 1) FROM l;
SQL
}

# live RUNNER: the three stages first, then the generator at real time; latency from the tables.
live() {
  local runner=$1 flags=() stop=(--idleStopSeconds=20)
  if [[ $runner == spark ]]; then
    flags=(--runner=SparkRunner --sparkMaster='local[2]' --consumerGroup=bench-live-spark)
    stop=() # --idleStopSeconds is not reliable on Spark: the stages are stopped with SIGTERM
  fi
  rate=$(awk -v d="$devices" 'BEGIN { printf "%.0f", d * 16 / 60 }')
  echo "live ($runner): $devices devices for $minutes minutes at real time (about $rate lines/s)" >&2
  start_broker
  live_lake=$work/lake-live-$runner
  stage bronze "$live_lake" "${flags[@]}" --inputTopic=iot-raw --outputTopic=iot-bronze "${stop[@]}"
  stage silver "$live_lake" "${flags[@]}" --inputTopic=iot-bronze --outputTopic=iot-silver "${stop[@]}"
  stage gold "$live_lake" "${flags[@]}" --inputTopic=iot-silver "${stop[@]}"
  for s in bronze silver gold; do
    for _ in $(seq 180); do grep -q "medallion $s: run " "$work/$s.err" && break; sleep 1; done
  done
  if [[ $runner == spark ]]; then sleep 30; fi # the streaming contexts start after the run line
  "${m[@]}" generate --sink=kafka --bootstrapServers="$bootstrap" --generatorDevices="$devices" \
    --durationMinutes="$minutes" --speedup=1 --start="$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
    --malformedRate=0.01 --duplicateRate=0.02 --outOfRangeRate=0.01 > /dev/null 2> "$work/generate.err"
  if [[ $runner == spark ]]; then
    # Like Ctrl-C in each terminal, 20 s after the last record (the DirectRunner's idle stop),
    # one stage after the other so that each reads what the one before it forwarded last.
    for s in bronze silver gold; do
      sleep 20
      pkill -TERM -f "dev.medallion.tools.Medallion $s --bootstrapServers=$bootstrap " || true
      eval "waitfor \$${s}_pid"
    done
  else
    waitfor "$bronze_pid"; waitfor "$silver_pid"; waitfor "$gold_pid"
  fi
  sent=$(sed -n 's/^generated \([0-9]*\) lines.*/\1/p' "$work/generate.err")
  lat=$(latency "$live_lake" received_at) || { echo "bench/streaming.sh: the live latency query failed" >&2; exit 1; }
  read -r n p50 p99 max <<< "$lat"
  for s in bronze silver gold; do
    read -r wall cpu rss < <(measured $s)
    row live "$runner" $s "$(read_by $s)" "" "" "$wall" "$cpu" "$rss" "" "" ""
  done
  row live "$runner" latency "$n" "$((minutes * 60))" "$(per_s "$sent" "$((minutes * 60))")" "" "" "" "$p50" "$p99" "$max"
  stop_broker
}
if [[ ,$phases, == *,live,* && ,$runners, == *,direct,* ]]; then live direct; fi
if [[ ,$phases, == *,live,* && ,$runners, == *,spark,* ]]; then live spark; fi

if [[ ,$phases, == *,generator,* && ,$runners, == *,direct,* ]]; then
  gen_minutes=$(((events + devices * 16 - 1) / (devices * 16)))
  echo "generator: $devices devices for $gen_minutes minutes of event time, at full speed, all in one run" >&2
  gen_lake=$work/lake-generator
  code=0
  /usr/bin/time -f "%e %U %S %M" -o "$work/generator.time" "${m[@]}" run --lakehouse="$gen_lake" \
    --generatorDevices="$devices" --durationMinutes="$gen_minutes" --speedup=1000000000 \
    --malformedRate=0.01 --duplicateRate=0.02 --lateRate=0.02 --outOfRangeRate=0.01 \
    > "$work/generator.out" 2> "$work/generator.err" || code=$?
  if [[ $code != 0 ]]; then
    echo "bench/streaming.sh: the generator run failed (exit $code):" >&2
    tail -n 5 "$work/generator.out" "$work/generator.err" >&2
    exit 1
  fi
  n=$(sed -n 's/^bronze : \([0-9]*\) lines read.*/\1/p' "$work/generator.out")
  span=$(span_of "$gen_lake" 0)
  too_short generator "$span"
  lat=$(latency "$gen_lake" ingest_ts) || { echo "bench/streaming.sh: the generator's latency query failed" >&2; exit 1; }
  read -r _ p50 p99 max <<< "$lat"
  read -r wall cpu rss < <(measured generator)
  row generator direct all-in-one "$n" "$span" "$(per_s "$n" "$span")" "$wall" "$cpu" "$rss" "$p50" "$p99" "$max"
fi

if [[ ,$phases, == *,kafka,* && ,$runners, == *,direct,* ]]; then
  start_broker
  backlog "for the all-in-one run"
  kafka_lake=$work/lake-kafka
  kafka_idle=15
  code=0
  /usr/bin/time -f "%e %U %S %M" -o "$work/kafka-run.time" "${m[@]}" run --bootstrapServers="$bootstrap" \
    --inputTopic=iot-raw --lakehouse="$kafka_lake" --generatorDevices="$devices" \
    --idleStopSeconds=$kafka_idle > "$work/kafka-run.out" 2> "$work/kafka-run.err" || code=$?
  if [[ $code != 0 ]]; then
    echo "bench/streaming.sh: the all-in-one run over Kafka failed (exit $code):" >&2
    tail -n 5 "$work/kafka-run.out" "$work/kafka-run.err" >&2
    exit 1
  fi
  n=$(read_by kafka-run) topic_n=$(topic_size iot-raw)
  stop_broker
  if [[ $n != "$topic_n" ]]; then
    echo "bench/streaming.sh: the all-in-one run read $n of the $topic_n records in iot-raw; no figures recorded" >&2
    exit 1
  fi
  span=$(span_of "$kafka_lake" "$kafka_idle")
  too_short kafka "$span"
  lat=$(latency "$kafka_lake" ingest_ts) || { echo "bench/streaming.sh: the all-in-one run's latency query failed" >&2; exit 1; }
  read -r _ p50 p99 max <<< "$lat"
  read -r wall cpu rss < <(measured kafka-run)
  row kafka direct all-in-one "$n" "$span" "$(per_s "$n" "$span")" "$wall" "$cpu" "$rss" "$p50" "$p99" "$max"
fi

# The README's streaming table, from this run's rows.
table=$work/table.md
{
  echo "| phase | runner | stage | events | seconds | events/s | wall | CPU | peak RSS | latency p50 / p99 / max | date, commit |"
  echo "|---|---|---|---:|---:|---:|---:|---:|---:|---|---|"
  # the newest row of each phase, runner and stage (a run of some phases or runners keeps the rest)
  awk -F, 'NR > 1 {
    key = $4 "," $5 "," $6
    if (!(key in last)) order[++n] = key
    lat = ($13 == "") ? "" : $13 " s / " $14 " s / " $15 " s"
    last[key] = sprintf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s %s |", $4, $5, $6, $7, $8, $9, ($10 == "" ? "" : $10 " s"), ($11 == "" ? "" : $11 " s"), ($12 == "" ? "" : $12 " MB"), lat, $2, $3)
  } END { for (i = 1; i <= n; i++) print last[order[i]] }' "$csv"
} > "$table"
awk -v t="$table" '
  /<!-- streaming:start -->/ { print; while ((getline line < t) > 0) print line; skip = 1; next }
  /<!-- streaming:end -->/ { skip = 0 }
  !skip { print }' README.md > "$work/README.md"
cp "$work/README.md" README.md
echo "appended to bench/results/streaming.csv; redrew the README's streaming table" >&2
