#!/usr/bin/env python3
"""Mondrian over hierarchies against anonypy's Mondrian (PyPI `anonypy`, pandas), same data, one run.

Data: ADULT's eight quasi-identifiers but salary-class (age numeric, the others categorical with
ADULT's ARX hierarchies), the 30,162 rows as they are, and for other sizes N new records made
from them (seed 1; see rows_of). Both run k-anonymity with strict partitioning; anonypy
splits a categorical column into two halves of its values (no hierarchy), anonbox along the
hierarchy's tree. Utility is the NCP (GCP) of each release by one formula: per record and
attribute, a numeric class costs its range over the table's, a categorical one (values covered,
minus one) over (the column's distinct values, minus one) - anonypy covers the class's values,
anonbox the leaves under its published node with `-labels nodes`, the class's values with
`-labels sets` (as anonypy; both taken from its report). CPU seconds: anonypy's
`partition` in this process, anonbox's whole run (load, partition, write) as a child.

Usage: scripts/bench_mondrian.py [--rows 30162,1000000] [--k 5] [--anonypy-limit SECONDS]
                                 [--tools anonypy,umbra-k]
Needs: `pip install anonypy umbra-k pandas`, `cargo build --release`. umbra-k's time is its
whole `fit(...).transform(...)` (partitions and labels), its NCP that of its partitions; it
cuts at the middle row (relaxed) and chooses the dimension by raw spans (an age range in years
against a count of categories), with no hierarchy.
"""

import argparse
import csv
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ADULT = os.path.join(ROOT, "tests/data/adult")
QIS = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass",
       "occupation"]


def rows_of(n):
    with open(os.path.join(ADULT, "adult.csv"), newline="") as f:
        r = list(csv.reader(f, delimiter=";"))
    header, body = r[0], r[1:]
    if n != len(body):
        # New records like ADULT's: a random row with two of its categorical values taken from
        # other rows and its age moved by up to 5 years (copies alone would give every tuple
        # more than k records, and nothing to partition).
        rng = random.Random(1)
        age = header.index("age")
        cats = [header.index(q) for q in QIS if q != "age"]
        out = []
        for _ in range(n):
            r = list(body[rng.randrange(len(body))])
            for c in rng.sample(cats, 2):
                r[c] = body[rng.randrange(len(body))][c]
            r[age] = str(min(90, max(17, int(r[age]) + rng.randint(-5, 5))))
            out.append(r)
        body = out
    return header, body


def ncp_of_partitions(df, parts):
    """NCP of anonypy's partitions (indexes into df)."""
    total = 0.0
    spans = {}
    for c in QIS:
        if df[c].dtype.name == "category":
            spans[c] = max(df[c].nunique() - 1, 1)
        else:
            spans[c] = max(float(df[c].max() - df[c].min()), 1e-12)
    n = 0
    for p in parts:
        sub = df.loc[p]
        cost = 0.0
        for c in QIS:
            if df[c].dtype.name == "category":
                cost += (sub[c].nunique() - 1) / spans[c]
            else:
                cost += float(sub[c].max() - sub[c].min()) / spans[c]
        total += len(p) * cost
        n += len(p)
    return total / (n * len(QIS))


def frame(header, body):
    """The rows as the PyPI tools take them: age a number, the other quasi-identifiers
    categories (which ncp_of_partitions reads as categorical)."""
    import pandas as pd
    df = pd.DataFrame(body, columns=header)
    df["age"] = df["age"].astype(int)
    for c in QIS:
        if c != "age":
            df[c] = df[c].astype("category")
    return df


def run_anonypy(header, body, k, limit):
    from anonypy import mondrian
    df = frame(header, body)
    m = mondrian.Mondrian(df, QIS, "salary-class")
    start = time.process_time()
    wall = time.time()
    # anonypy has no time limit of its own: a child process bounds it.
    parts = m.partition(k)
    cpu = time.process_time() - start
    return {"cpu": cpu, "wall": time.time() - wall, "classes": len(parts),
            "ncp": ncp_of_partitions(df, parts)}


def run_umbra(header, body, k, limit):
    from umbra_k.anonymizer import MondrianAnonymizer
    df = frame(header, body)
    m = MondrianAnonymizer(k=k, quasi_id=QIS)
    start = time.process_time()
    wall = time.time()
    # The whole transform (partitions and their labels), as a user calls it.
    m.fit(df).transform(df)
    cpu = time.process_time() - start
    parts = m._partitions
    return {"cpu": cpu, "wall": time.time() - wall, "classes": len(parts),
            "ncp": ncp_of_partitions(df, parts)}


def run_anonbox(header, body, k, work, labels):
    data = os.path.join(work, "data.csv")
    with open(data, "w", newline="") as f:
        w = csv.writer(f, delimiter=";", lineterminator="\n")
        w.writerow(header)
        w.writerows(body)
    atts = "\n".join(
        f'<att index="{header.index(q)}" name="{q}" '
        f'hierarchy="{ADULT}/adult_hierarchy_{q}.csv"/>' for q in QIS)
    config = os.path.join(work, "config.xml")
    with open(config, "w") as f:
        f.write(f'<config method="Mondrian"><input filename="{data}" separator=";" '
                f'header="true" unknown="keep"/><output filename="{work}/out.csv"/>'
                f"<qid>{atts}</qid></config>\n")
    binary = os.path.join(ROOT, "target/release/anonbox")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.time()
    subprocess.run([binary, "-config", config, "-k", str(k), "-labels", labels, "-report",
                    f"{work}/report.json", "-quiet"], check=True)
    wall = time.time() - wall
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(f"{work}/report.json") as f:
        r = json.load(f)
    return {"cpu": after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime,
            "wall": wall, "classes": r["equivalence_classes"], "ncp": r["utility"]["ncp"]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", default="30162,100000,1000000")
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--anonypy-limit", type=float, default=1800)
    ap.add_argument("--tools", default="anonypy,umbra-k",
                    help="the PyPI implementations to run beside anonbox")
    ap.add_argument("--child", choices=["anonypy", "umbra-k"], help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        header, body = rows_of(int(a.rows))
        run = run_anonypy if a.child == "anonypy" else run_umbra
        print(json.dumps(run(header, body, a.k, None)))
        return
    print(f"# uptime: {os.popen('uptime').read().strip()}")
    print("rows\ttool\tclasses\tNCP\tCPU s\twall s")
    for n in [int(x) for x in a.rows.split(",")]:
        header, body = rows_of(n)
        for labels in ["nodes", "sets"]:
            with tempfile.TemporaryDirectory() as work:
                r = run_anonbox(header, body, a.k, work, labels)
            print(f"{n}\tanonbox ({labels})\t{r['classes']}\t{r['ncp']:.4f}\t{r['cpu']:.2f}\t"
                  f"{r['wall']:.2f}", flush=True)
        for tool in a.tools.split(","):
            try:
                out = subprocess.run([sys.executable, __file__, "--child", tool, "--rows", str(n),
                                      "--k", str(a.k)], capture_output=True, text=True,
                                     check=True, timeout=a.anonypy_limit).stdout
                p = json.loads(out)
                print(f"{n}\t{tool}\t{p['classes']}\t{p['ncp']:.4f}\t{p['cpu']:.2f}\t"
                      f"{p['wall']:.2f}", flush=True)
            except subprocess.TimeoutExpired:
                print(f"{n}\t{tool}\t-\t-\t-\t>{a.anonypy_limit:.0f} (stopped)", flush=True)


if __name__ == "__main__":
    main()
