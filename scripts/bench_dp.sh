#!/usr/bin/env bash
# (e,d)-differential privacy (SafePub) against ARX 3.9.2 on ADULT's nine columns, in one run
# (BENCHMARKS.md, "Differential privacy"): per row, ARX's anonymize() CPU time (median of REPS calls
# after one warm-up: the runner's anonymize_cpu_ms_median, thread CPU, which includes ARX's encoding and
# its sampling), anonbox's search time (the report's elapsed_seconds.search: the sample's checks and the
# walk, wall clock, median of REPS runs), their ratio, anonbox's whole process CPU (user + system, loading
# and writing included, median) and the load. The runs are random (each samples anew): transformations
# are not compared here (tests/it/dp.rs compares their distributions).
#
#   scripts/bench_dp.sh                 # needs ARX built by ../shared/arx/build.sh (ARX_BUILD)
#   REPS=5 scripts/bench_dp.sh
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-5}
OUT=${OUT:-/tmp/anonbox-bench-dp}
build=${ARX_BUILD:-/tmp/arx-build}
cp="$(cat "$build/classpath.txt")"
mkdir -p "$OUT"
bin=target/release/anonbox
[ -x "$bin" ] || cargo build --release --quiet --bin anonbox
data=$(realpath tests/data/adult)

config() { # name privacy -> path
  local name=$1 privacy=$2 qid="" i=0
  for c in sex age race marital-status education native-country workclass occupation salary-class; do
    qid="$qid<att index='$i' name='$c' hierarchy='$data/adult_hierarchy_$c.csv'/>"
    i=$((i + 1))
  done
  echo "<config method='Flash' metric='Loss'><input filename='$data/adult.csv' separator=';' header='true'/><output filename='$OUT/o.csv'/><qid>$qid</qid><privacy>$privacy</privacy></config>" > "$OUT/$name.xml"
  echo "$OUT/$name.xml"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
row() { # label config arx-args...
  local label=$1 cfg=$2; shift 2
  local arx_ms
  arx_ms=$(java -cp "$cp" ArxRun --data "$data/adult.csv" --model ed-dp --supp 1 --metric loss \
    --reps $((REPS + 1)) "$@" 2> /dev/null | tail -n 1 |
    python3 -c "import json,sys; print(json.loads(sys.stdin.read())['anonymize_cpu_ms_median'])")
  : > "$OUT/c.txt"
  : > "$OUT/s.txt"
  for _ in $(seq "$REPS"); do
    /usr/bin/time -f "%U %S" -o "$OUT/time.txt" "$bin" -config "$cfg" -quiet -report "$OUT/r.json" > /dev/null
    awk '{ print ($1 + $2) * 1000 }' "$OUT/time.txt" >> "$OUT/c.txt"
    python3 -c "import json; print(json.load(open('$OUT/r.json'))['elapsed_seconds']['search'] * 1000)" >> "$OUT/s.txt"
  done
  local s c
  s=$(median < "$OUT/s.txt")
  c=$(median < "$OUT/c.txt")
  echo "| $label | $(printf '%.1f' "$arx_ms") | $(printf '%.1f' "$s") | $(awk -v a="$arx_ms" -v s="$s" 'BEGIN { printf "%.3f", s / a }') | $c | $(cut -d' ' -f1 /proc/loadavg) |"
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); $REPS runs of each (ARX: one warm-up call more)"
echo "| row | ARX CPU ms | anonbox search ms | anonbox/ARX | anonbox process CPU ms | load |"
echo "|---|---:|---:|---:|---:|---:|"
row "(2, 1e-5), medium" "$(config med "<differential-privacy epsilon='2' delta='1e-5' generalization='medium'/>")" \
  --epsilon 2 --delta 1e-5 --dp-generalization medium
row "(1, 1e-6), high" "$(config high "<differential-privacy epsilon='1' delta='1e-6' generalization='high'/>")" \
  --epsilon 1 --delta 1e-6 --dp-generalization high
row "(2, 1e-5), 20 steps" "$(config s20 "<differential-privacy epsilon='2' delta='1e-5' steps='20'/>")" \
  --epsilon 2 --delta 1e-5 --dp-search-steps 20
row "(2, 1e-5), 100 steps" "$(config s100 "<differential-privacy epsilon='2' delta='1e-5' steps='100'/>")" \
  --epsilon 2 --delta 1e-5 --dp-search-steps 100
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
