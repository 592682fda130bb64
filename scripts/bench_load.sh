#!/usr/bin/env bash
# Load and Datafly benchmark (BENCHMARKS.md): ADULT replicated to 1.2 and 12 million rows.
#
#   scripts/bench_load.sh            # both sizes, plus Datafly k=50 on 1.2M
#   SIZES="1.2m" scripts/bench_load.sh
#   DATAFLY_SIZES="1.2m 12m" scripts/bench_load.sh   # Datafly on 12M as well
#
# Inputs are generated in $BENCH_DIR (default /tmp/anonbox-bench), never in the repository.
# Load: target/release/examples/load (open a temporary store, load, print rows/s).
# Datafly: the anonbox binary end to end (load, search, write genVals), timings from -report.
# Peak memory: "Maximum resident set size" of /usr/bin/time -v.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=${BENCH_DIR:-/tmp/anonbox-bench}
sizes=${SIZES:-"1.2m 12m"}
datafly_sizes=${DATAFLY_SIZES:-"1.2m"}
mkdir -p "$work"

cargo build --release --quiet --bin anonbox --example load

rows=$(($(wc -l < tests/data/adult/adult.csv) - 1))
copies() { case $1 in 1.2m) echo 40 ;; 12m) echo 400 ;; *) echo "unknown size $1" >&2; exit 2 ;; esac; }

prepare() { # size -> $work/adult-SIZE.{csv,xml}
    local size=$1 n csv=$work/adult-$1.csv
    n=$(copies "$size")
    if [ ! -s "$csv" ] || [ "$(wc -l < "$csv")" -ne $((n * rows + 1)) ]; then
        echo "generating $csv ($n copies of ADULT, $((n * rows)) rows)" >&2
        { head -n 1 tests/data/adult/adult.csv
          for _ in $(seq "$n"); do tail -n +2 tests/data/adult/adult.csv; done; } > "$csv.tmp"
        mv "$csv.tmp" "$csv"
    fi
    sed -e "s#filename=\"../tests/data/adult/adult.csv\"#filename=\"$csv\"#" \
        -e "s#\"\\.\\./tests/data/adult/#\"$root/tests/data/adult/#g" \
        -e "s#filename=\"out/adult-datafly.csv\"#filename=\"$work/out-$size.csv\"#" \
        configs/adult.xml > "$work/adult-$size.xml"
}

peak_mb() { awk -F': ' '/Maximum resident set size/ {printf "%.1f", $2 / 1024}' "$1"; }

echo "machine: $(nproc) cores, $(awk '/model name/ {sub(/.*: /, ""); print; exit}' /proc/cpuinfo)"
echo "commit: $(git rev-parse --short HEAD)"
for size in $sizes; do
    prepare "$size"
    /usr/bin/time -v target/release/examples/load -config "$work/adult-$size.xml" -quiet \
        > "$work/load-$size.txt" 2> "$work/load-$size.time"
    echo "load $size: $(cat "$work/load-$size.txt") peak_rss_mb=$(peak_mb "$work/load-$size.time")"
done

for size in $datafly_sizes; do
    prepare "$size"
    /usr/bin/time -v target/release/anonbox -config "$work/adult-$size.xml" -k 50 -quiet \
        -report "$work/datafly-$size.json" > /dev/null 2> "$work/datafly-$size.time"
    python3 - "$work/datafly-$size.json" "$(peak_mb "$work/datafly-$size.time")" "$size" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
e = r["elapsed_seconds"]
print(f"datafly k=50 {sys.argv[3]}: records={r['records']} classes={r['equivalence_classes']} "
      f"suppressed={r['suppressed_records']} transformation={r['transformation']} "
      f"load={e['load']:.2f}s search={e['search']:.2f}s write={e['write']:.2f}s "
      f"total={e['total']:.2f}s peak_rss_mb={sys.argv[2]}")
PY
done
