#!/usr/bin/env bash
# `anonbox init` on the full KDD census-income training file (BENCHMARKS.md, "anonbox init").
#
#   scripts/bench_init.sh
#
# Data: the census-income training file (199,523 rows, 42 columns, no header), fetched and
# converted by scripts/census_income.sh into $BENCH_DIR (default /tmp/anonbox-bench-init), never
# into the repository. Steps, each under /usr/bin/time -v (wall clock, maximum resident set
# size):
#   1. anonbox init: profile, proposals, config and hierarchy files (profile time as printed);
#   2. the config it wrote, as it stands (k = 5, 5 % suppression; Flash, or Optimal with its
#      time limit when the lattice is large), with a report;
#   3. the output's smallest class, from the report.
set -euo pipefail
cd "$(dirname "$0")/.."
work=${BENCH_DIR:-/tmp/anonbox-bench-init}
mkdir -p "$work"

. scripts/census_income.sh
data=$(census_income_file "$work")
echo "input: $data ($(wc -l < "$data") rows)"

cargo build --release --quiet --bin anonbox
bin=$PWD/target/release/anonbox

measure() { # label, command...
    local label=$1
    shift
    /usr/bin/time -v "$@" 2> "$work/time.txt" | tail -n +1
    local wall rss
    wall=$(grep "Elapsed (wall clock)" "$work/time.txt" | awk '{print $NF}')
    rss=$(grep "Maximum resident set size" "$work/time.txt" | awk '{print $NF}')
    grep -v "Command being timed\|^\s" "$work/time.txt" || true
    echo "$label: wall $wall, peak RSS $((rss / 1024)) MB"
}

rm -rf "$work/job"
measure "init" "$bin" init "$data" --dir "$work/job"
measure "the config as written" "$bin" -config "$work/job/config.xml" \
    -report "$work/job/report.json" -quiet
grep -E '"(method|algorithm|records|suppressed_records|equivalence_classes|information_loss|lower_bound|proven_optimal|lattice_size|transformations_checked)"' \
    "$work/job/report.json"
grep -A3 '"risk"' "$work/job/report.json" | head -4
