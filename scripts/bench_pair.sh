#!/usr/bin/env bash
# Two builds side by side (BENCHMARKS.md, "The redesign"): a base binary and the current one run
# in turn, A B A B ..., on the ADULT reference rows (Flash: k 2, 5, 10 x suppression 0, 2 %, 4 % x
# DM* and Loss) and on the census-income file with 12 quasi-identifiers (BFS to the proof, Loss;
# scripts/highdim_data.py). Per row: the median over REPS runs of the wall time
# (/usr/bin/time) and of the report's search seconds, for each build, the ratio new / base,
# and whether both releases are the same bytes.
#
#   scripts/bench_pair.sh BASE_BINARY [NEW_BINARY]     # NEW defaults to target/release/anonbox
#   REPS=5 ROWS=adult scripts/bench_pair.sh /tmp/base/anonbox
#
# ROWS: adult, q12 or all (default). Outputs live in $OUT (default /tmp/anonbox-bench-pair).
set -euo pipefail
cd "$(dirname "$0")/.."
base=$(realpath "$1")
new=$(realpath "${2:-target/release/anonbox}")
REPS=${REPS:-3}
ROWS=${ROWS:-all}
OUT=${OUT:-/tmp/anonbox-bench-pair}
mkdir -p "$OUT"
[ -x "$new" ] || cargo build --release --quiet --bin anonbox

once() { # binary tag args... -> prints "wall search"
  local bin=$1 tag=$2; shift 2
  /usr/bin/time -f %e -o "$OUT/time-$tag.txt" "$bin" -quiet -output "$OUT/out-$tag.csv" \
    -report "$OUT/report-$tag.json" "$@" > /dev/null
  local search
  search=$(tr -d ' \n' < "$OUT/report-$tag.json" | sed -n 's/.*"search":\([0-9.e-]*\).*/\1/p')
  echo "$(tail -n 1 "$OUT/time-$tag.txt") $search"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
row() { # label args...
  local label=$1; shift
  : > "$OUT/a.txt"; : > "$OUT/b.txt"
  for _ in $(seq "$REPS"); do
    once "$base" a "$@" >> "$OUT/a.txt"
    once "$new" b "$@" >> "$OUT/b.txt"
  done
  local wa wb sa sb same
  wa=$(cut -d' ' -f1 "$OUT/a.txt" | median); wb=$(cut -d' ' -f1 "$OUT/b.txt" | median)
  sa=$(cut -d' ' -f2 "$OUT/a.txt" | median); sb=$(cut -d' ' -f2 "$OUT/b.txt" | median)
  same=$(cmp -s "$OUT/out-a.csv" "$OUT/out-b.csv" && echo yes || echo NO)
  echo "| $label | $wa | $wb | $(awk -v a="$wa" -v b="$wb" 'BEGIN { printf "%.2f", b / a }') | $sa | $sb | $(awk -v a="$sa" -v b="$sb" 'BEGIN { printf "%.2f", (a > 0) ? b / a : 1 }') | $same |"
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); $REPS runs of each, in turn"
echo "| row | wall base s | wall new s | new/base | search base s | search new s | new/base | same release |"
echo "|---|---:|---:|---:|---:|---:|---:|---|"
if [ "$ROWS" = adult ] || [ "$ROWS" = all ]; then
  for k in 2 5 10; do for s in 0 0.02 0.04; do for m in DMStar Loss; do
    row "ADULT k=$k s=$s $m" -config configs/adult.xml -method Flash -k $k -suppression $s -metric $m
  done; done; done
fi
if [ "$ROWS" = q12 ] || [ "$ROWS" = all ]; then
  work=${BENCH_DIR:-/tmp/anonbox-highdim}
  if [ ! -f "$work/q12.xml" ]; then
    . scripts/census_income.sh
    census=$(census_income_file "${CENSUS_DIR:-/tmp/anonbox-bench-utd}")
    python3 scripts/highdim_data.py "$census" "$work" > "$work.sizes"
  fi
  row "census q=12 BFS Loss (proof)" -config "$work/q12.xml" -method BFS -metric Loss
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
