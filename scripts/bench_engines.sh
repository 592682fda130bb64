#!/usr/bin/env bash
# Engines benchmark (BENCHMARKS.md, "Parquet and engines"): Flash k=5 (or $METHOD) on each
# engine, on CSV and on Parquet, for the generated people file (scripts/people_data.py: six
# quasi-identifiers, nearly every tuple distinct: the group-by is the work) and ADULT
# replicated (few distinct tuples: the scan is the work).
#
#   scripts/bench_engines.sh                         # people 2m, ADULT x100 (3.0 M rows)
#   PEOPLE=20m ADULT_COPIES=3316 scripts/bench_engines.sh   # the issue's 20 M and 100 M rows
#   ENGINES="embedded" scripts/bench_engines.sh      # the engines to compare
#                                                    # (default: embedded datafusion ballista;
#                                                    # ballista: a local cluster of EXECUTORS
#                                                    # executors, default 2, by scripts/cluster.sh)
#   SPILL=64M scripts/bench_engines.sh               # also datafusion under -memoryLimit 64M
#                                                    # (the people file: its frequency set spills)
#   METHOD=Mondrian scripts/bench_engines.sh         # another method than Flash (k = 5)
#   OUTPUT=folder scripts/bench_engines.sh           # the release into a data set folder of
#                                                    # Parquet parts (each engine's partitions
#                                                    # write their own; default: one file in the
#                                                    # input's format, in input order)
#
# The binaries are built with the ballista feature (it includes datafusion).
# Inputs are generated in $BENCH_DIR (default /tmp/anonbox-engines), never in the repository;
# Parquet by `cargo run --release --example to_parquet`. Columns: the -report's elapsed
# seconds (load = the frequency set, write = the release), CPU (user + system) and the driver's
# peak RSS from /usr/bin/time -v, and the 1-minute load average at the start of each run (the
# machine is shared).
set -euo pipefail
cd "$(dirname "$0")/.."
work=${BENCH_DIR:-/tmp/anonbox-engines}
people=${PEOPLE:-2m}
copies=${ADULT_COPIES:-100}
engines=${ENGINES:-embedded datafusion ballista}
spill=${SPILL:-}
method=${METHOD:-Flash}
output=${OUTPUT:-file}
mkdir -p "$work"
# PROFILE=dev: the binaries of the README's test command (`cargo test --features ballista`:
# anonbox at opt-level 3, its dependencies at 2, debug assertions on): for a machine with no
# time for a release build.
if [ "${PROFILE:-release}" = dev ]; then
    cargo test --quiet --features ballista --no-run
    BIN=target/debug/anonbox
    export ANONBOX_CLUSTER_BIN=target/debug/anonbox-cluster
    CONV=target/debug/examples/to_parquet
else
    cargo build --release --quiet --features ballista --bin anonbox --bin anonbox-cluster --example to_parquet
    BIN=target/release/anonbox
    export ANONBOX_CLUSTER_BIN=target/release/anonbox-cluster
    CONV=target/release/examples/to_parquet
fi

[ -s "$work/people-$people.csv" ] || scripts/people_data.py "$people" "$work"
[ -s "$work/people-$people.parquet" ] || "$CONV" "$work/people-$people.csv" , "$work/people-$people.parquet"
sed "s|people-$people.csv|people-$people.parquet|" "$work/people-$people.xml" > "$work/people-$people-parquet.xml"
if [ ! -s "$work/adult-x$copies.csv" ]; then
    head -n 1 tests/data/adult/adult.csv > "$work/adult-x$copies.csv"
    for _ in $(seq "$copies"); do tail -n +2 tests/data/adult/adult.csv; done >> "$work/adult-x$copies.csv"
fi
[ -s "$work/adult-x$copies.parquet" ] || "$CONV" tests/data/adult/adult.csv ';' "$work/adult-x$copies.parquet" --copies "$copies"
for f in csv parquet; do
    sed -e "s|../tests/data/adult/adult.csv|$work/adult-x$copies.$f|" \
        -e "s|\.\./tests/data/adult/|$PWD/tests/data/adult/|g" configs/adult.xml > "$work/adult-x$copies-$f.xml"
done
cp "$work/people-$people.xml" "$work/people-$people-csv.xml"

if [[ " $engines " == *" ballista "* ]]; then
    export ANONBOX_CLUSTER_STATE="$work/cluster"
    trap 'scripts/cluster.sh down' EXIT
    cluster=$(scripts/cluster.sh up --executors "${EXECUTORS:-2}")
fi

echo "machine: $(nproc) cores, $(awk '/model name/ {sub(/.*: /, ""); print; exit}' /proc/cpuinfo)"
echo "commit: $(git rev-parse --short HEAD), $method k = 5, ${PROFILE:-release} build, release into a $output"
echo "| data | input | engine | frequency set (s) | search (s) | release (s) | total (s) | CPU (s) | peak RSS (MB) | load avg |"
echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|"
run() { # data input engine [flags]
    local data=$1 input=$2 engine=$3; shift 3
    local la; la=$(cut -d' ' -f1 /proc/loadavg)
    local ext=csv; [ "$input" = parquet ] && ext=parquet
    local dest="$work/out.$ext"
    if [ "$output" = folder ]; then dest="$work/out-parts/"; rm -rf "$dest"; fi
    rm -f "$work/report.json"
    if ! /usr/bin/time -v "$BIN" -config "$work/$data-$input.xml" -method "$method" -k 5 -quiet \
        -engine "$engine" -output "$dest" -report "$work/report.json" "$@" \
        > /dev/null 2> "$work/time.txt"; then
        echo "| $data | $input | $engine $* | failed: $(grep -v '^\s' "$work/time.txt" | head -n 1) | | | | | | $la |"
        return
    fi
    local rss cpu
    rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$work/time.txt")
    cpu=$(awk -F': ' '/(User|System) time/ {s += $2} END {printf "%.1f", s}' "$work/time.txt")
    python3 - "$work/report.json" "$data" "$input" "$engine $*" "$rss" "$la" "$cpu" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
e = r["elapsed_seconds"]
print(f"| {sys.argv[2]} ({r['records']:,} rows) | {sys.argv[3]} | {sys.argv[4].strip()} | {e['load']:.1f} | "
      f"{e['search']:.1f} | {e['write']:.1f} | {e['total']:.1f} | {sys.argv[7]} | {sys.argv[5]} | {sys.argv[6]} |")
PY
}
for data in "people-$people" "adult-x$copies"; do
    for input in csv parquet; do
        for engine in $engines; do
            if [ "$engine" = ballista ]; then
                run "$data" "$input" "$cluster"
            else
                run "$data" "$input" "$engine"
            fi
        done
        if [ -n "$spill" ] && [ "${data%%-*}" = people ]; then
            run "$data" "$input" datafusion -memoryLimit "$spill"
        fi
    done
done
rm -rf "$work/out.csv" "$work/out.parquet" "$work/out-parts"
