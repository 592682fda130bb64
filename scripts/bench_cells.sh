#!/usr/bin/env bash
# Cell suppression against record suppression (BENCHMARKS.md, "Cell suppression"), in one run:
# ADULT (configs/adult.xml: nine quasi-identifiers), Flash, 2 % suppression, k = 2, 5 and 10.
# For each k and each mode: the records suppressed whole, the records touched (a cell blanked),
# the cells blanked (of the nine per record a record suppression blanks), the classes released,
# the average prosecutor risk, the search's and the whole run's seconds and the CPU seconds.
#
#   scripts/bench_cells.sh                          # KS="2 5 10" SUPPRESSION=0.02
#   BIN=target/debug/anonbox scripts/bench_cells.sh # after cargo build --profile test (opt-level 3)
set -euo pipefail
cd "$(dirname "$0")/.."
KS=${KS:-"2 5 10"}
SUPPRESSION=${SUPPRESSION:-0.02}
OUT=${OUT:-/tmp/anonbox-bench-cells}
mkdir -p "$OUT"
bin=${BIN:-target/release/anonbox}
[ -x "$bin" ] || cargo build --release --quiet --bin anonbox

echo "# $(uptime)"
echo "# ADULT, Flash, suppression $SUPPRESSION; $bin"
printf '%-3s %-8s %10s %10s %10s %12s %8s %10s %8s %8s %6s\n' \
  k mode suppressed touched cells "cells/rec-s" classes avg_risk search total cpu
for k in $KS; do
  for mode in records cells; do
    /usr/bin/time -f "%U %S" -o "$OUT/time" "$bin" -config configs/adult.xml -method Flash \
      -k "$k" -suppression "$SUPPRESSION" -suppress "$mode" -output "$OUT/$mode-$k.csv" \
      -report "$OUT/$mode-$k.json" -quiet
    read -r user sys < "$OUT/time"
    python3 - "$OUT/$mode-$k.json" "$OUT/$mode-$k.csv" "$k" "$mode" "$user" "$sys" <<'EOF'
import json, sys
report, release, k, mode, user, sysc = sys.argv[1:]
r = json.load(open(report))
c = r.get("cell_suppression")
if c:
    touched, cells, removed = c["records_touched"], c["cells_suppressed"], c["records_record_suppression"]
else:
    # Record suppression blanks every quasi-identifier of each record it suppresses.
    touched = removed = r["suppressed_records"]
    cells = 9 * removed
# Recount the * cells of the file (generalized values at the top print * too).
stars = sum(line.rstrip("\n").split(";").count("*") for line in list(open(release))[1:])
share = cells / (9 * removed) if removed else 0.0
print(f"{k:<3} {mode:<8} {r['suppressed_records']:>10} {touched:>10} {cells:>10} {share:>12.3f} "
      f"{r['equivalence_classes']:>8} {r['risk']['average']:>10.4f} "
      f"{r['elapsed_seconds']['search']:>8.2f} {r['elapsed_seconds']['total']:>8.2f} "
      f"{float(user) + float(sysc):>6.2f}   (* in file: {stars})")
EOF
  done
done
