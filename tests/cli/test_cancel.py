"""Ctrl-C in the command's waiting main thread (cli/cancel.py): the work's own end is waited
for, its cleanup (an import's rollback, the DROP of a table it created) done before the
command ends, not skipped because Python 3.11's ``Thread.join`` interrupted by Ctrl-C marks a
running thread as stopped (CPython gh-90882)."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import os, signal, threading, time
from fastodbc.cli.cancel import Cancellable, Interrupted

cancellable = Cancellable()
cleaned = []

def work():
    cancellable.attach(None)  # as the import does: the main thread now waits for the work's end
    try:
        while True:
            cancellable.check()
            time.sleep(0.01)
    except Interrupted:
        time.sleep(0.5)  # the load's rollback and DROP take a while
        cleaned.append("done")
        raise

threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
try:
    cancellable.run(work)
except Interrupted as stop:
    print(stop.finished, cleaned)
"""


def test_ctrl_c_waits_for_the_works_cleanup():
    for _ in range(3):
        done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, timeout=60)
        assert done.returncode == 0, done.stderr.decode()
        assert done.stdout.decode().split() == ["True", "['done']"], done.stdout.decode()
