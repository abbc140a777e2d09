"""A measured child process: its wall time and its RSS high-water mark, from ``wait4`` (the
whole process, interpreter and libraries included), for the measurements that are programs
rather than Python calls (odbc-floor, the export commands of issue 19)."""

from __future__ import annotations

import os
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass


@dataclass
class Child:
    returncode: int
    stdout: str
    stderr: str
    #: From the start of the process to its exit (``time.perf_counter``).
    seconds: float
    #: ``ru_maxrss`` of the process, in bytes.
    maxrss: int
    timed_out: bool


def run_child(cmd: list[str], timeout: float) -> Child:
    """Runs ``cmd`` to its end (killed after ``timeout`` s). stderr goes to a file, so a chatty
    child never blocks on a full pipe while its stdout is read."""
    with tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True)
        timer = threading.Timer(timeout, proc.kill)
        timer.start()
        assert proc.stdout is not None
        out = proc.stdout.read()
        proc.stdout.close()
        _, status, ru = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - t0
        timed_out = not timer.is_alive()
        timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        return Child(proc.returncode, out, err.read().strip(), seconds, ru.ru_maxrss * 1024, timed_out)
