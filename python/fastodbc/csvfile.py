"""CSV as fastodbc writes and reads it (``fastodbc export`` / ``import``, ``Cursor.ingest_csv``),
so that a file it writes reads back as the same values:

- NULL is an empty unquoted field, an empty string a quoted one (``""``). No other token is
  NULL unless the reader is told (``null_values``, ``--null-value``): ``NA``, ``null``, ``nan``
  are values (pyarrow's default ``null_values`` would read a dozen such tokens as NULL).
- Doubles are written as pyarrow writes them, ``nan``, ``inf``, ``-inf`` among them, and read
  back as the same doubles; text is always quoted.
- Binary values are written as PostgreSQL's text form of bytea: ``\\x`` and two lowercase hex
  digits a byte (``\\x`` alone: no bytes). Into a binary column they are read back so (either
  case of hex digit); any other text there is refused, naming the column and the input row.
- Decimals are written as pyarrow writes them (``1E-9`` under 1e-6: an uppercase E) and read
  back as decimals. Into a double column, text must read back as its double does (a double's
  own text does); text with more digits is refused, naming the column, input row and value.
- Zoned timestamp text into a column without a zone is read as the instants it names (stored
  as their UTC time).
- Columns whose type nothing gives (a new table) are inferred from the input's first MiB, as
  pyarrow infers them, except where that would lose what the text says: a column whose
  values are all quoted is text (all ``\\x`` hex: binary); integers with leading zeros
  (``007``) are text; decimal text is a decimal of the digits seen (``decimal128`` up to 38
  digits, else text), never a double; a double only where the text has a lowercase exponent,
  ``nan`` or ``inf``; timestamps and times are read to the microsecond, any year; a column
  with no value in the sample is text. A later value that does not fit is refused, not
  changed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

#: The bytes types are inferred from (pyarrow's CSV block size: what it infers from).
SAMPLE_BYTES = 1 << 20

#: ``\x`` and pairs of hex digits: PostgreSQL's text form of bytea.
HEX_BYTES = r"^\\x([0-9a-fA-F]{2})*$"



def convert_options(column_types: dict[str, Any] | None = None, null_values: Sequence[str] = ()) -> Any:
    """pyarrow's ConvertOptions of these rules: only the empty unquoted field (and the
    ``null_values`` given) is NULL, in every column; a quoted field never is."""
    import pyarrow.csv as pacsv

    return pacsv.ConvertOptions(
        column_types=column_types or {},
        null_values=["", *null_values],
        strings_can_be_null=True,
        quoted_strings_can_be_null=False,
    )


def is_binary(dtype: Any) -> bool:
    import pyarrow.types as pat

    return bool(
        pat.is_binary(dtype) or pat.is_large_binary(dtype) or pat.is_fixed_size_binary(dtype)
        or getattr(pat, "is_binary_view", lambda _: False)(dtype)
    )


def hex_text(array: Any) -> Any:
    """A binary array as text: ``\\x`` and lowercase hex digits per value, NULLs kept."""
    import pyarrow as pa
    import pyarrow.compute as pc

    values = array.cast(pa.large_binary())
    _, offsets, data = values.buffers()
    n = len(values)
    ends = pa.Array.from_buffers(pa.int64(), n + 1, [None, offsets], offset=values.offset)
    first, last = ends[0].as_py(), ends[n].as_py()
    digits = pa.py_buffer(data.slice(first, last - first).hex().lower() if last > first else b"")
    doubled = pc.multiply(pc.subtract(ends, first), 2)
    text = pa.Array.from_buffers(pa.large_string(), n, [None, doubled.buffers()[1], digits])
    large = pa.large_string()
    prefixed = pc.binary_join_element_wise(pa.scalar("\\x", large), text, pa.scalar("", large))
    return pc.if_else(values.is_valid(), prefixed, pa.scalar(None, pa.large_string()))


def hex_bytes(array: Any, column: str, first_row: int) -> Any:
    """Text in the form ``hex_text`` writes as binary; anything else raises DataError naming
    ``column`` and the input row (``first_row``: the input row, from 1, of ``array[0]``)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from .errors import DataError

    text = array.cast(pa.large_string())
    ok = pc.match_substring_regex(text, HEX_BYTES)
    bad = pc.index(ok, False).as_py()
    if bad >= 0:
        value = text[bad].as_py()
        shown = value if len(value) <= 40 else value[:40] + "..."
        raise DataError(
            f"CSV column {column!r}, input row {first_row + bad:,}: {shown!r} is not binary as "
            "fastodbc reads it (\\x and two hex digits a byte)"
        )
    digits = pc.utf8_slice_codeunits(text, 2)
    n = len(digits)
    _, offsets, data = digits.buffers()
    ends = pa.Array.from_buffers(pa.int64(), n + 1, [None, offsets], offset=digits.offset)
    first, last = ends[0].as_py(), ends[n].as_py()
    raw = bytes.fromhex(data.slice(first, last - first).to_pybytes().decode("ascii")) if last > first else b""
    halved = pc.divide(pc.subtract(ends, first), 2)
    values = pa.Array.from_buffers(pa.large_binary(), n, [None, halved.buffers()[1], pa.py_buffer(raw)])
    return pc.if_else(text.is_valid(), values, pa.scalar(None, pa.large_binary())).cast(pa.binary())


def duration_text(array: Any) -> Any:
    """A duration array as ``[-]HH:MM:SS.ffffff`` text (hours past 24 kept: MariaDB's TIME),
    NULLs kept; pyarrow's CSV writer would write the bare count of its unit."""
    import pyarrow as pa

    micros = array.cast(pa.duration("us")).cast(pa.int64()).to_pylist()

    def text(us: int | None) -> str | None:
        if us is None:
            return None
        sign, us = ("-", -us) if us < 0 else ("", us)
        secs, frac = divmod(us, 1_000_000)
        return f"{sign}{secs // 3600:02}:{secs // 60 % 60:02}:{secs % 60:02}.{frac:06}"

    return pa.array([text(v) for v in micros], pa.large_string())


class Writer:
    """pyarrow's CSV writer, binary columns written as ``hex_text`` (pyarrow's own would
    fail on any value that is not UTF-8, after the header was written) and durations as
    ``duration_text``."""

    def __init__(self, sink: Any, schema: Any):
        import pyarrow as pa
        import pyarrow.csv as pacsv

        self._text = {
            i: hex_text if is_binary(field.type) else duration_text
            for i, field in enumerate(schema)
            if is_binary(field.type) or pa.types.is_duration(field.type)
        }
        for i in self._text:
            schema = schema.set(i, pa.field(schema.field(i).name, pa.large_string(), schema.field(i).nullable))
        self._schema = schema
        self._writer = pacsv.CSVWriter(sink, schema)

    def write_batch(self, batch: Any) -> None:
        import pyarrow as pa

        if self._text:
            columns = list(batch.columns)
            for i, as_text in self._text.items():
                columns[i] = as_text(columns[i])
            batch = pa.RecordBatch.from_arrays(columns, schema=self._schema)
        self._writer.write_batch(batch)

    def close(self) -> None:
        self._writer.close()


class Replayable:
    """A binary input whose first bytes can be looked at (``head``) and then read again, also
    where it cannot seek back (stdin)."""

    def __init__(self, raw: Any):
        self.raw = raw
        # Bytes read ahead of the reader from a source that cannot seek back.
        self._ahead = b""

    def head(self, size: int) -> bytes:
        """Up to ``size`` first bytes (fewer: the whole input), left for the reader."""
        if self._ahead:
            return self._ahead[:size]
        start = self.raw.tell() if self.raw.seekable() else None
        chunks, seen = [], 0
        while seen < size:
            more = self.raw.read(size - seen)
            if not more:
                break
            chunks.append(more)
            seen += len(more)
        data = b"".join(chunks)
        if start is not None:
            self.raw.seek(start)
        else:
            self._ahead = data
        return data

    def read(self, size: int = -1) -> bytes:
        if not self._ahead:
            return self.raw.read(size)
        data, self._ahead = (self._ahead, b"") if size < 0 else (self._ahead[:size], self._ahead[size:])
        if size < 0 or len(data) < size:
            data += self.raw.read(-1 if size < 0 else size - len(data))
        return data

    def seek(self, offset: int, whence: int = 0) -> int:
        return self.raw.seek(offset, whence)

    def tell(self) -> int:
        return self.raw.tell()

    def seekable(self) -> bool:
        return self.raw.seekable()

    def readable(self) -> bool:
        return True

    def writable(self) -> bool:
        return False

    @property
    def closed(self) -> bool:
        return self.raw.closed

    def close(self) -> None:
        self.raw.close()


def open_csv(
    source: Replayable,
    types_of: Callable[[list[str]], dict[str, Any]] | None = None,
    null_values: Sequence[str] = (),
    read_options: Any = None,
    parse_options: Any = None,
) -> tuple[Any, Iterator[Any]]:
    """The schema and batches of the CSV ``source`` read by these rules. ``types_of``: given
    the column names, the Arrow types of those whose type is known (an existing table's);
    the others are inferred (``infer``)."""
    import io

    import pyarrow as pa
    import pyarrow.csv as pacsv

    from . import csvtypes

    head = source.head(SAMPLE_BYTES)
    sample = _whole_rows(head, at_end=len(head) < SAMPLE_BYTES)
    options = {"read_options": read_options, "parse_options": parse_options}
    try:
        seen = pacsv.read_csv(io.BytesIO(sample), **options, convert_options=convert_options(None, null_values))
    except (pa.ArrowInvalid, pa.ArrowTypeError):  # the read says why, or the sample was cut badly
        seen = None
    names = seen.column_names if seen is not None else csvtypes.csv_header(head.split(b"\n", 1)[0])
    given = types_of(names) if types_of else {}
    default_dialect = parse_options is None and (read_options is None or read_options.encoding == "utf8")
    inferred = csvtypes.infer(sample, seen, {}, null_values, options, quotes=default_dialect)
    types = {**inferred, **given}
    for name, dtype in given.items():
        # Zoned text (``...Z``, ``+05:30``) into a column without a zone: read as the instants
        # it names, which ingest stores as their UTC time.
        found = inferred.get(name)
        if pa.types.is_timestamp(dtype) and dtype.tz is None and found is not None and getattr(found, "tz", None):
            types[name] = pa.timestamp(dtype.unit, "UTC")
    # Columns read as text and converted batch by batch: binary from ``\x`` hex, and text into a
    # double column checked for digits a double would not keep (pyarrow's reader rounds them).
    converters: dict[str, Callable[[Any, str, int], Any]] = {
        name: hex_bytes if is_binary(dtype) else csvtypes.exact_doubles
        for name, dtype in types.items()
        if is_binary(dtype) or (name in given and dtype == pa.float64())
    }
    read_types = {name: pa.large_string() if name in converters else dtype for name, dtype in types.items()}
    reader = pacsv.open_csv(source, **options, convert_options=convert_options(read_types, null_values))
    schema = reader.schema
    for name in converters:
        i = schema.get_field_index(name)
        if i >= 0:
            schema = schema.set(i, pa.field(name, pa.binary() if is_binary(types[name]) else pa.float64()))

    def batches() -> Iterator[Any]:
        row = 1
        for batch in reader:
            if converters:
                columns = [
                    converters[field.name](column, field.name, row) if field.name in converters else column
                    for column, field in zip(batch.columns, batch.schema, strict=True)
                ]
                batch = pa.RecordBatch.from_arrays(columns, schema=schema)
            row += batch.num_rows
            yield batch

    return schema, batches()


def _whole_rows(head: bytes, at_end: bool) -> bytes:
    """``head`` up to its last line end (all of it at the input's end)."""
    return head if at_end else head[: head.rfind(b"\n") + 1]
