#!/usr/bin/env bash
# Flash benchmarks (see BENCHMARKS.md, "Flash"):
#   1. search CPU time per configuration: `cargo bench --bench flash_search` (one JSON line each),
#      all ADULT reference rows, replicated ADULT, CUP (if present), then the ablation table;
#   2. whole process: wall time and peak RSS of `anonbox -method Flash` (/usr/bin/time -v) for
#      every ADULT reference row, ADULT x40 k=200 and CUP k=5.
# Usage: scripts/bench_flash.sh [search|process|ablation|all]   (default: all)
# Environment: REPS (search repetitions, default 5), CUP_DIR (default /work/shared/data/cup;
# read from there, never copied into the project), OUT (default /tmp/anonbox-bench-flash).
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
REPS=${REPS:-5}
CUP_DIR=${CUP_DIR:-/work/shared/data/cup}
OUT=${OUT:-/tmp/anonbox-bench-flash}
mkdir -p "$OUT"
cup_args=()
[ -f "$CUP_DIR/cup.csv" ] && cup_args=(--cup "$CUP_DIR")

if [ "$what" = search ] || [ "$what" = all ]; then
  echo "## search CPU (median of $REPS)"
  cargo bench --quiet --bench flash_search -- --reps "$REPS" "${cup_args[@]}" | tee "$OUT/search.jsonl"
fi
if [ "$what" = ablation ] || [ "$what" = all ]; then
  echo "## ablation"
  for case in "adult.csv k=5 s=0 loss" "adult.csv k=5 s=0.02 loss" "adult.csv k=2 s=0.04 dmstar" \
              "adult_x40.csv k=200 s=0.02"; do
    cargo bench --quiet --bench flash_search -- --reps 3 --ablation --only "$case"
  done | tee "$OUT/ablation.jsonl"
fi
if [ "$what" = process ] || [ "$what" = all ]; then
  cargo build --quiet --release
  bin=target/release/anonbox
  # ADULT x40: the body 40 times under one header.
  x40=$OUT/adult_x40.csv
  if [ ! -f "$x40" ]; then
    head -n 1 tests/data/adult/adult.csv > "$x40"
    for _ in $(seq 40); do tail -n +2 tests/data/adult/adult.csv; done >> "$x40"
  fi
  run() { # label, extra args...
    local label=$1; shift
    /usr/bin/time -v "$bin" -quiet -method Flash -output "$OUT/out.csv" -report "$OUT/report.json" \
      "$@" 2> "$OUT/time.txt" > /dev/null
    local wall rss search checks loss
    wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$OUT/time.txt")
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$OUT/time.txt")
    search=$(tr -d ' \n' < "$OUT/report.json" | sed -n 's/.*"search":\([0-9.e-]*\).*/\1/p')
    checks=$(tr -d ' \n' < "$OUT/report.json" | sed -n 's/.*"transformations_checked":\([0-9]*\).*/\1/p')
    loss=$(tr -d ' \n' < "$OUT/report.json" | sed -n 's/.*"information_loss":\([0-9.e+-]*\).*/\1/p')
    echo "| $label | $wall | $rss | $search | $checks | $loss |"
  }
  echo "## whole process (release)"
  echo "| run | wall (m:ss) | peak RSS (KB) | search (s, report) | checks | loss |"
  echo "|---|---:|---:|---:|---:|---:|"
  for k in 2 5 10; do for s in 0 0.02 0.04; do for m in DMStar Loss; do
    run "ADULT k=$k s=$s $m" -config configs/adult.xml -k $k -suppression $s -metric $m
  done; done; done
  for s in 0 0.02 0.04; do for m in Precision Entropy DM; do
    run "ADULT k=5 s=$s $m" -config configs/adult.xml -k 5 -suppression $s -metric $m
  done; done
  for s in 0 0.02; do
    run "ADULT x40 k=200 s=$s DMStar" -config configs/adult.xml -input "$x40" -k 200 -suppression $s -metric DMStar
  done
  if [ -f "$CUP_DIR/cup.csv" ]; then
    cols="ZIP AGE GENDER INCOME STATE RAMNTALL NGIFTALL MINRAMNT"
    {
      echo "<config method='Flash'><input filename='$CUP_DIR/cup.csv' separator=';' header='true'/>"
      echo "<output filename='$OUT/cup-out.csv'/><qid>"
      i=0; for c in $cols; do
        echo "<att index='$i' name='$c' hierarchy='$CUP_DIR/cup_hierarchy_$c.csv'/>"; i=$((i+1))
      done
      echo "</qid></config>"
    } > "$OUT/cup.xml"
    for s in 0 0.02; do for m in Loss DMStar; do
      run "CUP k=5 s=$s $m" -config "$OUT/cup.xml" -k 5 -suppression $s -metric $m
    done; done
  else
    echo "(CUP skipped: $CUP_DIR/cup.csv not found)"
  fi
fi
