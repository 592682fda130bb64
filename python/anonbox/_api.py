"""The package's calls: ``anonymize``, ``run``, ``audit``, ``init``, and their results. Each
builds the command line's flags (and, for ``anonymize``, an anonbox XML config in a temporary
folder, removed afterwards) and runs them in the native module, so a release from Python is the
command line's."""

from __future__ import annotations

import csv
import json
import os
import re
import tempfile
import xml.etree.ElementTree as ET
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Union

import pyarrow as pa
from xml.sax.saxutils import quoteattr

from . import _native, _progress
from ._data import from_arrow, mask_as, to_arrow, write_csv
from ._native import ConfigError
from .hierarchy import Builder
from .models import PrivacyModel, from_element

Hierarchy = Union[str, "os.PathLike[str]", Sequence[Sequence[Any]], Builder, Any, None]


class Result:
    """What a run released.

    - ``data``: the release, the same type as the input (pandas, polars, pyarrow): every row
      kept, in input order, identifiers removed, quasi-identifiers replaced by their
      generalized labels (strings: dictionary-encoded in a pyarrow release, plain in pandas
      and polars), other columns as they were. ``None`` for ``run``, which
      writes the release where the config says.
    - ``report``: the JSON report (a dict), as ``-report FILE.json`` writes it.
    - ``transformation``: the generalization level of each quasi-identifier (a dict in
      quasi-identifier order), ``None`` for methods that choose no levels.
    - ``suppressed``: per row of ``data``, True if the row was suppressed (every
      quasi-identifier at its top), as a column of the input's type (``pandas.Series``,
      ``polars.Series``, ``pyarrow.BooleanArray``); ``None`` where the method does not say.
    - ``to_html()``: the HTML report (shown inline in Jupyter).
    """

    def __init__(self, native: Any, kind: Optional[str]) -> None:
        self._native = native
        table = native.table()
        self.data = None if table is None or kind is None else from_arrow(table, kind)
        del table
        self.report: Dict[str, Any] = json.loads(native.report_json())
        levels = native.transformation()
        self.transformation: Optional[Dict[str, int]] = None if levels is None else dict(levels)
        self.suppressed = None if kind is None else mask_as(native.suppressed(), kind)

    def to_html(self) -> str:
        """The HTML report, as ``-report FILE.html`` writes it."""
        return self._native.html()

    def _repr_html_(self) -> str:
        return self.to_html()

    def __repr__(self) -> str:
        r = self.report
        return (
            f"<anonbox.Result: {r.get('records')} records, transformation "
            f"{self.transformation}, {r.get('suppressed_records')} suppressed, "
            f"{r.get('equivalence_classes')} classes, loss {r.get('information_loss')}>"
        )


def _flag_name(name: str) -> str:
    """``time_limit`` -> ``timeLimit`` (the command line's spelling)."""
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def _flags(flags: Mapping[str, Any]) -> List[str]:
    out: List[str] = []
    for name, value in flags.items():
        if value is None or value is False:
            continue
        flag = "-" + _flag_name(name)
        if value is True:
            out.append(flag)
        else:
            out += [flag, os.fspath(value) if isinstance(value, os.PathLike) else str(value)]
    return out


def _attr(name: str) -> str:
    return quoteattr(str(name))


def _hierarchy_rows(h: Any) -> List[List[str]]:
    """A hierarchy given as rows or as a table: its rows as text."""
    if hasattr(h, "__arrow_c_stream__") or type(h).__name__ == "DataFrame":
        from ._data import as_table

        t = as_table(h)
        cols = [t.column(i).to_pylist() for i in range(t.num_columns)]
        return [["" if v is None else str(v) for v in row] for row in zip(*cols)]
    return [["" if v is None else str(v) for v in row] for row in h]


def _write_hierarchy(h: Any, path: str, name: str) -> None:
    rows = _hierarchy_rows(h)
    if not rows:
        raise ConfigError(f"the hierarchy of {name} has no rows")
    with open(path, "w", encoding="utf-8", newline="") as f:
        for row in rows:
            for v in row:
                if ";" in v or "\n" in v or "\r" in v:
                    raise ConfigError(
                        f"the hierarchy of {name}: the value {v!r} holds ';' or a line break, "
                        "which an ARX hierarchy file cannot (give a builder or other labels)"
                    )
            f.write(";".join(row) + "\n")


def _att(name: str, h: Hierarchy, folder: str, n: int) -> str:
    if h is None:
        return f"<att name={_attr(name)}/>"
    if isinstance(h, Builder):
        return f"<att name={_attr(name)}>{h.to_xml()}</att>"
    if isinstance(h, (str, os.PathLike)):
        return f"<att name={_attr(name)} hierarchy={_attr(os.path.abspath(os.fspath(h)))}/>"
    path = os.path.join(folder, f"hierarchy_{n}.csv")
    _write_hierarchy(h, path, name)
    return f"<att name={_attr(name)} hierarchy={_attr(path)}/>"


def _sensitive(sensitive: Any) -> Dict[str, Hierarchy]:
    if sensitive is None:
        return {}
    if isinstance(sensitive, str):
        return {sensitive: None}
    if isinstance(sensitive, Mapping):
        return dict(sensitive)
    return {s: None for s in sensitive}


def _privacy(privacy: Any) -> List[PrivacyModel]:
    if privacy is None:
        return []
    if isinstance(privacy, PrivacyModel):
        return [privacy]
    models = list(privacy)
    for m in models:
        if not isinstance(m, PrivacyModel):
            raise ConfigError(
                f"privacy: {m!r} is not a privacy model (anonbox.KAnonymity(5), "
                "anonbox.DistinctLDiversity('disease', 3), ...)"
            )
    return models


def _flat(data: Any, kind: str, name: str) -> List[List[str]]:
    """A one-level hierarchy (value -> ``*``) over the distinct values of column ``name``, in
    their text form as the run reads them (arrow's cast to a string; a null is empty)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if kind == "polars":
        if name not in data.columns:
            raise ConfigError(f"sensitive: the data has no column '{name}'")
        column = data.select(name).to_arrow().column(0)
    else:
        table = data if isinstance(data, pa.Table) else pa.table(data)
        if name not in table.column_names:
            raise ConfigError(f"sensitive: the data has no column '{name}'")
        column = table.column(name)
    values = pc.unique(column.cast(pa.string())).to_pylist()
    return [["" if v is None else v, "*"] for v in sorted(values, key=lambda v: v or "")]


def config_xml(
    folder: str,
    quasi_identifiers: Mapping[str, Hierarchy],
    sensitive: Any = None,
    identifiers: Iterable[str] = (),
    privacy: Any = None,
    data: Any = None,
    kind: str = "pyarrow",
) -> str:
    """The anonbox config of a job given as ``anonymize``'s arguments; hierarchies given as
    rows or tables are written into ``folder``. A sensitive attribute without a hierarchy gets
    a flat one over ``data``'s values."""
    if not isinstance(quasi_identifiers, Mapping) or not quasi_identifiers:
        raise ConfigError(
            "quasi_identifiers: give a dict from column name to hierarchy (a file, rows, a "
            "table or an anonbox.hierarchy builder)"
        )
    parts = ["<config>"]
    ids = list(identifiers)
    if ids:
        parts.append("<id>" + "".join(f"<att name={_attr(i)}/>" for i in ids) + "</id>")
    parts.append("<qid>")
    for n, (name, h) in enumerate(quasi_identifiers.items()):
        if h is None:
            h = Builder("categories")
        parts.append(_att(name, h, folder, n))
    parts.append("</qid>")
    sens = _sensitive(sensitive)
    if sens:
        parts.append("<sens>")
        for n, (name, h) in enumerate(sens.items()):
            if h is None and data is not None:
                h = _flat(data, kind, name)
            parts.append(_att(name, h, folder, 1000 + n))
        parts.append("</sens>")
    models = _privacy(privacy)
    if models:
        parts.append("<privacy>" + "".join(m.to_xml() for m in models) + "</privacy>")
    parts.append("</config>")
    return "\n".join(parts) + "\n"


def anonymize(
    data: Any,
    *,
    quasi_identifiers: Mapping[str, Hierarchy],
    sensitive: Any = None,
    identifiers: Iterable[str] = (),
    k: Optional[int] = None,
    privacy: Any = None,
    method: str = "Optimal",
    metric: str = "Loss",
    suppression: float = 0.0,
    time_limit: Optional[float] = None,
    threads: Optional[int] = None,
    engine: Optional[str] = None,
    local_recoding: bool = False,
    suppress: Optional[str] = None,
    labels: Optional[str] = None,
    partition: Optional[str] = None,
    progress: Any = None,
) -> Result:
    """Anonymizes ``data`` (a pandas or polars DataFrame, a pyarrow Table, or any object with
    the Arrow PyCapsule interface) and returns the :class:`Result`; nothing is written to disk
    but a temporary config (and hierarchies given as rows), removed before returning.

    ``quasi_identifiers``: column -> hierarchy: a path to an ARX hierarchy file
    (``value;level1;...;*``), a list of such rows, a DataFrame of them, or an
    ``anonbox.hierarchy`` builder (``None``: every value -> ``*``). ``sensitive``: a column, a
    list, or a dict column -> hierarchy (for t-closeness with ``distance="hierarchical"``).
    ``identifiers``: columns removed from the release. ``k``: k-anonymity; ``privacy``: a list
    of models (``anonbox.KAnonymity(5)``, ``anonbox.TCloseness("disease", 0.2)``, ...); give
    one or both. ``method``: ``Flash``, ``OLA``, ``BFS``, ``Optimal`` (the default: proven
    optimal, or the best found in ``time_limit`` seconds), ``Datafly``, ``Mondrian``,
    ``Incognito_K``. ``metric``: ``Loss``, ``DMStar``, ``DM``, ``Height``, ``Precision``,
    ``Entropy``, ``AECS``. ``suppression``: the share of records that may be suppressed.
    ``local_recoding=True``: the records the optimum would suppress are released in groups at
    transformations of their own (``-localRecoding``); ``suppress="cells"``: quasi-identifier
    cells are blanked instead of whole records (``-suppress cells``); ``labels="sets"`` and
    ``partition="relaxed"``: Mondrian's set labels and relaxed cuts (``-labels``,
    ``-partition``).
    ``progress``: ``True`` for tqdm bars (when tqdm is installed), or a callable
    ``(phase, position, length, message)`` called on this thread as the run goes on.

    Raises ``ConfigError`` for bad arguments (before the data is read) and ``DataError`` for
    data the run cannot anonymize, with the command line's message; ``KeyboardInterrupt`` on
    Ctrl-C. The search runs without the GIL.
    """
    if k is None and privacy is None:
        raise ConfigError("give k=N or privacy=[...] (anonbox.KAnonymity(5), ...)")
    report_progress = _progress.callback(progress)
    stream, kind = to_arrow(data, encode=quasi_identifiers)
    with tempfile.TemporaryDirectory(prefix="anonbox-") as folder:
        path = os.path.join(folder, "config.xml")
        with open(path, "w", encoding="utf-8") as f:
            f.write(
                config_xml(folder, quasi_identifiers, sensitive, identifiers, privacy, stream, kind)
            )
        flags = {
            "config": path,
            "method": method,
            "metric": metric,
            "suppression": suppression,
            "k": k,
            "time_limit": time_limit,
            "threads": threads,
            "engine": engine,
            "local_recoding": local_recoding,
            "suppress": suppress,
            "labels": labels,
            "partition": partition,
            "quiet": True,
        }
        try:
            native = _native.run(_flags(flags), stream, True, report_progress)
        finally:
            if isinstance(report_progress, _progress.Tqdm):
                report_progress.close()
    # The input's Arrow copy (from pandas) goes before the release is converted back, and
    # Arrow's allocator hands its pages back (it keeps freed memory for reuse otherwise).
    del stream
    pa.default_memory_pool().release_unused()
    return Result(native, kind)


def run(config: Union[str, "os.PathLike[str]"], **flags: Any) -> Result:
    """Runs an anonbox or UT Dallas XML ``config`` as the command line does, with its flags as
    keyword arguments (``method="Flash", k=5, time_limit=60, report="r.html"``; ``True`` for
    a flag without a value), writing the outputs the config and the flags name.
    ``Result.data`` is ``None``; ``report`` and ``to_html()`` describe the run. Raises
    ``ConfigError`` (exit status 2) or ``DataError`` (exit status 1) with the command line's
    message."""
    flags = {"config": config, "quiet": True, **flags}
    native = _native.run(_flags(flags), None, False)
    return Result(native, None)


def audit(
    data: Any,
    quasi_identifiers: Union[Sequence[str], Mapping[str, Any]],
    sensitive: Optional[str] = None,
    **checks: Any,
) -> Dict[str, Any]:
    """The privacy figures of ``data`` as it stands (``anonbox audit --json``): k, classes,
    records at risk, and with ``sensitive`` l-diversity and t-closeness. ``checks`` are the
    command's options with underscores (``k=5, l=2, t=0.2, max_risk=0.05``); the dict's
    ``holds`` says whether every threshold given holds."""
    qi = list(quasi_identifiers.keys() if isinstance(quasi_identifiers, Mapping) else quasi_identifiers)
    with tempfile.TemporaryDirectory(prefix="anonbox-") as folder:
        path = os.path.join(folder, "data.csv")
        write_csv(data, path)
        args = ["audit", path, "--qi", ",".join(qi), "--json"]
        if sensitive is not None:
            args += ["--sensitive", sensitive]
        for name, value in checks.items():
            if value is None or value is False:
                continue
            flag = "--" + name.replace("_", "-")
            args += [flag] if value is True else [flag, str(value)]
        text, code = _native.command(args)
    out = json.loads(text)
    if isinstance(out, dict):
        out.setdefault("holds", code == 0)
    return out


class Proposal(Mapping[str, Any]):
    """The roles and hierarchies ``anonbox init`` proposes for a table: ``identifiers``,
    ``quasi_identifiers`` (column -> hierarchy rows), ``sensitive`` (column -> rows or None),
    ``privacy`` (models), and ``text`` (what init printed: a reason per column). Edit them,
    then ``anonbox.anonymize(data, **proposal, k=5)``."""

    def __init__(self, identifiers: List[str], quasi_identifiers: Dict[str, Any],
                 sensitive: Dict[str, Any], privacy: List[PrivacyModel], text: str) -> None:
        self.identifiers = identifiers
        self.quasi_identifiers = quasi_identifiers
        self.sensitive = sensitive
        self.privacy = privacy
        self.text = text

    _KEYS = ("quasi_identifiers", "sensitive", "identifiers", "privacy")

    def __getitem__(self, key: str) -> Any:
        if key not in self._KEYS:
            raise KeyError(key)
        value = getattr(self, key)
        if key == "privacy" and not value:
            return None
        return value

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self._KEYS)

    def __len__(self) -> int:
        return len(self._KEYS)

    def __repr__(self) -> str:
        return (
            f"Proposal(quasi_identifiers={list(self.quasi_identifiers)}, sensitive="
            f"{list(self.sensitive)}, identifiers={self.identifiers}, privacy={self.privacy})"
        )


def _read_rows(path: str) -> List[List[str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return [row for row in csv.reader(f, delimiter=";")]


def init(data: Any) -> Proposal:
    """What ``anonbox init`` proposes for ``data``: a :class:`Proposal`."""
    with tempfile.TemporaryDirectory(prefix="anonbox-") as folder:
        path = os.path.join(folder, "data.csv")
        write_csv(data, path)
        out = os.path.join(folder, "proposal")
        text, _ = _native.command(["init", path, "--header", "--dir", out])
        root = ET.parse(os.path.join(out, "config.xml")).getroot()

        def atts(section: str) -> Dict[str, Any]:
            found: Dict[str, Any] = {}
            for el in root.findall(f"{section}/att"):
                name = el.get("name") or el.get("index") or ""
                h = el.get("hierarchy")
                found[name] = _read_rows(os.path.join(out, h)) if h else None
            return found

        privacy = [
            from_element(el.tag, dict(el.attrib)) for el in (root.find("privacy") or [])
        ]
        return Proposal(
            identifiers=list(atts("id")),
            quasi_identifiers=atts("qid"),
            sensitive=atts("sens"),
            privacy=privacy,
            text=re.sub(r"\n{3,}", "\n\n", text),
        )
