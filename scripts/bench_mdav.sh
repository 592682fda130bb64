#!/usr/bin/env bash
# MDAV microaggregation (BENCHMARKS.md, "Microaggregation"), in one run:
# - one numeric column: anonbox's SSE against the optimum of univariate microaggregation computed
#   by the `microaggregation` package on PyPI (Hansen and Mukherjee's dynamic programming in C++,
#   on the sorted column), and both times;
# - three numeric columns of 100,000 and 1,000,000 records: anonbox's wall time, CPU (user +
#   system), peak RSS and the method's own seconds (the report's elapsed_seconds.search), SSE/SST.
# The columns: a uniform number with two decimals, a skewed whole number (product of two
# uniforms times 5,000) and a number correlated with the first, one decimal; seeded.
#
#   python3 -m venv /tmp/mdav-venv && /tmp/mdav-venv/bin/pip install microaggregation numpy
#   scripts/bench_mdav.sh                      # VENV=/tmp/mdav-venv K=3 SIZES="100000 1000000"
#   BIN=target/debug/anonbox scripts/bench_mdav.sh   # after cargo build --profile test (opt-level 3)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-/tmp/mdav-venv}
K=${K:-3}
SIZES=${SIZES:-"100000 1000000"}
ONE=${ONE:-100000}
OUT=${OUT:-/tmp/anonbox-bench-mdav}
mkdir -p "$OUT"
bin=${BIN:-target/release/anonbox}
[ -x "$bin" ] || cargo build --release --quiet --bin anonbox

data() { # rows columns -> $OUT/data-ROWS-COLUMNS.csv
  python3 - "$1" "$2" "$OUT/data-$1-$2.csv" <<'EOF'
import random, sys
n, cols, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rng = random.Random(33)
with open(path, "w") as f:
    f.write(";".join(["a", "b", "c"][:cols]) + ";other\n")
    for i in range(n):
        a = round(rng.random() * 100, 2)
        b = round(rng.random() * rng.random() * 5000)
        c = round(a / 10 + rng.random() * 30, 1)
        f.write(";".join([f"{a}", f"{b}", f"{c}"][:cols]) + f";r{i % 7}\n")
EOF
}
config() { # rows columns -> config path
  local atts="" names=(a b c)
  for ((j = 0; j < $2; j++)); do
    atts="$atts<att index='$j' name='${names[$j]}'><intervals widths='1000000' start='-10000000'/></att>"
  done
  echo "<config method='MDAV' k='$K'><input filename='$OUT/data-$1-$2.csv' separator=';' header='true'/><output filename='$OUT/out-$1-$2.csv'/><qid>$atts</qid></config>" > "$OUT/c-$1-$2.xml"
  echo "$OUT/c-$1-$2.xml"
}
run() { # rows columns -> "wall cpu rss search sse sst grouping"
  local cfg
  cfg=$(config "$1" "$2")
  /usr/bin/time -f "%e %U %S %M" -o "$OUT/time" "$bin" -config "$cfg" -report "$OUT/r-$1-$2.json" -quiet
  read -r wall user sys rss < "$OUT/time"
  python3 - "$OUT/r-$1-$2.json" "$wall" "$user" "$sys" "$rss" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
wall, user, sysc, rss = sys.argv[2:]
print(f"{wall} {float(user) + float(sysc):.2f} {int(rss) // 1024} {r['elapsed_seconds']['search']:.2f} "
      f"{r['sse']:.6g} {r['sst']:.6g} {r['grouping'].replace(' ', '_')}")
EOF
}

echo "# load: $(uptime)"
echo "# k = $K"
echo
echo "## one numeric column, $ONE records"
data "$ONE" 1
read -r wall cpu rss search sse sst grouping < <(run "$ONE" 1)
"$VENV/bin/python" - "$OUT/data-$ONE-1.csv" "$sse" "$K" "$search" <<'EOF'
import sys, time
import numpy as np
from microaggregation import calculate_sse_dynamic
path, sse, k, search = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
x = np.loadtxt(path, delimiter=";", skiprows=1, usecols=0)
sd = x.std(ddof=1)
t = time.process_time()
optimum = calculate_sse_dynamic(np.sort(x).reshape(-1, 1), k)
cpu = time.process_time() - t
ours = sse * sd * sd  # the report's SSE is of the standardized column
print("| records | anonbox SSE | optimum (microaggregation 0.1.9) | ratio | anonbox search s | package CPU s |")
print("|---|---|---|---|---|---|")
print(f"| {len(x):,} | {ours:.6g} | {optimum:.6g} | {ours / optimum:.5f} | {search:.2f} | {cpu:.2f} |")
EOF
echo
echo "## three numeric columns"
echo "| records | wall s | CPU s | peak RSS MB | search s | SSE/SST | grouping |"
echo "|---|---|---|---|---|---|---|"
for n in $SIZES; do
  data "$n" 3
  read -r wall cpu rss search sse sst grouping < <(run "$n" 3)
  echo "| $n | $wall | $cpu | $rss | $search | $(python3 -c "print(f'{$sse / $sst:.5f}')") | $grouping |"
done
echo
echo "# load after: $(uptime)"
