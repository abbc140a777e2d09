"""The file formats of export and import: pyarrow's Parquet, CSV and Arrow IPC writers and
readers (well kept, streaming batch by batch, so memory stays bounded by a batch, not a file).

CSV follows fastodbc's rules both ways (fastodbc/csvfile.py): NULL is an empty unquoted field,
an empty string a quoted one (``""``), binary ``\\x`` and hex digits, so a file export writes is
read back as the same values.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..csvfile import Replayable, open_csv
from ..csvfile import Writer as CsvWriter

if TYPE_CHECKING:
    from .._native import MemoryBudget

FORMATS = {
    ".parquet": "parquet", ".pq": "parquet", ".csv": "csv", ".arrow": "arrow", ".feather": "arrow", ".ipc": "arrow"
}
FORMAT_NAMES = ("parquet", "csv", "arrow")

#: The largest dictionary a Parquet column chunk keeps before the rest of it is written plain.
#: pyarrow's default (1 MiB) hashes every value of a column that is mostly distinct (ids,
#: amounts, timestamps) and then stores a dictionary as large as the values: on the benchmark's
#: ``mixed`` rows that was 40% of the writer's time and 12% more bytes. At 64 KiB such a column
#: gives up early, and one of few distinct values (a status, a flag, a country) keeps its
#: dictionary.
PARQUET_DICTIONARY_BYTES = 64 * 1024

#: The rows of an export's batch by output format, where they differ from the reader's own
#: (65,536). A Parquet batch is a row group, and readers prefer row groups of many rows (DuckDB
#: writes 122,880, pyarrow's ``write_table`` up to 1,048,576); the writer's work per row group
#: (dictionaries, statistics, headers) is paid half as often: a PostgreSQL export of 400,000
#: ``mixed`` rows took 0.96 s with 65,536 rows a group and 0.91-0.92 s with 131,072. Such a
#: format's batch bytes are the memory budget's export share (``MemoryBudget.export_batch_bytes``,
#: 32 MiB by default), keeping wide rows' batches small: up to three batches are in memory at
#: once (cli/parts.py).
ROW_GROUP_ROWS: dict[str, int] = {"parquet": 131_072}


def format_of(path: str, given: str | None) -> str | None:
    """``--format``, else the one of the path's extension (None: cannot tell)."""
    return given or FORMATS.get(Path(path).suffix.lower())


def preload_writer(fmt: str) -> None:
    """Imports pyarrow and ``fmt``'s writer (0.1-0.2 s), for the main thread to do while the
    worker connects and executes; a failed import is left for the worker to meet and report."""
    try:
        import pyarrow  # noqa: F401

        if fmt == "parquet":
            import pyarrow.parquet  # noqa: F401
        elif fmt == "csv":
            import pyarrow.csv  # noqa: F401
        else:
            import pyarrow.ipc  # noqa: F401
    except ImportError:
        pass


def export_batch_limits(
    fmt: str, rows: int | None, nbytes: int | None, budget: MemoryBudget
) -> tuple[int | None, int | None]:
    """The batch limits of an export to ``fmt``: those given, else the format's own, taken
    from the connection's ``budget`` (None: the reader's default)."""
    if fmt not in ROW_GROUP_ROWS:
        return rows, nbytes
    return rows or ROW_GROUP_ROWS[fmt], nbytes or budget.export_batch_bytes


def open_writer(fmt: str, sink: Any, schema: Any, compression: str | None) -> Any:
    """pyarrow's writer of ``fmt`` (Parquet: zstd unless ``compression`` says)."""
    if fmt == "parquet":
        import pyarrow.parquet as pq

        return pq.ParquetWriter(
            sink, schema, compression=compression or "zstd", dictionary_pagesize_limit=PARQUET_DICTIONARY_BYTES
        )
    if fmt == "csv":
        return CsvWriter(sink, schema)
    import pyarrow.ipc as ipc

    options = ipc.IpcWriteOptions(compression=compression) if compression else None
    return ipc.new_file(sink, schema, options=options)


class CountedSource(Replayable):
    """A binary input (a file or stdin) counting the bytes read from it, for the progress
    display; pyarrow's readers take it as a file object."""

    def __init__(self, raw: Any):
        super().__init__(raw)
        self.bytes = 0

    def read(self, size: int = -1) -> bytes:
        data = super().read(size)
        self.bytes += len(data)
        return data


class Input:
    """An input being read: its schema, its batches (pulled one at a time), and what the
    progress display's percentage is of (rows from Parquet metadata, or bytes of a file).
    (Not a dataclass: importing dataclasses, 5-6 ms, would delay every command's connect.)"""

    def __init__(
        self,
        schema: Any,
        batches: Iterator[Any],
        source: CountedSource,
        total_rows: int | None = None,
        total_bytes: int | None = None,
    ):
        self.schema = schema
        self.batches = batches
        self.source = source
        self.total_rows = total_rows
        self.total_bytes = total_bytes


def open_input(
    path: str,
    fmt: str,
    batch_rows: int | None,
    csv_types: Callable[[list[str]], dict[str, Any]] | None = None,
    null_values: Sequence[str] = (),
) -> Input:
    """Opens ``path`` (``-``: stdin, an Arrow IPC stream or CSV) for reading in batches.
    ``csv_types``: given a CSV's column names, the Arrow types to read columns as (the target
    table's); the others' types are inferred (fastodbc/csvfile.py). ``null_values``: CSV
    tokens read as NULL besides the empty unquoted field."""
    if path == "-":
        source = CountedSource(sys.stdin.buffer)
        size = None
    else:
        source = CountedSource(open(path, "rb"))  # noqa: SIM115 - closed by the caller
        size = os.fstat(source.raw.fileno()).st_size
    if fmt == "parquet":
        from ..ingest import open_parquet, parquet_row_groups

        parquet = open_parquet(source)
        batches = parquet_row_groups(parquet, batch_rows)
        return Input(parquet.schema_arrow, batches, source, total_rows=parquet.metadata.num_rows)
    if fmt == "csv":
        schema, batches = open_csv(source, csv_types, null_values)
        return Input(schema, batches, source, total_bytes=size)
    import pyarrow as pa
    import pyarrow.ipc as ipc

    # IPC aligns buffers to 8 bytes; arrow-rs, under ingest, requires a decimal128 buffer's 16
    # (and panics otherwise), which pyarrow's DataTypeSpecific does not give: At64Byte copies
    # the buffers that are not aligned so.
    alignment = getattr(ipc, "Alignment", None)  # pyarrow 17
    options = ipc.IpcReadOptions(ensure_alignment=alignment.At64Byte) if alignment else None
    if size is not None:
        try:
            file = ipc.open_file(source, options=options)
        except pa.ArrowInvalid:  # not the file format: the stream format (also .arrow)
            source.seek(0)
        else:
            batches = (file.get_batch(i) for i in range(file.num_record_batches))
            return Input(file.schema, batches, source, total_bytes=size)
    stream = ipc.open_stream(source, options=options)
    return Input(stream.schema, iter(stream), source, total_bytes=size)
