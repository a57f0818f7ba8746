#!/usr/bin/env bash
# Throughput and peak memory of the IoT pipeline replaying generated NDJSON on the DirectRunner,
# with Beam's immutability/encodability checks on (the default) and off.
#   bench/iot-replay.sh [minutes-of-event-time] [devices]
# Prints one line per configuration: lines, seconds, lines/s, peak RSS. Builds first.
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${1:-60}
devices=${2:-100}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mvn -B -q -DskipTests package
./medallion generate --seed 1 --generatorDevices "$devices" \
  --durationMinutes "$minutes" --malformedRate 0.01 --duplicateRate 0.02 --outOfRangeRate 0.01 \
  --registry "$work/devices.csv" > "$work/events.ndjson" 2>/dev/null
lines=$(wc -l < "$work/events.ndjson")
for checks in on off; do
  flags=(--enforceImmutability=true --enforceEncodability=true)
  [ "$checks" = off ] && flags=(--enforceImmutability=false --enforceEncodability=false)
  start=$(date +%s.%N)
  MEDALLION_JAVA_OPTS=-Xmx4g /usr/bin/time -f "%M" -o "$work/rss" ./medallion run \
    --input="$work/events.ndjson" --devices="$work/devices.csv" --lakehouse="$work/lake-$checks" \
    "${flags[@]}" > /dev/null 2>&1
  end=$(date +%s.%N)
  awk -v l="$lines" -v s="$start" -v e="$end" -v c="$checks" -v rss="$(cat "$work/rss")" \
    'BEGIN { printf "DirectRunner replay, checks %-3s: %d lines in %.1f s = %.0f lines/s, peak RSS %.0f MB\n", c, l, e - s, l / (e - s), rss / 1024 }'
done
