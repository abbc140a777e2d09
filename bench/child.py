"""A measured child process: its wall time and its RSS high-water mark, for the measurements
that are programs rather than Python calls (odbc-floor, the export commands of issue 19).

The peak comes from GNU time (``/usr/bin/time -f %M``), which forks the command from its own
small process. ``wait4``'s ``ru_maxrss`` of a child of the orchestrator is no measure: Python
starts children with vfork, and at exec the kernel keeps the high-water mark of the memory the
child had before it (the orchestrator's), so every child reported at least the orchestrator's
peak.
"""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass

GNU_TIME = "/usr/bin/time"


@dataclass
class Child:
    returncode: int
    stdout: str
    stderr: str
    #: From the start of the process to its exit (``time.perf_counter``; GNU time's own fork
    #: and exec, ~1 ms, included).
    seconds: float
    #: The command's peak RSS, in bytes.
    maxrss: int
    timed_out: bool


def run_child(cmd: list[str], timeout: float) -> Child:
    """Runs ``cmd`` to its end (killed after ``timeout`` s). stderr goes to a file, so a chatty
    child never blocks on a full pipe while its stdout is read."""
    if not os.access(GNU_TIME, os.X_OK):
        raise RuntimeError(f"{GNU_TIME} missing: GNU time measures a child's peak memory (scripts/deps.sh)")
    with tempfile.TemporaryFile("w+") as err, tempfile.NamedTemporaryFile("r", suffix=".rss") as rss:
        t0 = time.perf_counter()
        # A session of its own: a timeout kills the command with GNU time, not GNU time alone.
        proc = subprocess.Popen(
            [GNU_TIME, "-f", "%M", "-o", rss.name, *cmd],
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
            start_new_session=True,
        )
        timer = threading.Timer(timeout, os.killpg, (proc.pid, signal.SIGKILL))
        timer.start()
        assert proc.stdout is not None
        out = proc.stdout.read()
        proc.stdout.close()
        proc.wait()
        seconds = time.perf_counter() - t0
        timed_out = not timer.is_alive()
        timer.cancel()
        err.seek(0)
        # GNU time writes "Command exited with non-zero status N" before the figure.
        lines = rss.read().strip().splitlines()
        kib = int(lines[-1]) if lines and lines[-1].isdigit() else 0
        return Child(proc.returncode, out, err.read().strip(), seconds, kib * 1024, timed_out)
