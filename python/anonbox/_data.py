"""Tables in and out: pandas, polars and pyarrow tables (or anything with the Arrow PyCapsule
interface) to something the native module reads through ``__arrow_c_stream__``, and the
release back to the input's own type."""

from __future__ import annotations

from typing import Any, Iterable, Set, Tuple

import pyarrow as pa


def kind_of(data: Any) -> str:
    """``pandas``, ``polars``, ``pyarrow`` or ``arrow`` (any other PyCapsule exporter)."""
    module = type(data).__module__.split(".")[0]
    if module == "pandas" and type(data).__name__ == "DataFrame":
        return "pandas"
    if module == "polars" and type(data).__name__ == "DataFrame":
        return "polars"
    if isinstance(data, (pa.Table, pa.RecordBatch, pa.RecordBatchReader)):
        return "pyarrow"
    if hasattr(data, "__arrow_c_stream__"):
        return "arrow"
    raise TypeError(
        f"data must be a pandas or polars DataFrame, a pyarrow Table or an object with the "
        f"Arrow PyCapsule interface (__arrow_c_stream__), not {type(data).__name__}"
    )


def to_arrow(data: Any, encode: Iterable[str] = ()) -> Tuple[Any, str]:
    """An object with ``__arrow_c_stream__`` for ``data``, and its kind. From pandas, the text
    columns named in ``encode`` (the quasi-identifiers, which the release replaces by labels)
    cross dictionary-encoded where their values repeat."""
    kind = kind_of(data)
    if kind == "pandas":
        # The index is not data (a RangeIndex carries nothing); a named index is a column.
        if not _is_default_index(data.index):
            return pa.Table.from_pandas(data, preserve_index=True), kind
        return _pandas_columns(data, set(encode)), kind
    if kind == "pyarrow" and isinstance(data, pa.RecordBatch):
        return pa.Table.from_batches([data]), kind
    if kind == "pyarrow" and isinstance(data, pa.RecordBatchReader):
        return data.read_all(), kind
    if kind == "arrow":
        # A stream may be read once only: hold it as a table (its buffers, not a copy).
        return pa.table(data), "pyarrow"
    # polars and pyarrow tables export the stream themselves, without a copy.
    return data, kind


def _pandas_columns(df: Any, encode: Set[str]) -> pa.Table:
    """A pandas frame as Arrow, one column at a time. Columns pandas holds in Arrow already
    (pandas 3's strings, ``string[pyarrow]``, numbers) cross without a copy. A column of Python
    strings (``object``) in ``encode`` must be copied: where its values repeat (at most one
    distinct value in two rows) the copy is dictionary-encoded, a 4-byte key a row and each
    value once, and only one column's plain text exists at a time. The run reads the text
    through the dictionary all the same. Other columns cross as they are: the release gives
    them back in their own types."""
    arrays = []
    for name in df.columns:
        column = df[name]
        array = pa.array(column, from_pandas=True)
        if column.dtype == object and str(name) in encode:
            if isinstance(array, pa.ChunkedArray):
                array = array.combine_chunks()
            if pa.types.is_string(array.type) or pa.types.is_large_string(array.type):
                coded = array.dictionary_encode()
                if 2 * len(coded.dictionary) <= len(array):
                    array = coded
        arrays.append(array)
    table = pa.Table.from_arrays(arrays, names=[str(n) for n in df.columns])
    # Batches of a bounded size (slices, no copy): the run decodes a batch's text at a time.
    return pa.Table.from_batches(table.to_batches(max_chunksize=1 << 16), table.schema)


def _is_default_index(index: Any) -> bool:
    import pandas as pd

    return isinstance(index, pd.RangeIndex) and index.name is None


def from_arrow(table: pa.Table, kind: str) -> Any:
    """The release as the input's type. Its quasi-identifiers come as dictionary-encoded
    strings (a 4-byte key per row, each label once per batch): a pyarrow release keeps them so;
    pandas and polars get plain strings (``object`` and ``Utf8`` columns, as the input's were),
    decoded from the dictionary, never through a second Arrow copy of the text."""
    coded = [f.name for f in table.schema if pa.types.is_dictionary(f.type)]
    if kind == "pandas":
        # One block a column, each Arrow column let go of once converted (the table is the
        # release's only holder), the labels as categoricals first: the release is never held
        # twice, nor consolidated.
        df = table.to_pandas(split_blocks=True, self_destruct=True)
        del table
        # The release's Arrow pages, freed by now, go back before the labels become objects.
        from . import _native

        _native.release_memory()
        for name in coded:
            df[name] = df[name].astype(object)
        return df
    if kind == "polars":
        import polars as pl

        df = pl.from_arrow(table)
        return df.with_columns(pl.col(coded).cast(pl.Utf8)) if coded else df
    return table


def mask_as(mask: Any, kind: str) -> Any:
    """The suppressed mask (a pyarrow BooleanArray) as the input's type of column."""
    if mask is None:
        return None
    if kind == "pandas":
        import pandas as pd

        return pd.Series(mask.to_numpy(zero_copy_only=False), name="suppressed")
    if kind == "polars":
        import polars as pl

        return pl.Series("suppressed", mask)
    return mask


def as_table(data: Any) -> pa.Table:
    """``data`` as a pyarrow Table (copies where the input is not Arrow already)."""
    obj, kind = to_arrow(data)
    if isinstance(obj, pa.Table):
        return obj
    if kind == "polars":
        return obj.to_arrow()
    return pa.table(obj)


def write_csv(data: Any, path: str) -> None:
    """``data`` as a comma-separated file with a header (for the commands that read files:
    audit, init, hierarchy)."""
    import pyarrow.csv as pacsv

    table = as_table(data)
    # Every column as text, as a delimited file holds it; a null is an empty field.
    table = pa.table(
        {name: table.column(name).cast(pa.string()) for name in table.column_names}
    )
    pacsv.write_csv(table, path, write_options=pacsv.WriteOptions(quoting_style="needed"))
