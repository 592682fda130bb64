#!/usr/bin/env bash
# High-dimensional lattice search (BENCHMARKS.md, "High-dimensional search"): the KDD census-income
# file with 20 quasi-identifiers (scripts/highdim_data.py), k=5, 5 % suppression, Loss.
#
#   scripts/bench_highdim.sh                      # every q, caps below
#   QS="12 14" PROOF_CAP=1800 scripts/bench_highdim.sh
#   QS="12 14" METRICS="Loss DMStar" THREADS=1 scripts/bench_highdim.sh
#
# Per q: Flash to the proof where the lattice has at most FLASH_MAX transformations (capped at
# FLASH_CAP seconds with timeout), BFS with -timeLimit PROOF_CAP (proven, or the bound reached at
# the cap; PROOF_CAP=0 skips it), and BFS with -timeLimit 3 and 30 (ANYTIME). Columns: search seconds, time to the
# first valid and to the best transformation, checks, antichain sizes at the end (anonymous /
# not anonymous / pruned), peak RSS (/usr/bin/time -v), loss, lower bound and whether it is
# proven. With /tmp/arx-build (see ../shared/arx/README.md) it also runs ARX 3.9.2 in the same run:
# Flash on the q of ARX_FLASH_QS and Lightning with ARX_LIGHTNING_MS on the q of ARX_QS (Loss only).
# METRICS lists the metrics to run (default Loss; e.g. "Loss DMStar"), THREADS sets -threads
# (default: anonbox's, all cores).
# Data and outputs live in $BENCH_DIR (default /tmp/anonbox-highdim), never in the repository.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=${BENCH_DIR:-/tmp/anonbox-highdim}
QS=${QS:-"8 10 12 13 14 15 16 18 20"}
FLASH_MAX=${FLASH_MAX:-3000000}
FLASH_CAP=${FLASH_CAP:-600}
PROOF_CAP=${PROOF_CAP:-600}
ANYTIME=${ANYTIME-"3 30"}
ARX_FLASH_QS=${ARX_FLASH_QS-8}
ARX_QS=${ARX_QS-15}
ARX_LIGHTNING_MS=${ARX_LIGHTNING_MS:-"3000 30000"}
ARX=${ARX_BUILD:-/tmp/arx-build}
METRICS=${METRICS:-Loss}
THREADS=${THREADS:-}

. scripts/census_income.sh
census=$(census_income_file "${CENSUS_DIR:-/tmp/anonbox-bench-utd}")
python3 scripts/highdim_data.py "$census" "$work" > "$work.sizes"
cargo build --release --quiet --bin anonbox
bin=$root/target/release/anonbox
cd "$work"

echo "# $(date -u +%FT%TZ) commit $(git -C "$root" rev-parse --short HEAD) load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| q | lattice | run | search s | first valid s | best s | checks | antichains a/na/p | peak MB | loss | lower bound | proven |"
echo "|---|---:|---|---:|---:|---:|---:|---|---:|---:|---:|---|"

# run Q LABEL ARGS...: one anonbox run, one table row.
run() {
    local q=$1 label=$2; shift 2
    local size
    size=$(awk -v q="q=$q" '$1 == q { sub("lattice=", "", $2); print $2 }' "$work.sizes")
    rm -f r.json
    local status=0
    /usr/bin/time -v -o time.txt "$@" -config "q$q.xml" -quiet -output "out-q$q.csv" \
        -report r.json ${THREADS:+-threads "$THREADS"} 2> err.txt || status=$?
    local rss
    rss=$(awk -F': ' '/Maximum resident/ { printf "%.0f", $2 / 1024 }' time.txt)
    if [ "$status" -ne 0 ] || [ ! -s r.json ]; then
        echo "| $q | $size | $label | (exit $status: $(tail -c 120 err.txt | tr '\n|' '  ')) | | | | | $rss | | | |"
        return
    fi
    python3 - "$q" "$size" "$label" "$rss" <<'PY'
import json, sys
q, size, label, rss = sys.argv[1:]
r = json.load(open("r.json"))
p = r.get("search_progress", {})
st = r.get("property_store", {})
f = lambda v, fmt="{:.2f}": "" if v is None else fmt.format(v)
print(f"| {q} | {size} | {label} | {f(r['elapsed_seconds']['search'])} | {f(p.get('first_valid_seconds'))} "
      f"| {f(p.get('best_seconds'))} | {r['transformations_checked']} "
      f"| {st.get('anonymous')}/{st.get('not_anonymous')}/{st.get('pruned')} | {rss} "
      f"| {f(r['information_loss'], '{:.6f}')} | {f(r.get('lower_bound'), '{:.6f}')} | {r.get('proven_optimal')} |")
PY
}

arx() {
    local q=$1 label=$2; shift 2
    [ -s "$ARX/classpath.txt" ] || return 0
    local qis
    qis=$(head -1 census20.csv | cut -d';' -f1-"$q" | tr ';' ',')
    java -Xmx8g -cp "$(cat "$ARX/classpath.txt")" ArxRun --data census20.csv --qi "$qis" --k 5 \
        --supp 0.05 --metric loss "$@" 2> arx-err.txt > arx.json || true
    python3 - "$q" "$label" <<'PY'
import json, sys
q, label = sys.argv[1:]
try:
    r = json.loads(open("arx.json").read().strip().splitlines()[-1])
except Exception:
    print(f"| {q} | | {label} | (failed: {open('arx-err.txt').read()[-120:]!r}) | | | | | | | | |")
    sys.exit()
loss = r.get("information_loss")
loss = "no result" if loss is None else f"{float(loss):.6f}"
print(f"| {q} | {r.get('lattice_size')} | {label} | {r['anonymize_cpu_ms_median'] / 1000:.2f} (CPU) | | "
      f"| {r.get('transformations_checked')} | | {r.get('heap_peak_mb', 0):.0f} (heap) "
      f"| {loss} | | {r.get('optimum_found')} |")
PY
}

for q in $QS; do
    size=$(awk -v q="q=$q" '$1 == q { sub("lattice=", "", $2); print $2 }' "$work.sizes")
    for metric in $METRICS; do
        # The configs say Loss; other metrics are named in the label.
        m=""
        [ "$metric" = Loss ] || m=" $metric"
        if [ "$size" -le "$FLASH_MAX" ]; then
            run "$q" "Flash$m" timeout "$FLASH_CAP" "$bin" -method Flash -metric "$metric"
        fi
        if [ "$PROOF_CAP" != 0 ]; then
            run "$q" "BFS$m (cap ${PROOF_CAP} s)" "$bin" -method BFS -metric "$metric" \
                -timeLimit "$PROOF_CAP"
        fi
        for t in $ANYTIME; do
            run "$q" "BFS$m -timeLimit $t" "$bin" -method BFS -metric "$metric" -timeLimit "$t"
        done
    done
    for aq in $ARX_FLASH_QS; do
        [ "$aq" = "$q" ] && arx "$q" "ARX Flash" --threshold max
    done
    for aq in $ARX_QS; do
        if [ "$aq" = "$q" ]; then
            for ms in $ARX_LIGHTNING_MS; do
                arx "$q" "ARX Lightning ${ms} ms" --algorithm lightning --time-limit "$ms"
            done
        fi
    done
done
echo "# done $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
