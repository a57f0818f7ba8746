#!/usr/bin/env bash
# Throughput and peak memory of the batch user-features pipeline (Bronze, then Silver + Gold) on
# the DirectRunner, Beam's immutability/encodability checks on (the default) and off.
#   bench/users-batch.sh [events] [users]
set -euo pipefail
cd "$(dirname "$0")/.."
events=${1:-200000}
users=${2:-20000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mvn -B -q -DskipTests package
mkdir -p "$work/in"
./medallion generate --kind users --seed 1 --count "$events" \
  --users "$users" --days 7 --malformedRate 0.005 --duplicateRate 0.02 --missingKeysRate 0.005 \
  --badPriceRate 0.01 > "$work/in/events.ndjson" 2>/dev/null
lines=$(wc -l < "$work/in/events.ndjson")
for checks in on off; do
  flags=(--enforceImmutability=true --enforceEncodability=true)
  [ "$checks" = off ] && flags=(--enforceImmutability=false --enforceEncodability=false)
  start=$(date +%s.%N)
  MEDALLION_JAVA_OPTS=-Xmx4g /usr/bin/time -f "%M" -o "$work/rss" ./medallion users \
    --input="$work/in/*.ndjson" --lakehouse="$work/lake-$checks" "${flags[@]}" > /dev/null 2>&1
  end=$(date +%s.%N)
  awk -v l="$lines" -v s="$start" -v e="$end" -v c="$checks" -v rss="$(cat "$work/rss")" \
    'BEGIN { printf "DirectRunner users batch, checks %-3s: %d lines in %.1f s = %.0f lines/s, peak RSS %.0f MB\n", c, l, e - s, l / (e - s), rss / 1024 }'
done
