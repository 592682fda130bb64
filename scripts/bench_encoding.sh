#!/usr/bin/env bash
# What reading an input in another encoding costs, and that UTF-8 costs nothing.
#
# Runs ADULT x40 (1.2 M rows, 100 MB, the bundled ADULT body 40 times under its header) with
# Flash and Datafly at k = 10 on one thread: as UTF-8 (the default, no decoder), and declared
# windows-1252 (`-encoding windows-1252`: decoded to UTF-8 below the reader, the release encoded
# back). With BASE=<an older anonbox binary> the UTF-8 runs are repeated with it, to show the
# default path unchanged. Prints the median wall time and peak RSS of REPS runs (alternating
# binaries) and whether every release equals the UTF-8 one byte for byte.
#
#   scripts/bench_encoding.sh                      # REPS=5, BIN=target/release/anonbox
#   BASE=/tmp/old/anonbox scripts/bench_encoding.sh
#
# OUT (default /tmp/anonbox-bench-encoding) holds the generated input and the releases.
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-5}
OUT=${OUT:-/tmp/anonbox-bench-encoding}
BIN=${BIN:-target/release/anonbox}
BASE=${BASE:-}
mkdir -p "$OUT"
[ -n "${BIN_BUILT:-}" ] || cargo build --release --quiet

x40=$OUT/adult_x40.csv
if [ ! -f "$x40" ]; then
  src=tests/data/adult/adult.csv
  { head -1 "$src"; for _ in $(seq 40); do tail -n +2 "$src"; done; } >"$x40"
fi

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "commit: $(git rev-parse --short HEAD), load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "input: $x40 ($(($(wc -l <"$x40") - 1)) rows, $(($(stat -c %s "$x40") / 1000000)) MB)"

# run LABEL BINARY METHOD [FLAGS...]: one run, appends "wall_s rss_kb" to $OUT/LABEL.times.
run() {
  local label=$1 bin=$2 method=$3
  shift 3
  /usr/bin/time -f "%e %M" -o "$OUT/t" "$bin" -config configs/adult.xml -input "$x40" \
    -method "$method" -k 10 -threads 1 -output "$OUT/$label.csv" -quiet "$@"
  cat "$OUT/t" >>"$OUT/$label.times"
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo
echo "| method | input read as | binary | wall (s, median of $REPS) | peak RSS (MB) | release equal |"
echo "|---|---|---|---:|---:|---|"
for method in Flash Datafly; do
  labels=("$method-utf8" "$method-1252")
  [ -n "$BASE" ] && labels+=("$method-base")
  for l in "${labels[@]}"; do rm -f "$OUT/$l.times"; done
  for _ in $(seq "$REPS"); do
    run "$method-utf8" "$BIN" "$method"
    run "$method-1252" "$BIN" "$method" -encoding windows-1252
    [ -n "$BASE" ] && run "$method-base" "$BASE" "$method"
  done
  for l in "${labels[@]}"; do
    case $l in
      *-utf8) what="UTF-8 (default)"; bin=$BIN ;;
      *-1252) what="windows-1252"; bin=$BIN ;;
      *-base) what="UTF-8 (default)"; bin=$BASE ;;
    esac
    wall=$(cut -d' ' -f1 "$OUT/$l.times" | median)
    rss=$(cut -d' ' -f2 "$OUT/$l.times" | median)
    same=$(cmp -s "$OUT/$l.csv" "$OUT/$method-utf8.csv" && echo yes || echo NO)
    echo "| $method | $what | $bin | $wall | $((rss / 1024)) | $same |"
  done
done
