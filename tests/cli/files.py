"""Reading back what ``fastodbc export`` wrote, by format, with pyarrow's readers."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.ipc as ipc
import pyarrow.parquet as pq

SUFFIXES = {"parquet": ".parquet", "csv": ".csv", "arrow": ".arrow"}


def read(path: Path, schema: pa.Schema) -> pa.Table:
    """The table in the file at ``path`` (CSV: its columns read as ``schema`` says)."""
    if path.suffix == ".parquet":
        return pq.read_table(path)
    if path.suffix == ".arrow":
        return ipc.open_file(path).read_all()
    # NULL is an empty field; '' would be a quoted one.
    options = pacsv.ConvertOptions(column_types=schema, strings_can_be_null=True, quoted_strings_can_be_null=False)
    return pacsv.read_csv(path, convert_options=options)


def parts(output: Path) -> list[Path]:
    """The numbered parts of a split export to ``output``, in order."""
    return sorted(output.parent.glob(f"{output.stem}-*{output.suffix}"))
