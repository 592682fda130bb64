"""Every model class and builder is reachable from Python and enforced; bad arguments raise the
documented exception with the command line's message; run, audit and init."""

import json
import subprocess

import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import anonbox
from anonbox import hierarchy as h
from conftest import ADULT, ATTRIBUTES, cli_release, hierarchy, read_rows, rows_of

QIS = ["sex", "age", "race", "marital-status", "education"]


@pytest.fixture(scope="module")
def small(adult):
    t = adult.slice(0, 4000)
    return t.append_column("in_subset", pa.array([str(i % 2) for i in range(t.num_rows)]))


def qis():
    return {a: hierarchy(a) for a in QIS}


def classes(table, cols):
    from collections import Counter

    return Counter(zip(*[table.column(c).to_pylist() for c in cols]))


MODELS = [
    anonbox.KAnonymity(4),
    anonbox.DistinctLDiversity("salary-class", 2),
    anonbox.EntropyLDiversity("salary-class", 1.5),
    anonbox.RecursiveCLDiversity("salary-class", 4, 2),
    anonbox.TCloseness("salary-class", 0.3, distance="equal"),
    anonbox.TCloseness("salary-class", 0.3, distance="hierarchical"),
    anonbox.KMap(3, population="usa"),
    anonbox.AverageRisk(0.1),
    anonbox.SampleUniqueness(0.01),
    anonbox.PopulationUniqueness(0.01, model="dankar", population="usa"),
    anonbox.DeltaDisclosure("salary-class", 1.5),
    anonbox.BetaLikeness("salary-class", 1.0, enhanced=True),
]


@pytest.mark.parametrize("model", MODELS, ids=lambda m: repr(m))
def test_every_model_is_enforced(model, small):
    r = anonbox.anonymize(
        small,
        quasi_identifiers=qis(),
        sensitive={"salary-class": hierarchy("salary-class")},
        privacy=[model],
        method="Flash",
        suppression=0.1,
    )
    assert r.report["privacy_models"], r.report
    assert r.data.num_rows > 0
    # The report's verdict names the model and finds it holding.
    achieved = r.report["privacy_achieved"]
    # Models the search enforces without a figure of their own say so (holds: None).
    assert achieved and all(a["holds"] is not False for a in achieved), achieved
    if isinstance(model, anonbox.KAnonymity):
        kept = [row for row, s in zip(rows_of(r.data.select(QIS)), r.suppressed.to_pylist()) if not s]
        from collections import Counter

        assert min(Counter(kept).values()) >= 4


def test_differential_privacy(small):
    """SafePub from Python: the release keeps every row, each released (unsuppressed) class
    holds at least the derived k records, and the report gives the guarantee's parameters."""
    model = anonbox.DifferentialPrivacy(2, 1e-5, generalization="medium")
    assert model.to_xml() == (
        '<differential-privacy epsilon="2" delta="1e-05" generalization="medium"/>'
    )
    r = anonbox.anonymize(
        small, quasi_identifiers=qis(), privacy=[model], method="Flash", suppression=1
    )
    assert r.data.num_rows == small.num_rows
    text = json.dumps(r.report)
    assert "differential" in text, text[:400]
    from collections import Counter

    kept = [row for row, s in zip(rows_of(r.data.select(QIS)), r.suppressed.to_pylist()) if not s]
    k = r.report["differential_privacy"]["k"]
    assert k > 1
    assert not kept or min(Counter(kept).values()) >= k


def test_delta_presence_releases_the_research_subset(small, tmp_path):
    import pyarrow.csv as pacsv

    t = small.drop_columns(["in_subset"]).append_column("row", pa.array([str(i) for i in range(small.num_rows)]))
    sub = t.take(list(range(0, t.num_rows, 2)))
    sub = pa.table({n: sub.column(n).cast(pa.string()) for n in sub.column_names})
    pacsv.write_csv(sub, tmp_path / "subset.csv", write_options=pacsv.WriteOptions(quoting_style="none"))
    r = anonbox.anonymize(
        t,
        quasi_identifiers=qis(),
        privacy=[anonbox.KAnonymity(2), anonbox.DeltaPresence(0.0, 1.0, subset=tmp_path / "subset.csv")],
        method="Flash",
        suppression=0.1,
    )
    assert r.data.num_rows == sub.num_rows == r.report["research_subset_records"]
    assert r.report["records"] == t.num_rows  # the population
    assert r.data.column("row").to_pylist() == sub.column("row").to_pylist()


def test_models_are_the_privacy_elements():
    assert anonbox.TCloseness("d", 0.2, distance="ordered").to_xml() == (
        '<t-closeness attribute="d" t="0.2" distance="ordered"/>'
    )
    assert anonbox.KMap(5, population_size=1000).to_xml() == '<k-map k="5" population-size="1000"/>'
    assert anonbox.BetaLikeness("d", 1.0).to_xml() == (
        '<beta-likeness attribute="d" beta="1.0" enhanced="false"/>'
    )
    assert anonbox.DeltaPresence(0, 0.5, subset_index=3).to_xml() == (
        '<delta-presence dmin="0" dmax="0.5" subset-index="3"/>'
    )
    assert anonbox.DifferentialPrivacy(1, 1e-6, steps=20).to_xml() == (
        '<differential-privacy epsilon="1" delta="1e-06" steps="20"/>'
    )


def test_builders_build_and_anonymize(adult):
    dates = pa.table({"visit": [f"2020-{m:02d}-{d:02d}" for m in range(1, 13) for d in (1, 15)]})
    rows = h.dates(format="%Y-%m-%d", levels=["month", "year"]).build(dates, "visit")
    assert ["2020-01-15", "2020-01", "2020", "*"] in rows
    rows = h.intervals(widths=[10, 20]).build(adult.slice(0, 100), "age")
    assert all(len(r) == 4 for r in rows) and all(r[-1] == "*" for r in rows)
    zips = ["12345", "12399", "54321"]
    assert ["12345", "1234*", "123**", "12***", "1****", "*****", "*"] in h.mask().build(zips, "zip") or \
        h.mask().build(zips, "zip")[0][0] == "12345"
    cats = h.categories(frequency=1000).build(adult.slice(0, 3000), "race")
    assert ["Other", "*"] in [r[1:] for r in cats]
    t = adult.slice(0, 3000).append_column("zip", pa.array([zips[i % 3] for i in range(3000)]))
    t = t.append_column("visit", pa.array([dates.column(0)[i % 24].as_py() for i in range(3000)]))
    r = anonbox.anonymize(
        t,
        quasi_identifiers={
            "age": h.intervals(widths=[5, 10, 20]),
            "zip": h.mask(),
            "visit": h.dates(format="%Y-%m-%d", levels=["month", "year"]),
            "race": h.categories(frequency=100),
            "sex": None,
        },
        k=5,
        method="Flash",
    )
    built = [b["attribute"] for b in r.report["built_hierarchies"]]
    assert set(built) == {"age", "zip", "visit", "race", "sex"}
    assert min(classes(r.data, ["age", "zip", "visit", "race", "sex"]).values()) >= 5


def test_hierarchies_as_rows_and_tables(adult):
    rows = [r.split(";") for r in open(hierarchy("sex")).read().split()]
    t = adult.slice(0, 2000)
    for given in (rows, pd.DataFrame(rows), pl.DataFrame(rows, orient="row"), pa.table(list(zip(*rows)), names=["a", "b"])):
        r = anonbox.anonymize(t, quasi_identifiers={"sex": given, "age": hierarchy("age")}, k=5, method="Flash")
        assert r.report["k"] == 5


@pytest.mark.parametrize(
    "kwargs,error,message",
    [
        (dict(k=None), anonbox.ConfigError, "give k=N or privacy"),
        (dict(k="x"), anonbox.ConfigError, "-k"),
        (dict(k=5, method="Nope"), anonbox.ConfigError, "Nope"),
        (dict(k=5, quasi_identifiers={"nope": None}), anonbox.ConfigError, "nope"),
        (dict(k=5, suppression=2), anonbox.ConfigError, "suppression"),
        (dict(k=5, privacy=["k"]), anonbox.ConfigError, "not a privacy model"),
        (dict(k=5, privacy=[anonbox.TCloseness("salary-class", 5)]), anonbox.ConfigError, "t"),
        (dict(k=5000), anonbox.DataError, "fewer than k"),
        (dict(k=5, quasi_identifiers={"age": [["1", "*"]]}), anonbox.DataError, "age"),
    ],
)
def test_bad_arguments_raise_the_documented_exception(kwargs, error, message, adult):
    args = dict(quasi_identifiers={"age": hierarchy("age")}, method="Flash")
    args.update(kwargs)
    with pytest.raises(error, match=message) as e:
        anonbox.anonymize(adult.slice(0, 100), **args)
    assert isinstance(e.value, anonbox.Error)
    assert "\n" not in str(e.value)


def test_bad_data_is_a_type_error():
    with pytest.raises(TypeError, match="pandas or polars DataFrame"):
        anonbox.anonymize([1, 2], quasi_identifiers={"a": None}, k=2)


def test_run_writes_what_the_config_says(binary, tmp_path):
    cli_rows, cli_report = cli_release(binary, tmp_path, ["-method", "Flash", "-k", "5"])
    qids = "".join(f'<att name="{a}" hierarchy="{hierarchy(a)}"/>' for a in ATTRIBUTES)
    cfg = tmp_path / "py.xml"
    out = tmp_path / "py.csv"
    cfg.write_text(
        f'<config><input filename="{ADULT / "adult.csv"}" separator=";" header="true"/>'
        f'<output filename="{out}"/><qid>{qids}</qid></config>'
    )
    r = anonbox.run(cfg, method="Flash", k=5, report=tmp_path / "py.html")
    assert r.data is None and r.suppressed is None
    assert read_rows(out) == cli_rows
    assert r.report["transformation"] == cli_report["transformation"]
    assert (tmp_path / "py.html").read_text().lower().startswith("<!doctype html>")
    with pytest.raises(anonbox.ConfigError, match="time"):
        anonbox.run(cfg, method="Flash", k=5, time_limit="soon")
    with pytest.raises(anonbox.ConfigError, match="does not exist"):
        anonbox.run(cfg, method="Flash", k=5, input=tmp_path / "missing.csv")
    with pytest.raises(anonbox.DataError, match="fewer than k"):
        anonbox.run(cfg, method="Flash", k=50000)
    assert not (tmp_path / "py.csv.tmp").exists()


def test_audit(adult, binary, tmp_path):
    a = anonbox.audit(adult, ["sex", "age"], sensitive="salary-class", k=2, l=2)
    p = tmp_path / "a.csv"
    import pyarrow.csv as pacsv

    pacsv.write_csv(adult, p)
    cli = subprocess.run(
        [str(binary), "audit", str(p), "--qi", "sex,age", "--sensitive", "salary-class", "-k", "2", "-l", "2", "--json"],
        capture_output=True, text=True,
    )
    want = json.loads(cli.stdout)
    assert {k: v for k, v in a.items() if k != "file"} == {k: v for k, v in want.items() if k != "file"}
    assert "k" in json.dumps(a)
    with pytest.raises(anonbox.ConfigError, match="nope"):
        anonbox.audit(adult, ["nope"])


def test_init_proposal_is_passable_to_anonymize(adult):
    p = anonbox.init(adult.slice(0, 3000))
    assert p.quasi_identifiers and all(isinstance(v, list) for v in p.quasi_identifiers.values())
    assert "age" in p.quasi_identifiers
    p.quasi_identifiers.pop("native-country", None)
    r = anonbox.anonymize(adult.slice(0, 3000), **p, k=5, method="Flash", suppression=0.05)
    assert r.report["records"] == 3000
    # The proposal's models hold numbers, as the constructors make them.
    for m in p.privacy:
        assert all(not isinstance(v, str) or k in ("attribute", "distance") for k, v in m._attributes.items()), m
    assert anonbox.models.from_element("k-anonymity", {"k": "5"}) == anonbox.KAnonymity(5)
    assert anonbox.models.from_element(
        "t-closeness", {"attribute": "7", "t": "0.2", "distance": "equal"}
    ) == anonbox.TCloseness("7", 0.2)


def test_the_readme_example(adult):
    """The README's example: builders, a file, a sensitive column without a hierarchy (a flat
    one over its values), two models."""
    df = adult.to_pandas()
    r = anonbox.anonymize(
        df,
        quasi_identifiers={
            "age": h.intervals(widths=[5, 10, 20]),
            "sex": hierarchy("sex"),
            "native-country": h.categories(frequency=100),
        },
        sensitive="salary-class",
        privacy=[anonbox.KAnonymity(5), anonbox.DistinctLDiversity("salary-class", 2)],
        method="Flash",
        suppression=0.02,
    )
    assert r.transformation == {"age": 4, "sex": 0, "native-country": 0}
    kept = r.data[~r.suppressed]
    groups = kept.groupby(["age", "sex", "native-country"])["salary-class"]
    assert groups.size().min() >= 5 and groups.nunique().min() >= 2


@pytest.mark.parametrize(
    "kw, said",
    [
        ({"method": "Flash", "suppression": 0.04, "local_recoding": True}, "local_recoding"),
        ({"method": "Flash", "suppression": 0.04, "suppress": "cells"}, "cell_suppression"),
        ({"method": "Mondrian", "labels": "sets"}, "labels"),
        ({"method": "Mondrian", "partition": "relaxed"}, "partitioning"),
    ],
)
def test_the_command_lines_options(kw, said, adult):
    """Local recoding, cell suppression and Mondrian's options from Python: the run's report
    says it used them, and the release keeps every row."""
    r = anonbox.anonymize(
        adult, quasi_identifiers={a: hierarchy(a) for a in ATTRIBUTES}, k=5, **kw
    )
    assert r.data.num_rows == adult.num_rows
    text = json.dumps(r.report)
    assert said in text, text[:400]
