#!/usr/bin/env bash
# The search time a user sees, beside ARX (BENCHMARKS.md, "Short searches"): for every ADULT
# reference row (k-anonymity, replicated, sensitive attributes, plus 0.2-closeness with the
# hierarchical distance) and CUP (k=5, suppression 0 and 2 %, DM* and Loss), in one run and row by
# row: ARX 3.9.2's thread CPU of `anonymize()` (/tmp/arx-build, see ../shared/arx/README.md; the
# median of ARX_REPS calls after a warm-up), then the `elapsed_seconds.search` of anonbox's JSON
# report from the command line (median of REPS runs, the default threads), their ratio, the
# process CPU of anonbox's runs (user + sys, whole process, median) and whether both found the same
# optimum (the same levels, or the same loss where ARX's ties allow another). Then the median and
# the worst ratio, the rows above 0.25, and the load average before, after and beside every row.
#
#   scripts/bench_short.sh [BINARY]        # default target/release/anonbox (built if missing)
#   ROWS=short REPS=5 scripts/bench_short.sh
#
# ROWS: all (default), short (the rows whose search ends within ~100 ms), adult or cup.
# THREADS: passed as -threads (default: none, anonbox's default). ARX_REPS (default 4, the first a
# warm-up), CUP_DIR (default /work/shared/data/cup, read there, never copied), ARX_BUILD
# (default /tmp/arx-build), OUT (default /tmp/anonbox-bench-short: configs, outputs, the rows as
# JSON lines in rows.jsonl).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-target/release/anonbox}")
[ -x "$bin" ] || { cargo build --release --quiet --bin anonbox; bin=$(realpath target/release/anonbox); }
export BIN=$bin
export REPS=${REPS:-3} ARX_REPS=${ARX_REPS:-4} ROWS=${ROWS:-all} THREADS=${THREADS:-}
export CUP_DIR=${CUP_DIR:-/work/shared/data/cup} ARX_BUILD=${ARX_BUILD:-/tmp/arx-build}
export OUT=${OUT:-/tmp/anonbox-bench-short}
mkdir -p "$OUT"
for c in 10 40; do
  f=$OUT/adult_x$c.csv
  if [ ! -f "$f" ]; then
    head -n 1 tests/data/adult/adult.csv > "$f"
    for _ in $(seq $c); do tail -n +2 tests/data/adult/adult.csv; done >> "$f"
  fi
done
exec python3 - <<'PY'
import json, os, statistics, subprocess, sys
env = os.environ
out, bin_, reps, arx_reps = env["OUT"], env["BIN"], int(env["REPS"]), int(env["ARX_REPS"])
which, threads, cup = env["ROWS"], env["THREADS"], env["CUP_DIR"]
root = os.getcwd()
adult = f"{root}/tests/data/adult"
ref = f"{root}/tests/data/reference"
classpath = open(f"{env['ARX_BUILD']}/classpath.txt").read().strip()
load = lambda: " ".join(open("/proc/loadavg").read().split()[:3])
g = lambda s: "%g" % s
metric = {"dmstar": "DMStar", "loss": "Loss", "dm": "DM", "precision": "Precision",
          "entropy": "Entropy"}

def config(name, qids, hier, data, extra=""):
    """An anonbox config of these quasi-identifiers (header index, name) with hierarchy files."""
    atts = "".join(f"<att index='{i}' name='{c}' hierarchy='{hier(c)}'/>" for i, c in qids)
    path = f"{out}/{name}.xml"
    sep = ";"
    with open(path, "w") as f:
        f.write(f"<config method='Flash'><input filename='{data}' separator='{sep}' header='true'/>"
                f"<output filename='{out}/out.csv'/><qid>{atts}</qid>{extra}</config>")
    return path

cols = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass",
        "occupation", "salary-class"]
ahier = lambda c: f"{adult}/adult_hierarchy_{c}.csv"
adult_xml = config("adult", list(enumerate(cols)), ahier, f"{adult}/adult.csv")
rows = []  # (name, short, ARX arguments, anonbox arguments)
if which in ("all", "adult", "short"):
    for f in ["arx-adult-k-anonymity.json", "arx-adult-replicated.json"]:
        for r in json.load(open(f"{ref}/{f}")):
            ds, k, s, m = r["dataset"], r["k"], r["suppression_limit"], r["metric"]
            data = f"{adult}/adult.csv" if ds == "adult.csv" else f"{out}/{ds}"
            short = r["arx_anonymize_cpu_ms_median"] < 150
            rows.append((f"ADULT{ds[5:-4]} k={k} s={g(s)} {metric[m]}", short,
                         f"--data {data} --hier-dir {adult} --hier-prefix adult --k {k} --supp {s} "
                         f"--metric {m}",
                         ["-config", adult_xml, "-input", data, "-k", str(k), "-suppression", g(s),
                          "-metric", metric[m]]))
    models = {"distinct-l-diversity": ("--model distinct --l 3", "<distinct-l-diversity l='3'/>"),
              "entropy-l-diversity": ("--model entropy --l 3", "<entropy-l-diversity l='3'/>"),
              "recursive-(c,l)-diversity": ("--model recursive --c 4 --l 3",
                                            "<recursive-cl-diversity c='4' l='3'/>"),
              "t-closeness": ("--model t --t 0.2 --distance equal",
                              "<t-closeness t='0.2' distance='equal'/>"),
              "t-closeness hierarchical": ("--model t --t 0.2 --distance hierarchical",
                                           "<t-closeness t='0.2' distance='hierarchical'/>")}
    qids = [(i, c) for i, c in enumerate(cols) if c != "occupation"]
    for m, (arx, model) in models.items():
        sens = (f"<sens><att index='7' name='occupation' hierarchy='{ahier('occupation')}'/></sens>"
                f"<privacy>{model}</privacy>")
        xml = config(f"adult-{m.split()[-1]}", qids, ahier, f"{adult}/adult.csv", sens)
        rows.append((f"ADULT {m} s=0.02 Loss", m == "t-closeness hierarchical",
                     f"--data {adult}/adult.csv --qi {','.join(c for _, c in qids)} "
                     f"--sensitive occupation {arx} --supp 0.02 --metric loss",
                     ["-config", xml, "-suppression", "0.02", "-metric", "Loss"]))
if which in ("all", "cup", "short") and os.path.exists(f"{cup}/cup.csv"):
    ccols = ["ZIP", "AGE", "GENDER", "INCOME", "STATE", "RAMNTALL", "NGIFTALL", "MINRAMNT"]
    xml = config("cup", list(enumerate(ccols)), lambda c: f"{cup}/cup_hierarchy_{c}.csv",
                 f"{cup}/cup.csv")
    for s in [0, 0.02]:
        for m in ["dmstar", "loss"]:
            rows.append((f"CUP k=5 s={g(s)} {metric[m]}", s == 0,
                         f"--data {cup}/cup.csv --qi {','.join(ccols)} --k 5 --supp {s} --metric {m}",
                         ["-config", xml, "-k", "5", "-suppression", g(s), "-metric", metric[m]]))
elif which in ("all", "cup"):
    print(f"(CUP skipped: {cup}/cup.csv not found)", file=sys.stderr)
if which == "short":
    rows = [r for r in rows if r[1]]

def arx(args):
    cmd = (f"java -Xmx3g -cp '{classpath}' ArxRun {args} --reps {arx_reps} --warmup 1 "
           f"--no-output-stats")
    p = subprocess.run(cmd, shell=True, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"ARX failed ({cmd}):\n{p.stderr[-2000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])

def anonbox(args):
    """One command-line run: (search s, process CPU s of all its threads, report)."""
    extra = ["-threads", threads] if threads else []
    cmd = [bin_, "-quiet", "-method", "Flash", *args, *extra, "-output", f"{out}/out.csv",
           "-report", f"{out}/report.json"]
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise SystemExit(f"anonbox failed ({' '.join(cmd)})")
    report = json.load(open(f"{out}/report.json"))
    return report["elapsed_seconds"]["search"], usage.ru_utime + usage.ru_stime, report

print(f"load before: {load()}; anonbox {bin_}, {reps} runs a row"
      f"{', -threads ' + threads if threads else ' (default threads)'}; ARX {arx_reps} calls a row "
      f"(first a warm-up)")
print("| row | ARX CPU (ms) | anonbox search (ms) | ratio | anonbox process CPU (ms) | threads | same optimum | load (1 min) |")
print("|---|---:|---:|---:|---:|---:|---|---:|")
ratios = []
with open(f"{out}/rows.jsonl", "w") as log:
    for name, short, arx_args, args in rows:
        a = arx(arx_args)
        runs = [anonbox(args) for _ in range(reps)]
        search = statistics.median(r[0] for r in runs) * 1000
        cpu = statistics.median(r[1] for r in runs) * 1000
        rep = runs[-1][2]
        arx_ms = a["anonymize_cpu_ms_median"]
        ratio = search / arx_ms
        la, lb = a["information_loss"], rep["information_loss"]
        if a["transformation"] == rep["transformation"]:
            same = "yes"
        elif abs(la - lb) <= 1e-9 * max(abs(la), 1.0):
            same = "tie (same loss)"
        else:
            same = f"NO: ARX {a['transformation']} {la}, anonbox {rep['transformation']} {lb}"
        l1 = load().split()[0]
        ratios.append((ratio, name))
        print(f"| {name} | {arx_ms:.1f} | {search:.1f} | {ratio:.3f} | {cpu:.0f} | "
              f"{rep.get('threads', '-')} | {same} | {l1} |", flush=True)
        log.write(json.dumps({"row": name, "arx_cpu_ms": arx_ms, "search_ms": search,
                              "ratio": ratio, "process_cpu_ms": cpu, "same": same,
                              "searches_ms": [r[0] * 1000 for r in runs], "load": l1}) + "\n")
        log.flush()
print()
if ratios:
    worst = max(ratios)
    above = [n for r, n in ratios if r > 0.25]
    print(f"{len(ratios)} rows: ratio median {statistics.median(r for r, _ in ratios):.3f}, "
          f"worst {worst[0]:.3f} ({worst[1]}); above 0.25: {len(above)}"
          f"{' (' + ', '.join(above) + ')' if above else ''}")
print(f"load after: {load()}")
PY
