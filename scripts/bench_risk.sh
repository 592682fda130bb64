#!/usr/bin/env bash
# The risk-based privacy models against ARX 3.9.2 on ADULT, in one run (BENCHMARKS.md, "Risk-based
# models"): per row, ARX's anonymize() CPU time (median of REPS calls after one warm-up, the runner's
# anonymize_cpu_ms_median: thread CPU, which includes ARX's encoding of the data), anonbox's search
# CPU time (thread CPU of the search, loading excluded: `cargo bench --bench risk_search`, median of
# REPS), the CPU ratio, anonbox's whole process CPU (user + system of a run, loading and writing
# included, median of REPS runs), whether both found the same transformation, and the load.
#
#   scripts/bench_risk.sh                 # needs ARX built by ../shared/arx/build.sh (ARX_BUILD)
#   REPS=5 scripts/bench_risk.sh
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-3}
OUT=${OUT:-/tmp/anonbox-bench-risk}
build=${ARX_BUILD:-/tmp/arx-build}
cp="$(cat "$build/classpath.txt")"
mkdir -p "$OUT"
bin=target/release/anonbox
[ -x "$bin" ] || cargo build --release --quiet --bin anonbox
cargo bench --no-run --quiet --bench risk_search 2> /dev/null
bench=$(ls -t target/release/deps/risk_search-* | grep -v '\.d$' | head -n 1)
data=$(realpath tests/data/adult)
q8=sex,age,race,marital-status,education,native-country,workclass,salary-class

config() { # name privacy sensitive? -> path
  local name=$1 privacy=$2 sens=${3:-} qid="" i=0
  for c in sex age race marital-status education native-country workclass occupation salary-class; do
    if [ "$c" != "$sens" ]; then
      qid="$qid<att index='$i' name='$c' hierarchy='$data/adult_hierarchy_$c.csv'/>"
    fi
    i=$((i + 1))
  done
  local sensxml=""
  [ -n "$sens" ] && sensxml="<sens><att index='7' name='$sens' hierarchy='$data/adult_hierarchy_$sens.csv'/></sens>"
  echo "<config method='Flash' suppression='0.02' metric='Loss'><input filename='$data/adult.csv' separator=';' header='true'/><output filename='$OUT/o.csv'/><qid>$qid</qid>$sensxml<privacy>$privacy</privacy></config>" > "$OUT/$name.xml"
  echo "$OUT/$name.xml"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
row() { # label config arx-args...
  local label=$1 cfg=$2; shift 2
  local arx
  arx=$(java -cp "$cp" ArxRun --data "$data/adult.csv" --supp 0.02 --metric loss --reps $((REPS + 1)) "$@" 2> /dev/null | tail -n 1)
  local arx_ms arx_t
  arx_ms=$(echo "$arx" | python3 -c "import json,sys; print(json.loads(sys.stdin.read())['anonymize_cpu_ms_median'])")
  arx_t=$(echo "$arx" | python3 -c "import json,sys; print(json.loads(sys.stdin.read())['transformation'])" | tr -d ' ')
  : > "$OUT/c.txt"
  for _ in $(seq "$REPS"); do
    /usr/bin/time -f "%U %S" -o "$OUT/time.txt" "$bin" -config "$cfg" -quiet -report "$OUT/r.json" > /dev/null
    awk '{ print ($1 + $2) * 1000 }' "$OUT/time.txt" >> "$OUT/c.txt"
  done
  local s c t
  s=$("$bench" --reps "$REPS" "$cfg" | python3 -c "import json,sys; print(json.loads(sys.stdin.read())['cpu_ms_median'])")
  c=$(median < "$OUT/c.txt")
  t=$(python3 -c "import json; print(json.load(open('$OUT/r.json'))['transformation'])" | tr -d ' ')
  echo "| $label | $arx_ms | $s | $(awk -v a="$arx_ms" -v s="$s" 'BEGIN { printf "%.3f", s / a }') | $c | $([ "$t" = "$arx_t" ] && echo yes || echo "NO $t vs $arx_t") | $(cut -d' ' -f1 /proc/loadavg) |"
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); $REPS runs of each (ARX: one warm-up call more)"
echo "| row | ARX CPU ms | anonbox search CPU ms | anonbox/ARX | anonbox process CPU ms | same optimum | load |"
echo "|---|---:|---:|---:|---:|---|---:|"
row "average-risk 0.05" "$(config avg "<average-risk threshold='0.05'/>")" --model average-risk --risk 0.05
row "sample-uniqueness 0.01" "$(config su "<sample-uniqueness threshold='0.01'/>")" --model sample-uniqueness --risk 0.01
row "5-map usa" "$(config km "<k-map k='5' population='usa'/>")" --model kmap --k 5 --population-model usa
row "10-map 1,000,000" "$(config km2 "<k-map k='10' population-size='1000000'/>")" --model kmap --k 10 --population-model 1000000
row "population-uniqueness 0.01 dankar usa" "$(config pu "<population-uniqueness threshold='0.01' model='dankar' population='usa'/>")" --model population-uniqueness --risk 0.01 --pop-model dankar --population-model usa
row "population-uniqueness 0.05 dankar 60000" "$(config pu2 "<population-uniqueness threshold='0.05' model='dankar' population-size='60000'/>")" --model population-uniqueness --risk 0.05 --pop-model dankar --population-model 60000
row "4-disclosure (occupation)" "$(config dd "<delta-disclosure delta='4'/>" occupation)" --model delta-disclosure --qi $q8 --sensitive occupation --delta 4
row "basic 3-likeness (occupation)" "$(config bb "<beta-likeness beta='3'/>" occupation)" --model basic-beta-likeness --qi $q8 --sensitive occupation --beta 3
row "enhanced 3-likeness (occupation)" "$(config eb "<beta-likeness beta='3' enhanced='true'/>" occupation)" --model enhanced-beta-likeness --qi $q8 --sensitive occupation --beta 3
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
