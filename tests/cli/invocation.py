"""Running the installed ``fastodbc`` command: without a terminal (output captured), under a
pseudo-terminal (what a user sees), and interrupted by SIGINT (Ctrl-C)."""

from __future__ import annotations

import fcntl
import os
import pty
import shutil
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Callable
from pathlib import Path

FASTODBC = shutil.which("fastodbc", path=str(Path(sys.executable).parent)) or "fastodbc"


def run(*args: str, env: dict[str, str] | None = None, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    """Runs the command to its end without a terminal (stdin, stdout and stderr are pipes)."""
    return subprocess.run(
        [FASTODBC, *args], capture_output=True, timeout=120, env={**os.environ, **(env or {})},
        input=stdin if stdin is not None else b"",
    )


def start(*args: str, stdin: int = subprocess.DEVNULL) -> subprocess.Popen:
    """Starts the command without a terminal; its output in pipes."""
    return subprocess.Popen([FASTODBC, *args], stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def run_in_terminal(*args: str, timeout: float = 120) -> tuple[int, str]:
    """Runs the command with stderr on a pseudo-terminal (120 columns); its exit code and
    what the terminal received."""
    controller, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    received = bytearray()

    def read() -> None:
        while True:
            try:
                chunk = os.read(controller, 4096)
            except OSError:  # EIO: every copy of the terminal's end is closed
                return
            if not chunk:
                return
            received.extend(chunk)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        proc = subprocess.Popen(
            [FASTODBC, *args], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=terminal
        )
    finally:
        os.close(terminal)
    code = proc.wait(timeout)
    reader.join(10)
    os.close(controller)
    return code, received.decode(errors="replace")


def wait_until(condition: Callable[[], object], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"not within {timeout} s: {what}"
        time.sleep(0.05)


def interrupt(proc: subprocess.Popen, timeout: float) -> tuple[int, float, bytes]:
    """Sends SIGINT (what Ctrl-C sends); the exit code, the seconds it took to exit, stderr."""
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    try:
        # wait(), not communicate(): a stdin the test holds open stays open (its end would let
        # the command finish instead).
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise AssertionError(f"still running {timeout} s after SIGINT: {proc.communicate()[1]!r}") from None
    seconds = time.monotonic() - sent
    err = proc.stderr.read()
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()
    return proc.returncode, seconds, err
