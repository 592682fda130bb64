#!/usr/bin/env bash
# Local recoding (BENCHMARKS.md, "Local recoding"): anonbox -localRecoding and ARX 3.9.2's local
# recoding (optimizeIterativeFast(handle, 1/100, 0.05) after Flash, the GUI's iterative mode) side
# by side in one run, on ADULT with all nine columns as quasi-identifiers, Loss, k = 2, 5, 10 at
# 2 % and 4 % suppression (the rows of ARX's reference set that suppress). For each: records
# suppressed by the global optimum and after local recoding, Loss before and after (both ARX's
# from its output's granularity), and time: ARX's thread CPU of anonymize() plus that of the local
# recoding (medians of REPS calls after one warm-up, data loaded before each call), anonbox's
# CPU (user + system, median of REPS whole runs, so loading, the search and writing included) and
# its report's load-to-result seconds (elapsed_seconds.load + search). The load average is
# printed with each row (the machine is shared).
#
#   scripts/bench_local_recoding.sh                     # REPS=3 BIN=target/release/anonbox
#   BIN=target/debug/anonbox scripts/bench_local_recoding.sh   # a test-profile build (opt-level 3)
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-3}
OUT=${OUT:-/tmp/anonbox-bench-local}
mkdir -p "$OUT"
bin=${BIN:-target/release/anonbox}
[ -x "$bin" ] || cargo build --release --quiet --bin anonbox
build=${ARX_BUILD:-/tmp/arx-build}
cp="$(cat "$build/classpath.txt")"

printf '%-4s %-5s | %-28s | %-28s | %-18s | %s\n' k supp "suppressed: global -> ARX / ours" \
  "Loss: global -> ARX / ours" "time: ARX / ours" "load"
for k in 2 5 10; do
  for s in 0.02 0.04; do
    arx=$(java -cp "$cp" ArxRun --data tests/data/adult/adult.csv --k $k --supp $s --metric loss \
      --reps $((REPS + 1)) --local-recoding 100 2> /dev/null | tail -n 1)
    cpus=()
    for _ in $(seq "$REPS"); do
      /usr/bin/time -f '%U %S' -o "$OUT/time" "$bin" -config configs/adult.xml -method Flash \
        -k $k -suppression $s -localRecoding -threads 1 -output "$OUT/out.csv" \
        -report "$OUT/r.json" -quiet
      cpus+=("$(awk '{print $1 + $2}' "$OUT/time")")
    done
    ours_cpu=$(printf '%s\n' "${cpus[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
    load=$(cut -d' ' -f1 /proc/loadavg)
    ARX="$arx" OURS_CPU="$ours_cpu" python3 - "$OUT/r.json" $k $s "$load" <<'PY'
import json, os, sys
a = json.loads(os.environ["ARX"])
lr = a["local_recoding"]
r = json.load(open(sys.argv[1]))
o = r["local_recoding"]
k, s, load = sys.argv[2], sys.argv[3], sys.argv[4]
arx_ms = a["anonymize_cpu_ms_median"] + lr["cpu_ms_median"]
ours_s = float(os.environ["OURS_CPU"])
search = r["elapsed_seconds"]["load"] + r["elapsed_seconds"]["search"]
print(f'{k:<4} {s:<5} | {lr["before"]["suppressed_records"]:>5} -> {lr["after"]["suppressed_records"]:>5} / '
      f'{o["after"]["suppressed_records"]:>5}       | '
      f'{lr["before"]["information_loss"]:.4f} -> {lr["after"]["information_loss"]:.4f} / {o["after"]["loss"]:.4f} | '
      f'{arx_ms / 1000:.2f} / {ours_s:.2f} s ({search:.2f}) | {load}   '
      f'steps ARX {lr["after"]["steps"]} / ours {len(o["steps"]) - 1}')
PY
  done
done
uptime
