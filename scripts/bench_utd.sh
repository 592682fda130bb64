#!/usr/bin/env bash
# UT Dallas methods on the full census-income training file (BENCHMARKS.md).
#
#   scripts/bench_utd.sh                 # every run below
#   RUNS="mondrian-2q anatomy" scripts/bench_utd.sh
#
# Data: the KDD census-income training file (199,523 rows), fetched and converted by
# scripts/census_income.sh into $BENCH_DIR (default /tmp/anonbox-bench-utd), never into the
# repository.
#
# Each run is the anonbox binary end to end (load, method, output written), with the configs of
# tests/data/census-income-1k (the sample's config.xml: sex and age; config-4qid.xml: age, sex,
# education, marital status; config-education.xml for Anatomy) and -input pointing at the full
# file. Time and peak memory: /usr/bin/time -v (wall clock, maximum resident set size); phase
# times from -report.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=${BENCH_DIR:-/tmp/anonbox-bench-utd}
mkdir -p "$work"
sample=$root/tests/data/census-income-1k

. scripts/census_income.sh
data=$(census_income_file "$work")
echo "converted file: $(wc -l < "$data") rows; its first 1,000 lines without '?' equal census-income_1K.data"

cargo build --release --quiet --bin anonbox

# name | config | arguments
all_runs="
datafly-2q|config.xml|-method Datafly -k 10
mondrian-2q|config.xml|-method Mondrian -k 10
incognito_k-2q|config.xml|-method Incognito_K -k 10 -suppThreshold 0
incognito_l-2q|config.xml|-method Incognito_L -l 1.2 -c 0
incognito_t-2q|config.xml|-method Incognito_T -t 0.2
mondrian-2q-genvalsdist|config.xml|-method Mondrian -k 10 -outputFormat genValsDist
mondrian-2q-anatomy|config.xml|-method Mondrian -k 10 -outputFormat anatomy
datafly-4q|config-4qid.xml|-method Datafly -k 10
mondrian-4q|config-4qid.xml|-method Mondrian -k 10
incognito_k-4q|config-4qid.xml|-method Incognito_K -k 10 -suppThreshold 0
incognito_l-4q|config-4qid.xml|-method Incognito_L -l 1.2 -c 0
incognito_t-4q|config-4qid.xml|-method Incognito_T -t 0.2
anatomy|config-education.xml|-method Anatomy -l 4
"
runs=${RUNS:-$(echo "$all_runs" | awk -F'|' 'NF {print $1}')}

peak_mb() { awk -F': ' '/Maximum resident set size/ {printf "%.1f", $2 / 1024}' "$1"; }
wall_s() {
    awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0
        for (i = 1; i <= n; i++) s = s * 60 + p[i]; printf "%.2f", s}' "$1"
}

echo "machine: $(nproc) cores, $(awk '/model name/ {sub(/.*: /, ""); print; exit}' /proc/cpuinfo)"
echo "commit: $(git rev-parse --short HEAD)"
for name in $runs; do
    line=$(echo "$all_runs" | awk -F'|' -v n="$name" '$1 == n')
    [ -n "$line" ] || { echo "unknown run $name" >&2; exit 2; }
    config=$(echo "$line" | cut -d'|' -f2)
    # shellcheck disable=SC2206
    args=($(echo "$line" | cut -d'|' -f3))
    /usr/bin/time -v target/release/anonbox -verbose -config "$sample/$config" "${args[@]}" \
        -input "$data" -output "$work/$name.data" -report "$work/$name.json" \
        > "$work/$name.stdout" 2> "$work/$name.time"
    python3 - "$work/$name.json" "$name" "$(wall_s "$work/$name.time")" \
        "$(peak_mb "$work/$name.time")" "$(grep -m1 '^Selection' "$work/$name.stdout" || true)" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
e = r["elapsed_seconds"]
print(f"{sys.argv[2]}: wall={sys.argv[3]}s peak_rss_mb={sys.argv[4]} records={r['records']} "
      f"classes={r['equivalence_classes']} suppressed={r['suppressed_records']} "
      f"load={e['load']:.2f}s search={e['search']:.2f}s write={e['write']:.2f}s "
      f"checked={r['transformations_checked']} {sys.argv[5]}")
PY
done
