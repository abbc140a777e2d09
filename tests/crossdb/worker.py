"""The process that runs the loads of the fidelity matrix, one request at a time: a crash (a
panic that aborts, a driver's SIGSEGV) then ends this process, not the test run, and the
matrix reports it as the outcome of its case (mover.Worker starts another).

Run as ``python -m crossdb.worker`` (tests/ on the path); a request is a JSON line on stdin,
its answer a JSON line on stdout: {"error": null} or {"error": "<what failed>"}.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from typing import Any

import pyarrow as pa
import pyarrow.ipc as ipc

import fastodbc
from fastodbc import cli


def short(text: str, limit: int = 400) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + " ..."


def run_cli(args: list[str]) -> str | None:
    """The command line's main() (what the installed command runs): None, or its exit code and
    stderr."""
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        code = cli.main(args)
    return f"{args[0]} exited {code}: {short(err.getvalue())}" if code else None


def fetch(connstr: str, select: str, path: str) -> str | None:
    """The Python API's read: the source's Arrow reader (fetch_record_batch), its batches kept
    in an Arrow IPC file for the loads into each target."""
    source = fastodbc.connect(connstr, autocommit=True)
    try:
        reader = pa.RecordBatchReader.from_stream(source.cursor().execute(select).fetch_record_batch())
        with ipc.new_file(path, reader.schema) as writer:
            for batch in reader:
                writer.write_batch(batch)
        return None
    finally:
        source.close()


def ingest(connstr: str, path: str, table: str, mode: str) -> str | None:
    """The Python API's load: the source's batches, as an Arrow reader, into Cursor.ingest."""
    target = fastodbc.connect(connstr, autocommit=True)
    try:
        with ipc.open_file(path) as file:
            batches = (file.get_batch(i) for i in range(file.num_record_batches))
            target.cursor().ingest(table, pa.RecordBatchReader.from_batches(file.schema, batches), mode=mode)
        return None
    finally:
        target.close()


OPS: dict[str, Any] = {"cli": run_cli, "fetch": fetch, "ingest": ingest}


def main() -> None:
    answers = sys.stdout
    sys.stdout = sys.stderr  # only answers on stdout
    for line in sys.stdin:
        request = json.loads(line)
        try:
            error = OPS[request.pop("op")](**request)
        except Exception as e:  # noqa: BLE001 - a refusal is an outcome
            error = f"{type(e).__name__}: {short(str(e))}"
        answers.write(json.dumps({"error": error}) + "\n")
        answers.flush()


if __name__ == "__main__":
    main()
