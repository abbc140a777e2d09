"""``read_sql``: pandas' ``read_sql`` for a ``+fastodbc`` engine or connection, read through
Arrow. pandas reads a SQLAlchemy result as Python rows and builds its columns from them; here
the statement still runs through SQLAlchemy (its compiler, bound parameters, the transaction
of the connection given), but the result is read from the DB-API cursor as Arrow batches and
handed to pandas column by column (``Cursor.fetch_arrow_table``): no Python object per value
where pandas holds numbers.

The columns have the types of fastodbc's Arrow fetch (docs/type-fidelity.md), which SQLAlchemy's
result processing does not touch: a NUMERIC is a ``decimal.Decimal`` (pandas' ``read_sql``
makes it a float), a PostgreSQL array is its text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    import pandas
    import pyarrow

DtypeBackend = Literal["numpy", "numpy_nullable", "pyarrow"]


def read_sql(
    sql: Any,
    con: Any,
    params: Sequence[Any] | Mapping[str, Any] | None = None,
    *,
    index_col: str | Sequence[str] | None = None,
    dtype_backend: DtypeBackend = "numpy",
) -> pandas.DataFrame:
    """The rows of ``sql`` as a pandas ``DataFrame``, read as Arrow.

    ``sql`` is a SQL string (run as written, with the DB-API's ``?`` markers, as pandas runs a
    string) or a SQLAlchemy statement (``text()``, ``select()``); ``con`` an ``Engine`` or
    ``Connection`` of a ``+fastodbc`` dialect. ``dtype_backend``: ``"numpy"`` (pyarrow's
    ``to_pandas`` defaults: an integer column with NULLs becomes float), ``"numpy_nullable"``
    (pandas' nullable ``Int64``, ``boolean``, ``string`` ...) or ``"pyarrow"``
    (``pandas.ArrowDtype`` columns, no conversion at all)."""
    import sqlalchemy

    if isinstance(con, sqlalchemy.engine.Engine):
        with con.connect() as connection:
            return read_sql(sql, connection, params, index_col=index_col, dtype_backend=dtype_backend)
    if not isinstance(con, sqlalchemy.engine.Connection):
        raise TypeError(f"read_sql: con must be a SQLAlchemy Engine or Connection, not {type(con).__name__}")
    if con.dialect.driver != "fastodbc":
        raise TypeError(f"read_sql: {con.dialect.name}+{con.dialect.driver} is not a fastodbc dialect")
    if isinstance(sql, str):
        result = con.exec_driver_sql(sql, _driver_params(params))
    else:
        result = con.execute(sql, params or {})
    try:
        if not result.returns_rows:
            raise TypeError("read_sql: the statement returns no rows")
        table = result.cursor.fetch_arrow_table()
    finally:
        result.close()
    frame = to_frame(table, dtype_backend)
    return frame.set_index(index_col) if index_col is not None else frame


def _driver_params(params: Sequence[Any] | Mapping[str, Any] | None) -> Any:
    if params is None:
        return ()
    if isinstance(params, Mapping):
        return params
    return tuple(params)


def to_frame(table: pyarrow.Table, dtype_backend: DtypeBackend) -> pandas.DataFrame:
    """``table`` as a DataFrame with the columns ``dtype_backend`` asks for."""
    import pandas as pd

    if dtype_backend == "pyarrow":
        return table.to_pandas(types_mapper=pd.ArrowDtype)
    if dtype_backend == "numpy_nullable":
        return table.to_pandas(types_mapper=_nullable_types().get)
    if dtype_backend == "numpy":
        return table.to_pandas()
    raise ValueError(f"read_sql: dtype_backend must be numpy, numpy_nullable or pyarrow, not {dtype_backend!r}")


def _nullable_types() -> dict[Any, Any]:
    import pandas as pd
    import pyarrow as pa

    return {
        pa.int8(): pd.Int8Dtype(),
        pa.int16(): pd.Int16Dtype(),
        pa.int32(): pd.Int32Dtype(),
        pa.int64(): pd.Int64Dtype(),
        pa.uint8(): pd.UInt8Dtype(),
        pa.uint16(): pd.UInt16Dtype(),
        pa.uint32(): pd.UInt32Dtype(),
        pa.uint64(): pd.UInt64Dtype(),
        pa.bool_(): pd.BooleanDtype(),
        pa.float32(): pd.Float32Dtype(),
        pa.float64(): pd.Float64Dtype(),
        pa.string(): pd.StringDtype(),
        pa.large_string(): pd.StringDtype(),
    }
