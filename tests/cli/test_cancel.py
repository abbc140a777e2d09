"""Ctrl-C in the command's waiting main thread (cli/cancel.py): the work's own end is waited
for, its cleanup (an import's rollback, the DROP of a table it created) done before the
command ends, not skipped because Python 3.11's ``Thread.join`` interrupted by Ctrl-C marks a
running thread as stopped (CPython gh-90882)."""

from __future__ import annotations

import os
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


ROUNDS = """
import os, random, signal, threading, time
from fastodbc.cli.cancel import Cancellable, Interrupted

random.seed(int(os.environ["SEED"]))
ends = []
for _ in range(120):
    cancellable = Cancellable()

    def work(cancellable=cancellable):
        cancellable.attach(None)
        while True:
            # Holds the GIL in long stretches, as an import's batches do: the main thread's
            # wake-ups wait for it, which is where an asynchronous KeyboardInterrupt once
            # landed inside Event.wait's lock handling ("release unlocked lock").
            sorted(range(20_000), key=lambda v: -v)
            cancellable.check()

    timer = threading.Timer(random.uniform(0.02, 0.12), lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        cancellable.run(work, tick=lambda: sum(range(500)))
        ends.append("returned")
    except Interrupted as stop:
        ends.append(f"interrupted {stop.finished}")
    except BaseException as e:
        ends.append(repr(e))
    timer.join()
print(sorted(set(ends)), signal.getsignal(signal.SIGINT) is signal.default_int_handler)
"""


def test_ctrl_c_at_any_moment_of_the_wait_interrupts():
    # 120 Ctrl-Cs at random moments of the main thread's wait, under GIL contention: each one
    # ends the run as Interrupted, the worker finished; Python's own handler is back after.
    done = subprocess.run(
        [sys.executable, "-c", ROUNDS], capture_output=True, timeout=120, env={**os.environ, "SEED": "7"}
    )
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode().strip() == "['interrupted True'] True", done.stdout.decode()


STUCK = """
import os, signal, threading, time
from fastodbc.cli.cancel import Cancellable, Interrupted

cancellable = Cancellable()

def work():
    cancellable.attach(None)
    time.sleep(60)  # where no cancel reaches

threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
threading.Timer(0.6, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
began = time.monotonic()
try:
    cancellable.run(work)
except Interrupted as stop:
    print(stop.finished, cancellable.stuck, round(time.monotonic() - began) < 2)
"""


def test_a_second_ctrl_c_stops_waiting_for_a_stuck_worker():
    # The first Ctrl-C cancels and waits up to GRACE_S (3 s) for the worker; the second ends
    # the wait at once, the worker left stuck.
    done = subprocess.run([sys.executable, "-c", STUCK], capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode().split() == ["False", "True", "True"], done.stdout.decode()
