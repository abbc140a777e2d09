"""Moving the source tables: the source table of each database written and read by its
independent client (tests/differential/oracles.py), loads by each path into each database, and
what each load left there, read by the target's independent client. Loads are cached: a case
asks for the load holding its column, which the other cases of the same load share.

A load holds the id column and a group of columns: every column expected to arrive (exact or
changed) goes in one load; a column expected refused, or marked as a known defect, goes alone,
so that its failure cannot hide what the others do. The source side of a path (export, or the
Arrow reader's batches) is done once per group and shared by every target. Exports and loads
run in a worker process (worker.py): a crash is then its case's outcome, not the run's end.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import select
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from differential.oracles import oracle_for

from . import kinds
from .expectations import Case, expectation

TESTS = Path(__file__).resolve().parents[1]
SOURCE = "xdb_source"
# FASTODBC_CROSSDB_ALONE=1: every column loaded alone (slower): what each does whatever the
# others do, for build/crossdb/observed.txt when expected.py is being rewritten.
ALONE = os.environ.get("FASTODBC_CROSSDB_ALONE") == "1"


def _column(profile, kind: str) -> str:
    return profile.quote(kinds.KINDS[kind].column)


def _select(profile, kind: str) -> str:
    sql = profile.fidelity_read_sql.get(kind, "{}")
    return sql.format(_column(profile, kind))


def _short(text: str, limit: int = 400) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + " ..."


class Load:
    """What one load left: the target's canonical values per kind and row id, or its error."""

    def __init__(self, error: str | None = None, values: dict[str, dict[int, Any]] | None = None):
        self.error = error
        self.values = values or {}


class Mover:
    def __init__(self, profiles: dict[str, Any], tmp: Path):
        self.profiles = profiles  # name -> bound profile
        self.tmp = tmp
        self.oracles = {name: oracle_for(p) for name, p in profiles.items()}
        self.sources: dict[str, dict[str, dict[int, Any]]] = {}  # name -> kind -> row id -> canonical value
        self.loads: dict[tuple, Load] = {}
        self.exports: dict[tuple, tuple[Path, str | None]] = {}
        self.names = itertools.count()
        self.worker = Worker(tmp)
        for name, p in profiles.items():
            for sql in p.fidelity_setup_sql:
                self.oracles[name].execute(sql)
        for name in profiles:
            self._make_source(name)

    def close(self) -> None:
        self.worker.close()
        for o in self.oracles.values():
            o.close()

    # -- the source tables

    def _make_source(self, name: str) -> None:
        p, oracle = self.profiles[name], self.oracles[name]
        kind_list = list(p.fidelity_kinds)
        oracle.drop(SOURCE)
        columns_ddl = ", ".join(f"{_column(p, k)} {p.fidelity_ddl[k]}" for k in kind_list)
        oracle.execute(f"CREATE TABLE {SOURCE} ({columns_ddl})")
        columns = [kinds.source_values(p, k, i) for i, k in enumerate(kind_list)]
        marks = ", ".join([oracle.placeholder] * len(kind_list))
        rows = [tuple(oracle.adapt(None, v) for v in row) for row in zip(*columns, strict=True)]
        oracle.executemany(f"INSERT INTO {SOURCE} ({', '.join(_column(p, k) for k in kind_list)}) VALUES ({marks})",
                           rows)
        self.sources[name] = self._read(name, SOURCE, kind_list)

    def _read(self, name: str, table: str, kind_list: list[str]) -> dict[str, dict[int, Any]]:
        """kind -> row id -> canonical value, read by the independent client."""
        p = self.profiles[name]
        select = ", ".join(_select(p, k) for k in kind_list)
        rows = self.oracles[name].query(f"SELECT {select} FROM {table} ORDER BY {_column(p, 'serial')}")
        ids = [kinds.canon("serial", r[kind_list.index("serial")]) for r in rows]
        return {k: dict(zip(ids, (kinds.canon(k, r[i]) for r in rows), strict=True)) for i, k in enumerate(kind_list)}

    # -- loads

    def group(self, case: Case) -> tuple[str, ...]:
        """The kinds loaded with the case's (the id column first)."""
        if case.kind == "serial" or not self._alone(case):
            others = [k for k in self.profiles[case.source].fidelity_kinds
                      if k != "serial" and not self._alone(Case(case.source, k, case.path, case.mode, case.target))]
            return ("serial", *others)
        return ("serial", case.kind)

    @staticmethod
    def _alone(case: Case) -> bool:
        if ALONE:
            return True
        e = expectation(case)
        return e.outcome == "refused" or e.defect is not None

    def load(self, case: Case) -> Load:
        group = self.group(case)
        key = (case.source, case.path, case.mode, case.target, group)
        if key not in self.loads:
            self.loads[key] = self._load(case, group)
        return self.loads[key]

    def _load(self, case: Case, group: tuple[str, ...]) -> Load:
        src, tgt = self.profiles[case.source], self.profiles[case.target]
        # The source side once per path and group (a file: Parquet, CSV, or Arrow IPC holding
        # the Arrow reader's batches as fetch_record_batch gave them), shared by every target.
        key = (case.source, case.path, group)
        if key not in self.exports:
            columns = ", ".join(_column(src, k) for k in group)
            select = f"SELECT {columns} FROM {SOURCE} ORDER BY {_column(src, 'serial')}"
            path = self.tmp / f"{case.source}-{hashlib.sha1(repr(key).encode()).hexdigest()[:10]}.{case.path}"
            if case.path == "api":
                error = self.worker("fetch", connstr=src.connstr, select=select, path=str(path))
            else:
                error = self.worker("cli", args=["export", src.connstr, select, str(path), "--quiet"])
            self.exports[key] = (path, error)
        path, error = self.exports[key]
        if error:
            return Load(error=error)
        table = f"xdb_{os.getpid()}_{case.source[:2]}_{case.path}_{case.mode[:3]}_{next(self.names)}"
        if case.mode == "append":
            columns = ", ".join(f"{_column(tgt, k)} {tgt.fidelity_ddl[k]}" for k in group)
            self.oracles[case.target].execute(f"CREATE TABLE {table} ({columns})")
        try:
            if case.path == "api":
                error = self.worker("ingest", connstr=tgt.connstr, path=str(path), table=table, mode=case.mode)
            else:
                args = ["import", tgt.connstr, table, str(path), "--mode", case.mode, "--quiet"]
                error = self.worker("cli", args=args)
            if error:
                return Load(error=error)
            try:
                return Load(values=self._read(case.target, table, list(group)))
            except Exception as e:  # noqa: BLE001 - what the target holds cannot be read: reported
                return Load(error=f"reading the target back: {type(e).__name__}: {_short(str(e))}")
        finally:
            self.oracles[case.target].drop(table)


class Worker:
    """The load process (worker.py), started again after a crash."""

    def __init__(self, tmp: Path):
        self.stderr = tmp / "worker-stderr.txt"
        self.proc: subprocess.Popen | None = None

    def _start(self) -> subprocess.Popen:
        if self.proc is None or self.proc.poll() is not None:
            with open(self.stderr, "wb") as err:
                self.proc = subprocess.Popen(
                    [sys.executable, "-m", "crossdb.worker"], cwd=TESTS, stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE, stderr=err,
                )
        return self.proc

    def __call__(self, op: str, timeout: float = 120, **request: Any) -> str | None:
        """None, or what failed (a refusal's message; how the process ended, a panic's message)."""
        proc = self._start()
        assert proc.stdin and proc.stdout
        proc.stdin.write((json.dumps({"op": op, **request}) + "\n").encode())
        proc.stdin.flush()
        if select.select([proc.stdout], [], [], timeout)[0]:
            line = proc.stdout.readline()
            if line:
                return json.loads(line)["error"]
        else:
            proc.kill()
        code = proc.wait()
        said = [x for x in self.stderr.read_text(errors="replace").splitlines() if "panicked" in x or "rror" in x]
        how = f"signal {signal.Signals(-code).name}" if code < 0 else f"exit {code}"
        return f"crashed ({how}): {_short(' '.join(said[-3:]))}"

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            assert self.proc.stdin
            self.proc.stdin.close()
            self.proc.wait(30)
