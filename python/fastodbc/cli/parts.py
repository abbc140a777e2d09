"""An export's output: one file (or stdout), or numbered parts of at most ``--rows-per-file``
rows or about ``--max-file-bytes`` bytes each.

Parts are named ``<stem>-00000<suffix>``, ``<stem>-00001<suffix>``, ... beside OUTPUT
(``out.parquet`` -> ``out-00000.parquet``): sorted by name they are in the result's order, a
glob (``out-*.parquet``) reads them all as one dataset (pyarrow, DuckDB, polars, Spark), and
each is a whole file of its format (Parquet footer, CSV header, IPC footer). The numbering
widens past 99,999 parts. A part begins only when a row needs it: an empty result still makes
part 0, with the schema alone, and no part is ever empty otherwise.

A split export replaces the parts of an earlier one to the same OUTPUT: when it opens its first
part it removes every file named as a part of OUTPUT (``earlier``), so a glob never reads the
rows of a longer, earlier export beside its own, nor the parts of an earlier set that its first
parts overwrote. An export that fails before writing a row leaves them (it wrote nothing);
OUTPUT itself, and names not of the pattern, are never touched.

Each file is written under a hidden temporary name beside it (``partial_path``) and renamed to
its own name once whole, so a reader never finds a half-written file under OUTPUT's name, even
after the process was killed; a failed or interrupted export removes its temporary file.

``--max-file-bytes`` is checked after each batch is written (the writers write a batch whole):
a part ends once it has reached the limit, so it may pass it by up to one encoded batch plus the
format's footer; ``--batch-rows`` / ``--batch-bytes`` bound that.
"""

from __future__ import annotations

import os
import queue
import re
import sys
import threading
from pathlib import Path
from types import TracebackType
from typing import Any

from .formats import open_writer


def part_path(output: Path, number: int) -> Path:
    """The path of part ``number`` of ``output``."""
    return output.with_name(f"{output.stem}-{number:05d}{output.suffix}")


def partial_path(path: Path) -> Path:
    """Where ``path`` is written until it is whole: a hidden name beside it (the same
    directory, so the rename is atomic), never one of OUTPUT's part names. A process killed
    mid-write (SIGKILL, a crash) leaves this file, never an unreadable one under ``path``."""
    return path.with_name(f".{path.name}.{os.getpid()}.partial")


def existing_parts(output: Path) -> list[Path]:
    """The files beside ``output`` named as its parts, in order."""
    pattern = re.compile(re.escape(output.stem) + r"-(\d{5,})" + re.escape(output.suffix))
    found = []
    try:
        beside = list(output.parent.iterdir())
    except FileNotFoundError:  # opening the part says so
        return []
    for path in beside:
        match = pattern.fullmatch(path.name)
        # Only the names part_path gives: out-000123.parquet is no part.
        if match and path.name == part_path(output, int(match.group(1))).name and path.is_file():
            found.append((int(match.group(1)), path))
    return [path for _, path in sorted(found)]


class _CountedSink:
    """stdout for pyarrow's writers, counting the bytes written (a pipe cannot tell)."""

    def __init__(self, raw: Any):
        self.raw = raw
        self.bytes = 0
        self.closed = False

    def write(self, data: Any) -> int:
        self.raw.write(data)
        self.bytes += len(data)
        return len(data)

    def flush(self) -> None:
        self.raw.flush()

    def tell(self) -> int:
        return self.bytes

    def close(self) -> None:
        self.closed = True  # stdout itself stays open
        self.raw.flush()


class OutputParts:
    """The files of an export; ``bytes`` written so far, ``paths`` made so far."""

    def __init__(
        self,
        output: str,
        fmt: str,
        compression: str | None,
        rows_per_file: int | None = None,
        max_file_bytes: int | None = None,
    ):
        self.to_stdout = output == "-"
        self.output = Path(output)
        self.fmt = fmt
        self.compression = compression
        self.split = bool(rows_per_file or max_file_bytes)
        self.rows_per_file = rows_per_file
        self.max_file_bytes = max_file_bytes
        self.paths: list[Path] = []
        #: Parts of an earlier export to the same OUTPUT, removed at this one's first part.
        self.earlier: list[Path] = []
        self.bytes = 0
        self._done_bytes = 0  # of the parts closed
        self._schema: Any = None
        self._sink: Any = None
        self._writer: Any = None
        self._part_rows = 0
        #: The part being written, under its temporary name, and the name it gets when whole.
        self._partial: Path | None = None
        self._final: Path | None = None

    def write(self, batch: Any) -> None:
        """Writes ``batch``, across parts when a limit says."""
        self._schema = batch.schema
        offset = 0
        while offset < batch.num_rows:
            if self._writer is None:
                self._open()
            piece = batch
            if self.rows_per_file:
                room = self.rows_per_file - self._part_rows
                piece = batch.slice(offset, room)
            elif offset:
                piece = batch.slice(offset)
            self._writer.write_batch(piece)
            offset += piece.num_rows
            self._part_rows += piece.num_rows
            self.bytes = self._done_bytes + self._sink.tell()
            if self.split and (
                self._part_rows == self.rows_per_file
                or (self.max_file_bytes and self._sink.tell() >= self.max_file_bytes)
            ):
                self._close_part()

    def close(self, schema: Any) -> None:
        """Ends the last part (an empty result: a part holding ``schema`` alone)."""
        self._schema = schema
        if self._writer is None and not self.paths and not self._done_bytes:
            self._open()
        if self._writer is not None:
            self._close_part()

    def remove(self) -> None:
        """Removes every file this export made (a failed or interrupted export leaves none)."""
        for path in [*self.paths, *([self._partial] if self._partial else [])]:
            path.unlink(missing_ok=True)

    def abandon(self) -> None:
        """Closes the open part without finishing it, and removes every file."""
        sink, self._sink, self._writer = self._sink, None, None
        if sink is not None and not self.to_stdout:
            try:
                sink.close()
            except OSError:
                pass
        self.remove()

    def _open(self) -> None:
        import pyarrow as pa

        if self.to_stdout:
            self._sink = pa.PythonFile(_CountedSink(sys.stdout.buffer), mode="w")
        else:
            if self.split and not self.paths:
                self.earlier = existing_parts(self.output)
                for stale in self.earlier:
                    stale.unlink(missing_ok=True)
            path = part_path(self.output, len(self.paths)) if self.split else self.output
            self._final, self._partial = path, partial_path(path)
            self._sink = pa.OSFile(str(self._partial), "wb")
        self._writer = open_writer(self.fmt, self._sink, self._schema, self.compression)
        self._part_rows = 0

    def _close_part(self) -> None:
        self._writer.close()
        self._done_bytes += self._sink.tell()
        self.bytes = self._done_bytes
        self._sink.close()
        self._writer = self._sink = None
        if self._partial is not None and self._final is not None:
            # Whole: under its name at once (a rename within the directory is atomic).
            os.replace(self._partial, self._final)
            self.paths.append(self._final)
            self._partial = self._final = None


#: Batches handed to the writing thread and not yet written, at most. A second one keeps the
#: reader going while a batch is slower to encode than to read: with one, the reader waited
#: for the writer, the driver's fetch thread for the reader, and a PostgreSQL export of 400,000
#: rows took 50 ms longer. Costs a batch's memory.
WRITE_BEHIND_BATCHES = 2


class WriteBehind:
    """``OutputParts.write`` on a thread of its own, behind the reader, so that building the
    next batch (fastodbc's reader, the GIL released) and encoding earlier ones (pyarrow's
    writer, the GIL released) overlap instead of taking turns on one thread. At most
    WRITE_BEHIND_BATCHES + 1 batches are alive: those handed over (one being written) and the
    one being built. Used as a context manager: leaving it, even by an error, waits for the
    thread, so nothing writes under ``OutputParts.abandon``."""

    def __init__(self, parts: OutputParts):
        self.parts = parts
        self._batches: queue.Queue[Any] = queue.Queue()
        self._error: BaseException | None = None
        self._room = threading.BoundedSemaphore(WRITE_BEHIND_BATCHES)
        self._thread = threading.Thread(target=self._run, name="fastodbc-cli-write", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            batch = self._batches.get()
            if batch is None:
                return
            try:
                if self._error is None:
                    self.parts.write(batch)
            except BaseException as e:  # noqa: BLE001 - raised on the reading thread
                self._error = e
            finally:
                batch = None  # written: not kept alive while the next one is awaited
                self._room.release()

    def write(self, batch: Any) -> None:
        """Hands ``batch`` over once fewer than WRITE_BEHIND_BATCHES wait to be written;
        raises a write's error."""
        self._room.acquire()
        self._raise()
        self._batches.put(batch)

    def close(self, schema: Any) -> None:
        """Waits for the writes, then ends the last part (``OutputParts.close``)."""
        self._stop()
        self._raise()
        self.parts.close(schema)

    def _stop(self) -> None:
        if self._thread.is_alive():
            self._batches.put(None)
            self._thread.join()

    def _raise(self) -> None:
        if self._error is not None:
            raise self._error

    def __enter__(self) -> WriteBehind:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self._stop()
