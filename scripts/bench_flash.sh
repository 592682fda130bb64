#!/usr/bin/env bash
# Flash benchmarks (see BENCHMARKS.md, "Flash"):
#   1. search CPU time per configuration: `cargo bench --bench flash_search` (one JSON line each),
#      all ADULT reference rows, replicated ADULT, CUP (if present), then the ablation table;
#   2. whole process: wall time and peak RSS of `anonbox -method Flash` (/usr/bin/time -v) for
#      every ADULT reference row, ADULT x40 k=200 and CUP k=5.
#   3. threads: ARX 3.9.2 (/tmp/arx-build, see ../shared/arx/README.md) on every ADULT reference row
#      (k-anonymity, replicated, sensitive attributes) and CUP, then anonbox's search with 1 and 2
#      threads in the same run; a table with ARX's CPU, anonbox's times, the ratio and the speed-up.
#      Not part of `all`.
# Usage: scripts/bench_flash.sh [search|process|ablation|threads|all]   (default: all)
# Environment: REPS (search repetitions, default 5), CUP_DIR (default /work/shared/data/cup;
# read from there, never copied into the project), OUT (default /tmp/anonbox-bench-flash),
# ARX_REPS (anonymize() calls per ARX row, first one warm-up, default 4), ARX_BUILD (/tmp/arx-build).
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
REPS=${REPS:-5}
CUP_DIR=${CUP_DIR:-/work/shared/data/cup}
OUT=${OUT:-/tmp/anonbox-bench-flash}
mkdir -p "$OUT"
cup_args=()
[ -f "$CUP_DIR/cup.csv" ] && cup_args=(--cup "$CUP_DIR")

if [ "$what" = search ] || [ "$what" = all ]; then
  echo "## search CPU (median of $REPS)"
  cargo bench --quiet --bench flash_search -- --reps "$REPS" "${cup_args[@]}" | tee "$OUT/search.jsonl"
fi
if [ "$what" = ablation ] || [ "$what" = all ]; then
  echo "## ablation"
  for case in "adult.csv k=5 s=0 loss" "adult.csv k=5 s=0.02 loss" "adult.csv k=2 s=0.04 dmstar" \
              "adult_x40.csv k=200 s=0.02"; do
    cargo bench --quiet --bench flash_search -- --reps 3 --ablation --only "$case"
  done | tee "$OUT/ablation.jsonl"
fi
if [ "$what" = process ] || [ "$what" = all ]; then
  cargo build --quiet --release
  bin=target/release/anonbox
  # ADULT x40: the body 40 times under one header.
  x40=$OUT/adult_x40.csv
  if [ ! -f "$x40" ]; then
    head -n 1 tests/data/adult/adult.csv > "$x40"
    for _ in $(seq 40); do tail -n +2 tests/data/adult/adult.csv; done >> "$x40"
  fi
  run() { # label, extra args...
    local label=$1; shift
    /usr/bin/time -v "$bin" -quiet -method Flash -output "$OUT/out.csv" -report "$OUT/report.json" \
      "$@" 2> "$OUT/time.txt" > /dev/null
    local wall rss search checks loss
    wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$OUT/time.txt")
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$OUT/time.txt")
    search=$(tr -d ' \n' < "$OUT/report.json" | sed -n 's/.*"search":\([0-9.e-]*\).*/\1/p')
    checks=$(tr -d ' \n' < "$OUT/report.json" | sed -n 's/.*"transformations_checked":\([0-9]*\).*/\1/p')
    loss=$(tr -d ' \n' < "$OUT/report.json" | sed -n 's/.*"information_loss":\([0-9.e+-]*\).*/\1/p')
    echo "| $label | $wall | $rss | $search | $checks | $loss |"
  }
  echo "## whole process (release)"
  echo "| run | wall (m:ss) | peak RSS (KB) | search (s, report) | checks | loss |"
  echo "|---|---:|---:|---:|---:|---:|"
  for k in 2 5 10; do for s in 0 0.02 0.04; do for m in DMStar Loss; do
    run "ADULT k=$k s=$s $m" -config configs/adult.xml -k $k -suppression $s -metric $m
  done; done; done
  for s in 0 0.02 0.04; do for m in Precision Entropy DM; do
    run "ADULT k=5 s=$s $m" -config configs/adult.xml -k 5 -suppression $s -metric $m
  done; done
  for s in 0 0.02; do
    run "ADULT x40 k=200 s=$s DMStar" -config configs/adult.xml -input "$x40" -k 200 -suppression $s -metric DMStar
  done
  if [ -f "$CUP_DIR/cup.csv" ]; then
    cols="ZIP AGE GENDER INCOME STATE RAMNTALL NGIFTALL MINRAMNT"
    {
      echo "<config method='Flash'><input filename='$CUP_DIR/cup.csv' separator=';' header='true'/>"
      echo "<output filename='$OUT/cup-out.csv'/><qid>"
      i=0; for c in $cols; do
        echo "<att index='$i' name='$c' hierarchy='$CUP_DIR/cup_hierarchy_$c.csv'/>"; i=$((i+1))
      done
      echo "</qid></config>"
    } > "$OUT/cup.xml"
    for s in 0 0.02; do for m in Loss DMStar; do
      run "CUP k=5 s=$s $m" -config "$OUT/cup.xml" -k 5 -suppression $s -metric $m
    done; done
  else
    echo "(CUP skipped: $CUP_DIR/cup.csv not found)"
  fi
fi

if [ "$what" = threads ]; then
  ARX_REPS=${ARX_REPS:-4}
  ARX_BUILD=${ARX_BUILD:-/tmp/arx-build}
  adult=tests/data/adult
  for c in 10 40; do
    f=$OUT/adult_x$c.csv
    if [ ! -f "$f" ]; then
      head -n 1 $adult/adult.csv > "$f"
      for _ in $(seq $c); do tail -n +2 $adult/adult.csv; done >> "$f"
    fi
  done
  echo "## load before: $(cut -d' ' -f1-3 /proc/loadavg)"
  # One line per row: case name (as the bench names it) | ArxRun arguments.
  python3 - "$OUT" "$CUP_DIR" > "$OUT/arx-rows.txt" <<'PY'
import json, os, sys
out, cup = sys.argv[1], sys.argv[2]
ref = "tests/data/reference/"
g = lambda s: "%g" % s
for f in ["arx-adult-k-anonymity.json", "arx-adult-replicated.json"]:
    for r in json.load(open(ref + f)):
        ds, k, s, m = r["dataset"], r["k"], r["suppression_limit"], r["metric"]
        data = "tests/data/adult/adult.csv" if ds == "adult.csv" else f"{out}/{ds}"
        print(f"{ds} k={k} s={g(s)} {m}|--data {data} --hier-dir tests/data/adult --hier-prefix adult "
              f"--k {k} --supp {s} --metric {m}")
models = {"distinct-l-diversity": "--model distinct --l 3", "entropy-l-diversity": "--model entropy --l 3",
          "recursive-(c,l)-diversity": "--model recursive --c 4 --l 3",
          "t-closeness": "--model t --t 0.2 --distance equal"}
for r in json.load(open(ref + "arx-adult-sensitive.json")):
    m = r["privacy_model"]
    qi = ",".join(r["quasi_identifiers"])
    print(f"adult.csv {m} s=0.02 loss|--data tests/data/adult/adult.csv --qi {qi} "
          f"--sensitive occupation {models[m]} --supp 0.02 --metric loss")
if os.path.exists(f"{cup}/cup.csv"):
    for s in [0, 0.02]:
        print(f"cup.csv k=5 s={g(s)} loss|--data {cup}/cup.csv --qi ZIP,AGE,GENDER,INCOME,STATE,"
              f"RAMNTALL,NGIFTALL,MINRAMNT --k 5 --supp {s} --metric loss")
PY
  : > "$OUT/arx.jsonl"
  while IFS='|' read -r name args; do
    # shellcheck disable=SC2086
    java -Xmx3g -cp "$(cat "$ARX_BUILD/classpath.txt")" ArxRun $args --reps "$ARX_REPS" \
      --no-output-stats 2>/dev/null \
      | python3 -c 'import json,sys; v=json.loads(sys.stdin.read()); v["case"]=sys.argv[1]; print(json.dumps(v))' "$name" \
      >> "$OUT/arx.jsonl" || echo "ARX failed: $name" >&2
  done < "$OUT/arx-rows.txt"
  echo "## load after ARX: $(cut -d' ' -f1-3 /proc/loadavg)"
  for t in 1 2; do
    cargo bench --quiet --bench flash_search -- --reps "$REPS" --threads $t --arx "$OUT/arx.jsonl" \
      "${cup_args[@]}" > "$OUT/threads$t.jsonl"
    cargo bench --quiet --bench flash_search -- --reps "$REPS" --threads $t --arx "$OUT/arx.jsonl" \
      --sensitive >> "$OUT/threads$t.jsonl"
    echo "## load after $t thread(s): $(cut -d' ' -f1-3 /proc/loadavg)"
  done
  # Peak memory of the whole process with 1 and 2 threads (ADULT x40).
  cargo build --quiet --release
  echo "| ADULT x40 k=200 s=0.02 | threads | peak RSS (KB) | wall (m:ss) | report threads |"
  echo "|---|---:|---:|---:|---:|"
  for m in DMStar Loss; do for t in 1 2; do
    /usr/bin/time -v target/release/anonbox -quiet -method Flash -config configs/adult.xml \
      -input "$OUT/adult_x40.csv" -k 200 -suppression 0.02 -metric $m -threads $t \
      -output "$OUT/out.csv" -report "$OUT/report.json" 2> "$OUT/time.txt" > /dev/null
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$OUT/time.txt")
    wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$OUT/time.txt")
    rt=$(tr -d ' \n' < "$OUT/report.json" | sed -n 's/.*"threads":\([0-9]*\).*/\1/p')
    echo "| $m | $t | $rss | $wall | $rt |"
  done; done
  python3 - "$OUT" <<'PY'
import json, statistics, sys
out = sys.argv[1]
rows = lambda t: {v["case"]: v for v in map(json.loads, open(f"{out}/threads{t}.jsonl"))}
one, two = rows(1), rows(2)
print("| row | ARX CPU (ms) | 1 thread CPU (ms) | 1 thread wall (ms) | 2 threads wall (ms) | 2 threads CPU (ms) | speed-up (wall) | ratio 1 | ratio 2 | same result |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
r2, slow = [], []
for case, a in one.items():
    b = two[case]
    arx = b["arx_cpu_ms"]
    sp = a["wall_ms_median"] / b["wall_ms_median"]
    same = (a["transformation"], a["loss"], a["checks"]) == (b["transformation"], b["loss"], b["checks"])
    f = lambda x: "-" if x is None else f"{x:.3f}"
    print(f"| {case} | {f(arx)} | {a['cpu_ms_median']:.1f} | {a['wall_ms_median']:.1f} | "
          f"{b['wall_ms_median']:.1f} | {b['process_cpu_ms_median']:.1f} | {sp:.2f} | {f(a['ratio'])} | "
          f"{f(b['ratio'])} | {'yes' if same else 'NO'} |")
    if b["ratio"] is not None and case.startswith("adult"):
        r2.append(b["ratio"])
    if a["wall_ms_median"] > 100:
        slow.append(sp)
print()
if r2:
    print(f"ADULT rows: median ratio with 2 threads {statistics.median(r2):.3f}, max {max(r2):.3f} ({len(r2)} rows)")
if slow:
    print(f"rows over 100 ms: speed-up 1->2 threads median {statistics.median(slow):.2f}, min {min(slow):.2f} ({len(slow)} rows)")
PY
fi
