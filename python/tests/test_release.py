"""The release from pandas, polars and pyarrow equals the command line's on ADULT (Flash,
k = 5), row for row; the result's parts agree with each other and the report."""

import threading

import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import anonbox
from conftest import ATTRIBUTES, cli_release, hierarchy, rows_of

FLAGS = ["-method", "Flash", "-k", "5", "-suppression", "0.02"]


def anonymize(data, **kw):
    return anonbox.anonymize(
        data,
        quasi_identifiers={a: hierarchy(a) for a in ATTRIBUTES},
        k=5,
        method="Flash",
        suppression=0.02,
        **kw,
    )


@pytest.fixture(scope="module")
def cli(binary, tmp_path_factory):
    return cli_release(binary, tmp_path_factory.mktemp("cli"), FLAGS)


@pytest.mark.parametrize("kind", ["pandas", "polars", "pyarrow"])
def test_adult_flash_k5_equals_the_command_line(kind, adult, cli):
    rows, report = cli
    data = {"pandas": adult.to_pandas(), "polars": pl.from_arrow(adult), "pyarrow": adult}[kind]
    r = anonymize(data)
    assert type(r.data) is type(data)
    table = r.data if kind == "pyarrow" else (
        pa.Table.from_pandas(r.data, preserve_index=False) if kind == "pandas" else r.data.to_arrow()
    )
    assert table.column_names == ATTRIBUTES
    assert len(rows) == 30162
    assert rows_of(table) == rows
    assert r.report["transformation"] == report["transformation"]
    assert r.report["information_loss"] == report["information_loss"]
    assert list(r.transformation) == ATTRIBUTES
    assert list(r.transformation.values()) == report["transformation"]
    # The suppressed mask marks exactly the rows released with every label at the top.
    mask = list(r.suppressed)
    assert len(mask) == 30162
    assert sum(bool(m) for m in mask) == report["suppressed_records"] > 0
    assert all(bool(m) == all(v == "*" for v in row) for m, row in zip(mask, rows))


def test_other_columns_keep_their_types_and_identifiers_go(adult):
    t = adult.append_column("id", pa.array(range(adult.num_rows), pa.int64()))
    t = t.append_column("weight", pa.array([1.5] * adult.num_rows))
    r = anonbox.anonymize(
        t,
        quasi_identifiers={"age": hierarchy("age"), "sex": hierarchy("sex")},
        identifiers=["id"],
        k=5,
        method="Flash",
    )
    assert "id" not in r.data.column_names
    assert r.data.schema.field("weight").type == pa.float64()
    assert r.data.schema.field("age").type == pa.dictionary(pa.int32(), pa.string())
    assert r.data.column("weight").to_pylist() == [1.5] * adult.num_rows
    # pandas and polars get plain strings, as their input had.
    df = anonbox.anonymize(
        t.to_pandas(),
        quasi_identifiers={"age": hierarchy("age"), "sex": hierarchy("sex")},
        identifiers=["id"],
        k=5,
        method="Flash",
    ).data
    assert df["age"].dtype == object and df["age"].tolist() == r.data.column("age").to_pylist()
    assert df["weight"].dtype == "float64"
    import polars as pl

    pf = anonbox.anonymize(
        pl.from_arrow(t),
        quasi_identifiers={"age": hierarchy("age"), "sex": hierarchy("sex")},
        identifiers=["id"],
        k=5,
        method="Flash",
    ).data
    assert pf.schema["age"] == pl.Utf8 and pf["age"].to_list() == df["age"].tolist()


def test_pandas_columns_come_back_as_they_were(adult):
    """A pandas frame crosses column by column, Arrow-backed columns without a copy, a
    quasi-identifier of Python strings dictionary-encoded: the release from it equals the release from the same table in pyarrow,
    and the other columns (repeated and distinct text, missing values, numbers) come back with
    their values and types."""
    df = adult.to_pandas()
    n = len(df)
    df["note"] = [None if i % 7 == 0 else f"n{i % 3}" for i in range(n)]
    df["code"] = [f"c{i}" for i in range(n)]
    df["count"] = range(n)
    # Python strings (pandas 2's text, or object columns): copied, dictionary-encoded.
    df["race"] = df["race"].astype(object)
    qis = {"age": hierarchy("age"), "sex": hierarchy("sex"), "race": hierarchy("race")}
    r = anonbox.anonymize(df, quasi_identifiers=qis, k=5, method="Flash", suppression=0.02)
    t = anonbox.anonymize(
        pa.Table.from_pandas(df, preserve_index=False),
        quasi_identifiers=qis,
        k=5,
        method="Flash",
        suppression=0.02,
    )
    assert list(r.data.columns) == list(df.columns)
    for name in ["age", "sex", "race"]:
        assert r.data[name].tolist() == t.data.column(name).to_pylist()
    for name in ["note", "code", "workclass", "count"]:
        assert r.data[name].dtype == df[name].dtype
        assert r.data[name].tolist() == df[name].tolist()
    assert r.transformation == t.transformation


def test_html_report(adult):
    r = anonymize(adult.slice(0, 3000))
    html = r._repr_html_()
    assert html.lower().startswith("<!doctype html>")
    assert "5-anonymity" in html
    assert "Result" in repr(r)


def test_the_gil_is_released_during_the_search(adult):
    ticks = []
    done = threading.Event()

    def count():
        while not done.is_set():
            ticks.append(1)
            done.wait(0.001)

    t = threading.Thread(target=count)
    t.start()
    try:
        big = pa.concat_tables([adult] * 4)
        anonymize(big)
    finally:
        done.set()
        t.join()
    assert len(ticks) > 20


def test_progress_callback_and_tqdm(adult, capsys):
    seen = []
    big = pa.concat_tables([adult] * 4)
    anonymize(big, progress=lambda *a: seen.append(a))
    phases = [s[0] for s in seen]
    assert "load" in phases and "write" in phases, phases
    assert all(isinstance(p, int) for _, p, _, _ in seen)
    assert seen[-1][0] == "write" and seen[-1][2] == 4 * 30162
    anonymize(adult, progress=True)  # a tqdm bar on stderr, closed at the end
    with pytest.raises(TypeError, match="progress"):
        anonymize(adult, progress="yes")
