"""Hierarchy builders: the builders of ``anonbox hierarchy`` and of a config's ``<qid>``
(``<intervals/>``, ``<mask/>``, ``<dates/>``, ``<categories/>``), with the same options.

A builder is a value of ``anonymize(..., quasi_identifiers={"age": hierarchy.intervals(
widths=[5, 10, 20])})``: it then runs while the data is loaded, on the column's distinct values,
and the report names what it built (``report["built_hierarchies"]``). ``builder.build(data,
column)`` writes the hierarchy as ``anonbox hierarchy`` does and returns its rows
(``[value, level1, ..., "*"]``), to look at or edit and pass as a list of rows.

Options are the command's flags with underscores (``missing_values=["NA"]`` is
``--missing-values NA``); lists are joined with commas.
"""

from __future__ import annotations

import csv
import os
import tempfile
from typing import Any, Dict, List, Sequence
from xml.sax.saxutils import quoteattr

__all__ = ["Builder", "intervals", "mask", "dates", "categories"]


def _text(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return ",".join(_text(x) for x in v)
    if isinstance(v, os.PathLike):
        return os.fspath(v)
    return str(v)


class Builder:
    """A hierarchy builder: ``kind`` (``intervals``, ``mask``, ``dates``, ``categories``) and
    its options."""

    def __init__(self, kind: str, **options: Any) -> None:
        self.kind = kind
        self.options: Dict[str, Any] = {k: v for k, v in options.items() if v is not None}

    def _names(self) -> Dict[str, str]:
        return {k.replace("_", "-"): _text(v) for k, v in self.options.items()}

    def to_xml(self) -> str:
        """The builder as the child element of a config's ``<att>``."""
        attrs = "".join(
            f" {k}={quoteattr(v if k != 'map' else os.path.abspath(v))}"
            for k, v in self._names().items()
        )
        return f"<{self.kind}{attrs}/>"

    def flags(self) -> List[str]:
        """The builder as ``anonbox hierarchy`` flags."""
        out = [self.kind]
        for k, v in self._names().items():
            if v == "true":
                out.append(f"--{k}")
            else:
                out += [f"--{k}", v]
        return out

    def build(self, data: Any, column: str) -> List[List[str]]:
        """Builds the hierarchy of ``column`` of ``data`` (a pandas or polars DataFrame, a
        pyarrow Table, or a list of values) as ``anonbox hierarchy`` writes it: one row per
        distinct value, ``[value, level1, ..., top]``."""
        from . import _native
        from ._data import write_csv

        with tempfile.TemporaryDirectory(prefix="anonbox-") as d:
            src = os.path.join(d, "data.csv")
            if isinstance(data, (list, tuple)):
                import pyarrow as pa

                data = pa.table({column: [None if v is None else str(v) for v in data]})
            write_csv(data, src)
            out = os.path.join(d, "hierarchy.csv")
            args = ["hierarchy"] + self.flags() + [
                "--input", src, "--header", "--column", column, "--output", out,
            ]
            _native.command(args)
            with open(out, newline="", encoding="utf-8") as f:
                return [row for row in csv.reader(f, delimiter=";")]

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self.options.items())
        return f"hierarchy.{self.kind}({opts})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Builder) and (self.kind, self.options) == (other.kind, other.options)


def intervals(
    widths: Sequence[float] | None = None,
    *,
    quantiles: Sequence[int] | None = None,
    start: float | None = None,
    end: float | None = None,
    **options: Any,
) -> Builder:
    """Numbers into nested intervals: ``widths=[5, 10, 20]`` (each a multiple of the one
    before, from ``start``, default 0) or ``quantiles=[10, 4, 2]`` (equal-frequency bins, then
    groups of adjacent bins). Other options: ``labels="toolbox"``, ``bottom``, ``top``,
    ``decimal="comma"``, ``missing="keep"``, ``missing_values=[...]``."""
    return Builder("intervals", widths=widths, quantiles=quantiles, start=start, end=end, **options)


def mask(step: int | None = None, **options: Any) -> Builder:
    """Codes (ZIP, ICD): one more character (``step`` more) replaced by ``*`` per level, from
    the right (``from_="left"`` is ``--from left``); ``pad="0"`` with ``length=N`` pads first."""
    if "from_" in options:
        options["from"] = options.pop("from_")
    return Builder("mask", step=step, **options)


def dates(format: str | None = None, levels: Sequence[str] | None = None, **options: Any) -> Builder:
    """Dates: ``format="%Y-%m-%d"`` (strftime-style), ``levels`` an increasing subset of
    ``day, week, month, quarter, year, decade``; ``missing="keep"``, ``missing_values``."""
    return Builder("dates", format=format, levels=levels, **options)


def categories(map: str | os.PathLike[str] | None = None, *, frequency: int | None = None, **options: Any) -> Builder:
    """Labels: ``map`` a file of ``value;group`` lines (more columns, more levels),
    ``frequency=N`` (values of fewer than N records become ``other``, default ``Other``), or
    neither: value -> ``*``."""
    return Builder("categories", map=map, frequency=frequency, **options)
