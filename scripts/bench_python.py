#!/usr/bin/env python3
"""The Python package against the command line on the same data: ADULT replicated (x40 by
default, 1.2 M rows), Flash k = 5 with 2 % suppression over the nine ARX hierarchies.

Each measurement runs in a fresh process: the command line (target/release/anonbox on the
replicated CSV), and a Python process that reads the same CSV into pandas or pyarrow and then
calls anonbox.anonymize on it. Reported per run: wall and CPU seconds of the anonymization
alone (the Python call, the whole command), the peak RSS of the process, and for Python the
RSS once the table was read, the peak during the call alone (VmHWM reset before it), so
peak - before is what the call added, and the table's own size
(pyarrow's nbytes, pandas' memory_usage(deep=True)).

The acceptance of issue 31: the Python call's wall time at most 10 % above the command line's;
the Python process's peak at most the input's own size above the command line's peak.

    target/python-venv/bin/python scripts/bench_python.py [--copies 40] [--repeat 3]

Needs the package installed in that environment (scripts/test_python.sh does it) and the
release binary (`cargo build --release`, built here if missing). Prints a Markdown table.
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ADULT = ROOT / "tests" / "data" / "adult"
ATTRIBUTES = [
    "sex", "age", "race", "marital-status", "education", "native-country", "workclass",
    "occupation", "salary-class",
]


def hierarchy(a):
    return str(ADULT / f"adult_hierarchy_{a}.csv")


def status(field):
    """A VmRSS / VmHWM figure of this process, in MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def child(kind, csv_path):
    """Reads the CSV as `kind`, anonymizes it, prints the figures as JSON."""
    import anonbox

    if kind == "pandas":
        import pandas as pd

        data = pd.read_csv(csv_path, sep=";")
        size = data.memory_usage(deep=True).sum() / 2**20
    else:
        import pyarrow.csv as pacsv

        data = pacsv.read_csv(csv_path, parse_options=pacsv.ParseOptions(delimiter=";"))
        size = data.nbytes / 2**20
    before = status("VmRSS")
    # Resets the peak (VmHWM) to the current RSS: the peak below is the call's, not the read's.
    Path("/proc/self/clear_refs").write_text("5")
    wall, cpu = time.perf_counter(), time.process_time()
    r = anonbox.anonymize(
        data,
        quasi_identifiers={a: hierarchy(a) for a in ATTRIBUTES},
        k=5,
        method="Flash",
        suppression=0.02,
    )
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(json.dumps({
        "wall": wall, "cpu": cpu, "peak": status("VmHWM"), "before": before, "input": size,
        "rows": len(r.data), "transformation": list(r.transformation.values()),
    }))


def cli(binary, csv_path, folder):
    qids = "".join(f'<att name="{a}" hierarchy="{hierarchy(a)}"/>' for a in ATTRIBUTES)
    cfg = Path(folder) / "bench.xml"
    cfg.write_text(
        f'<config><input filename="{csv_path}" separator=";" header="true"/>'
        f'<output filename="{Path(folder) / "out.csv"}"/><qid>{qids}</qid></config>'
    )
    report = Path(folder) / "report.json"
    cmd = [str(binary), "-config", str(cfg), "-method", "Flash", "-k", "5", "-suppression",
           "0.02", "-quiet", "-report", str(report)]
    # In a child of its own so that RUSAGE_CHILDREN is the command's alone.
    code = (
        "import resource, subprocess, sys, time, json\n"
        "t = time.perf_counter()\n"
        "subprocess.run(sys.argv[1:], check=True)\n"
        "t = time.perf_counter() - t\n"
        "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "print(json.dumps({'wall': t, 'cpu': u.ru_utime + u.ru_stime, 'peak': u.ru_maxrss / 1024}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code] + cmd, check=True, capture_output=True, text=True)
    fig = json.loads(out.stdout)
    fig["transformation"] = json.loads(report.read_text())["transformation"]
    return fig


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--copies", type=int, default=40)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--child", choices=["pandas", "pyarrow"])
    ap.add_argument("--csv")
    a = ap.parse_args()
    if a.child:
        return child(a.child, a.csv)
    binary = ROOT / "target" / "release" / "anonbox"
    if not binary.exists():
        subprocess.run(["cargo", "build", "--release", "--quiet", "--bin", "anonbox"], cwd=ROOT, check=True)
    with tempfile.TemporaryDirectory(prefix="anonbox-bench-") as folder:
        lines = (ADULT / "adult.csv").read_text().splitlines()
        csv_path = Path(folder) / "adult.csv"
        with open(csv_path, "w") as f:
            f.write(lines[0] + "\n")
            body = "\n".join(lines[1:]) + "\n"
            for _ in range(a.copies):
                f.write(body)
        runs = {"command line": [], "pandas": [], "pyarrow": []}
        for _ in range(a.repeat):
            runs["command line"].append(cli(binary, csv_path, folder))
            for kind in ("pandas", "pyarrow"):
                out = subprocess.run(
                    [sys.executable, __file__, "--child", kind, "--csv", str(csv_path)],
                    check=True, capture_output=True, text=True,
                )
                runs[kind].append(json.loads(out.stdout.strip().splitlines()[-1]))
    base = runs["command line"]
    want = base[0]["transformation"]
    med = lambda rs, k: statistics.median(r[k] for r in rs)  # noqa: E731
    print(f"ADULT x{a.copies} ({30162 * a.copies} rows), Flash k=5, 2 % suppression; median of "
          f"{a.repeat}; load: {os.getloadavg()[0]:.2f} (1 min)\n")
    print("| run | wall s | CPU s | wall vs command line | RSS before MiB | peak RSS MiB | input MiB | "
          "call's peak - before | peak - command line's |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, rs in runs.items():
        assert all(r["transformation"] == want for r in rs), (name, rs)
        wall, cpu, peak = med(rs, "wall"), med(rs, "cpu"), med(rs, "peak")
        rel = f"{100 * (wall / med(base, 'wall') - 1):+.1f} %"
        size = f"{med(rs, 'input'):.0f}" if "input" in rs[0] else "-"
        py = name != "command line"
        above = f"{peak - med(base, 'peak'):+.0f} MiB" if py else "-"
        before = f"{med(rs, 'before'):.0f}" if py else "-"
        added = f"{peak - med(rs, 'before'):+.0f} MiB" if py else "-"
        print(f"| {name} | {wall:.2f} | {cpu:.2f} | {rel if py else '-'} | {before} | "
              f"{peak:.0f} | {size} | {added} | {above} |")


if __name__ == "__main__":
    main()
