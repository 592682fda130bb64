#!/usr/bin/env bash
# Huge-file benchmark (BENCHMARKS.md, "Huge files"): the generated people file (scripts/people_data.py:
# 6 quasi-identifiers, nearly every tuple distinct) at 1 M, 5 M and 20 M rows, every method end to end.
#
#   scripts/bench_huge.sh                          # sizes 1m 5m 20m, all methods (Incognito_K at 1m only)
#   SIZES="20m" scripts/bench_huge.sh
#   SIZES="1m" METHODS="Flash Mondrian" scripts/bench_huge.sh
#   BIN=/tmp/anonbox-old scripts/bench_huge.sh     # another build (before/after figures)
#
# Inputs are generated in $BENCH_DIR (default /tmp/anonbox-huge), never in the repository.
# load, search, total: the -report's elapsed seconds; CPU: user + system seconds of the whole
# run and peak RSS, from /usr/bin/time -v (on a loaded machine CPU seconds are the steadier figure).
# Every line carries the 1-minute load average at its start (the machine is shared).
set -euo pipefail
cd "$(dirname "$0")/.."
work=${BENCH_DIR:-/tmp/anonbox-huge}
sizes=${SIZES:-"1m 5m 20m"}
methods=${METHODS:-"Datafly Mondrian Incognito_K Flash"}
k=${K:-10}
mkdir -p "$work"
if [ -z "${BIN:-}" ]; then
    cargo build --release --quiet --bin anonbox
    BIN=target/release/anonbox
fi

echo "machine: $(nproc) cores, $(awk '/model name/ {sub(/.*: /, ""); print; exit}' /proc/cpuinfo)"
echo "commit: $(git rev-parse --short HEAD), binary: $BIN, k = $k"
echo "| rows | method | load (s) | search (s) | total (s) | CPU (s) | load rows/s | peak RSS (MB) | classes | load avg |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for size in $sizes; do
    [ -s "$work/people-$size.csv" ] || scripts/people_data.py "$size" "$work"
    for m in $methods; do
        if [ "$m" = Incognito_K ] && [ "$size" != 1m ]; then continue; fi
        la=$(cut -d' ' -f1 /proc/loadavg)
        rm -f "$work/report.json"
        if ! /usr/bin/time -v "$BIN" -config "$work/people-$size.xml" -method "$m" -k "$k" -quiet \
            -output "$work/out.csv" -report "$work/report.json" > /dev/null 2> "$work/time.txt"; then
            echo "| $size | $m | failed: $(grep -v '^\s' "$work/time.txt" | head -n 1) | | | | | | | $la |"
            continue
        fi
        rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$work/time.txt")
        cpu=$(awk -F': ' '/(User|System) time/ {s += $2} END {printf "%.1f", s}' "$work/time.txt")
        python3 - "$work/report.json" "$size" "$m" "$rss" "$la" "$cpu" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
e = r["elapsed_seconds"]
print(f"| {sys.argv[2]} | {sys.argv[3]} | {e['load']:.1f} | {e['search']:.1f} | {e['total']:.1f} | "
      f"{sys.argv[6]} | {r['records'] / e['load']:,.0f} | {sys.argv[4]} | "
      f"{r['equivalence_classes']:,} | {sys.argv[5]} |")
PY
    done
done
rm -f "$work/out.csv"
