"""Shared fixtures: the repository's ADULT data, and the command line's binary (built with
cargo when it is missing, never skipped)."""

import os
import subprocess
from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pacsv
import pytest

ROOT = Path(__file__).resolve().parents[2]
ADULT = ROOT / "tests" / "data" / "adult"
ATTRIBUTES = [
    "sex", "age", "race", "marital-status", "education", "native-country", "workclass",
    "occupation", "salary-class",
]


def hierarchy(name):
    return str(ADULT / f"adult_hierarchy_{name}.csv")


@pytest.fixture(scope="session")
def binary():
    """The command line, as CI builds it (target/debug/anonbox)."""
    path = ROOT / "target" / "debug" / "anonbox"
    if not path.exists():
        subprocess.run(["cargo", "build", "--quiet"], cwd=ROOT, check=True)
    return path


@pytest.fixture(scope="session")
def adult():
    """ADULT as a pyarrow Table (age an integer, the rest strings)."""
    return pacsv.read_csv(ADULT / "adult.csv", parse_options=pacsv.ParseOptions(delimiter=";"))


def read_rows(path, delimiter=";"):
    """The data rows of a genVals file (the command line writes fields as read, unquoted)."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return [tuple(line.split(delimiter)) for line in lines[1:]]


def rows_of(table):
    """Rows of a pyarrow Table as tuples of text."""
    cols = [table.column(i).cast(pa.string()).to_pylist() for i in range(table.num_columns)]
    return list(zip(*cols))


def cli_release(binary, tmp_path, flags, input_path=None, extra=""):
    """The command line's release of ADULT with its nine hierarchies, as rows of text."""
    input_path = input_path or ADULT / "adult.csv"
    qids = "".join(f'<att name="{a}" hierarchy="{hierarchy(a)}"/>' for a in ATTRIBUTES)
    cfg = tmp_path / "cli.xml"
    cfg.write_text(
        f'<config><input filename="{input_path}" separator=";" header="true"/>'
        f'<output filename="{tmp_path / "cli.csv"}"/><qid>{qids}</qid>{extra}</config>'
    )
    out = subprocess.run(
        [str(binary), "-config", str(cfg), "-quiet", "-report", str(tmp_path / "cli.json")]
        + flags,
        capture_output=True, text=True,
    )
    assert out.returncode == 0, out.stderr
    import json

    return read_rows(tmp_path / "cli.csv"), json.loads((tmp_path / "cli.json").read_text())


os.environ.setdefault("POLARS_MAX_THREADS", "2")
