#!/usr/bin/env python3
"""Builds the high-dimensional benchmark from the KDD census-income file (BENCHMARKS.md).

    scripts/highdim_data.py CENSUS_DATA OUT_DIR

Writes OUT_DIR/census20.csv (';'-separated, a header, the 20 quasi-identifiers below and the
income class; '?' becomes 'unknown'), one ARX-format hierarchy file per quasi-identifier
(OUT_DIR/census20_hierarchy_<name>.csv: value;level1;...;*, one line per distinct value,
monotonic) and OUT_DIR/q<Q>.xml, an anonbox config with the first Q quasi-identifiers as
quasi-identifiers (k=5, 5 % suppression, Loss), for Q in 8, 10, 12, 13, 14, 15, 16, 18, 20.
Prints the lattice size of every Q.

Hierarchies are our own: numbers as nested intervals anchored at 0 (ARX labels "[20, 25["),
categories grouped where a natural grouping exists, else value -> *. The attribute order makes
the lattice grow as in the large-search-spaces issue: about 2.5e7 transformations at Q=14, 1e8
at Q=15, 1.6e10 at Q=20.
"""
import os
import sys


def intervals(*widths):
    """Nested intervals [a, a+w[ for each width (each a multiple of the one before), then *."""
    def levels(v):
        x = int(v)
        out = [v]
        for w in widths:
            lo = (x // w) * w
            out.append(f"[{lo}, {lo + w}[")
        return out + ["*"]
    return levels


def groups(*mappings):
    """Successive groupings: each mapping is a function from the previous level's value."""
    def levels(v):
        out = [v]
        for m in mappings:
            out.append(m(out[-1]))
        return out + ["*"]
    return levels


def keyword(rules, default):
    """First rule (substring, group) whose substring occurs in the value."""
    def f(v):
        for key, group in rules:
            if key in v:
                return group
        return default
    return f


def table(mapping, default):
    return lambda v: mapping.get(v, default)


def us_or_not(v):
    return "United-States" if v == "United-States" else "Other"


EDUCATION = keyword(
    [("Children", "none"), ("Less_than_1st", "none"), ("1st_2nd", "elementary"),
     ("5th_or_6th", "elementary"), ("7th_and_8th", "middle"), ("9th", "high-school"),
     ("10th", "high-school"), ("11th", "high-school"), ("12th", "high-school"),
     ("High_school", "high-school"), ("Some_college", "college"), ("Associates", "college"),
     ("Bachelors", "degree"), ("Masters", "degree"), ("Prof_school", "degree"),
     ("Doctorate", "degree")], "other")
EDUCATION_2 = table({"none": "basic", "elementary": "basic", "middle": "basic",
                     "high-school": "basic"}, "higher")

# (column index in the census file, name, levels function); heights 5,4,4,4,4,3,...,3,4,3,3,3,3,2
ATTRIBUTES = [
    (0, "age", intervals(5, 10, 20)),
    (4, "education", groups(EDUCATION, EDUCATION_2)),
    (2, "industry", intervals(10, 30)),
    (3, "occupation", intervals(10, 30)),
    (39, "weeks", intervals(13, 26)),
    (7, "marital", groups(keyword([("Married", "married"), ("Never", "never-married")],
                                  "formerly-married"))),
    (1, "workclass", groups(keyword([("Private", "private"), ("government", "government"),
                                     ("Self", "self-employed")], "not-working"))),
    (10, "race", groups(lambda v: "White" if v == "White" else "Non-White")),
    (35, "citizenship", groups(lambda v: "native" if v.startswith("Native") else "foreign")),
    (34, "birth-country", groups(us_or_not)),
    (30, "employer-size", intervals(3)),
    (19, "tax-filer", groups(lambda v: "nonfiler" if v == "Nonfiler" else "filer")),
    (11, "hispanic", groups(lambda v: "non-hispanic"
                            if v in ("All_other", "NA", "Do_not_know", "unknown")
                            else "hispanic")),
    (15, "employment", groups(keyword([("Full", "full-time"), ("PT", "part-time"),
                                       ("Unemployed", "unemployed")], "not-in-labor-force"))),
    (23, "household", groups(
        keyword([("Householder", "householder"), ("Spouse", "householder"),
                 ("Child", "child")], "other"),
        table({"householder": "householder"}, "not-householder"))),
    (32, "father-country", groups(us_or_not)),
    (33, "mother-country", groups(us_or_not)),
    (9, "occupation-group", groups(keyword(
        [("Adm", "white-collar"), ("Professional", "white-collar"), ("Executive", "white-collar"),
         ("Sales", "white-collar"), ("Technicians", "white-collar"), ("Precision", "blue-collar"),
         ("Machine", "blue-collar"), ("Handlers", "blue-collar"), ("Transportation", "blue-collar"),
         ("Farming", "blue-collar"), ("service", "service"), ("Protective", "service")],
        "none"))),
    (31, "parents", groups(keyword([("Both", "two-parents"), ("Not_in_universe", "n/a")],
                                   "one-or-none"))),
    (12, "sex", groups()),
]
QS = [8, 10, 12, 13, 14, 15, 16, 18, 20]
INCOME = 41


def main():
    src, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    distinct = [dict() for _ in ATTRIBUTES]
    with open(src) as f, open(os.path.join(out, "census20.csv.tmp"), "w") as w:
        w.write(";".join([a[1] for a in ATTRIBUTES] + ["income"]) + "\n")
        for line in f:
            fields = [("unknown" if v == "?" else v) for v in line.rstrip("\r\n").split(",")]
            row = [fields[c] for c, _, _ in ATTRIBUTES] + [fields[INCOME]]
            for i, v in enumerate(row[:-1]):
                distinct[i][v] = distinct[i].get(v, 0) + 1
            w.write(";".join(row) + "\n")
    os.replace(os.path.join(out, "census20.csv.tmp"), os.path.join(out, "census20.csv"))
    heights = []
    for (col, name, levels), values in zip(ATTRIBUTES, distinct):
        rows = [levels(v) for v in sorted(values)]
        width = {len(r) for r in rows}
        assert len(width) == 1, (name, width)
        # Monotonic: a value's group at each level determines its group at the next.
        for lvl in range(1, width.pop() - 1):
            up = {}
            for r in rows:
                assert up.setdefault(r[lvl], r[lvl + 1]) == r[lvl + 1], (name, r)
        heights.append(len(rows[0]))
        with open(os.path.join(out, f"census20_hierarchy_{name}.csv"), "w") as h:
            for r in rows:
                h.write(";".join(r) + "\n")
    size = 1
    sizes = {}
    for q, h in enumerate(heights, start=1):
        size *= h
        sizes[q] = size
    for q in QS:
        atts = "\n".join(
            f'    <att index="{i}" name="{name}" hierarchy="census20_hierarchy_{name}.csv"/>'
            for i, (_, name, _) in enumerate(ATTRIBUTES[:q]))
        with open(os.path.join(out, f"q{q}.xml"), "w") as x:
            x.write(f'''<config k="5" suppression="0.05" metric="Loss" method="BFS">
  <input filename="census20.csv" separator=";" header="true"/>
  <output filename="out-q{q}.csv"/>
  <qid>
{atts}
  </qid>
</config>
''')
        print(f"q={q}\tlattice={sizes[q]}\tqis={','.join(a[1] for a in ATTRIBUTES[:q])}")
    print("heights " + ",".join(map(str, heights)), file=sys.stderr)


if __name__ == "__main__":
    main()
