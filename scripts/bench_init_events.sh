#!/usr/bin/env bash
# `anonbox init` on a generated file of events whose timestamps are nearly all distinct
# (BENCHMARKS.md, "anonbox init on two million events"): the worst case for profiling and
# hierarchy building, whose memory grows with distinct values.
#
#   scripts/bench_init_events.sh                  # ROWS=2000000
#   ROWS=5000000 BIN=/path/to/anonbox scripts/bench_init_events.sh
#
# The file (seeded, about 50 bytes a row: id, timestamp, city code, amount, date) is written
# once into $BENCH_DIR (default /tmp/anonbox-bench-init-events), never into the repository.
# Prints the profile time, the wall clock and the peak RSS (/usr/bin/time -v) of the whole
# command and the sizes of the files it wrote; then the same for the run of the config it wrote
# as it stands (Flash, k = 5: a hierarchy of two million timestamps read, the data loaded and
# searched), with the report's times.
set -euo pipefail
cd "$(dirname "$0")/.."
work=${BENCH_DIR:-/tmp/anonbox-bench-init-events}
rows=${ROWS:-2000000}
mkdir -p "$work"
data=$work/events-$rows.csv
if [ ! -f "$data" ]; then
    python3 - "$data" "$rows" <<'EOF'
import datetime, random, sys
path, rows = sys.argv[1], int(sys.argv[2])
random.seed(7)
base = datetime.datetime(2020, 1, 1)
with open(path + ".part", "w") as f:
    f.write("id,when,city,amount,visit_date\n")
    for i in range(rows):
        t = base + datetime.timedelta(seconds=random.randrange(0, 60 * 60 * 24 * 365 * 2))
        d = base + datetime.timedelta(days=random.randrange(0, 3000))
        f.write(f"{i},{t:%Y-%m-%d %H:%M:%S},c{random.randrange(200)},"
                f"{random.randrange(100000) / 100:.2f},{d:%Y-%m-%d}\n")
import os
os.rename(path + ".part", path)
EOF
fi
if [ -z "${BIN:-}" ]; then
    cargo build --release --quiet --bin anonbox
    BIN=$PWD/target/release/anonbox
fi
echo "input: $data ($rows rows, $(du -m "$data" | cut -f1) MB); binary: $BIN"
rm -rf "$work/job"
/usr/bin/time -v "$BIN" init "$data" --header --dir "$work/job" 2> "$work/time.txt" \
    | grep -E "profiled|lattice"
grep -E "profiled" "$work/time.txt" || true
wall=$(grep "Elapsed (wall clock)" "$work/time.txt" | awk '{print $NF}')
rss=$(grep "Maximum resident set size" "$work/time.txt" | awk '{print $NF}')
echo "init: wall $wall, peak RSS $((rss / 1024)) MB, load average $(cut -d' ' -f1-3 /proc/loadavg)"
ls -l "$work/job" | awk 'NR > 1 {print "  " $5 "  " $NF}'
/usr/bin/time -v "$BIN" -config "$work/job/config.xml" -method Flash -k 5 \
    -output "$work/job/out.csv" -report "$work/job/report.json" -quiet 2> "$work/time.txt"
wall=$(grep "Elapsed (wall clock)" "$work/time.txt" | awk '{print $NF}')
rss=$(grep "Maximum resident set size" "$work/time.txt" | awk '{print $NF}')
echo "Flash k=5 on the config: wall $wall, peak RSS $((rss / 1024)) MB"
python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print("  report:", r["elapsed_seconds"], "transformation", r["transformation"])' "$work/job/report.json"
