"""A TCP fault proxy: a listener on 127.0.0.1 (a free port) forwarding to a test server, whose
links can be stalled, cut, slowed or made deaf at any moment, from any thread.

Modes (``proxy.mode``; each setter returns once the proxy's thread applies it, so no byte
passes in the old mode after it returns):

- ``forward()``: bytes pass both ways.
- ``stall(cut_after=None)``: the links stay open and nothing passes either way (a dead link:
  the server's host gone, packets dropped); no FIN, no RST, ever. New connections are accepted
  and stall. ``cut_after`` seconds: then the proxy itself cuts every link (RST) and forwards
  again, whatever the test process does (one whose every thread is frozen included).
- ``deaf()``: the listener accepts no more connections (the kernel completes the handshake,
  then nobody ever answers: a login waits); links already open keep forwarding.
- ``drop(how="reset")``: every link is cut (``"reset"``: RST to both ends; ``"close"``: FIN),
  and so is every connection made while in this mode (the server refusing).
- ``delay(seconds)``: each chunk passes ``seconds`` after it was read (latency).
- ``trickle(nbytes, interval)``: at most ``nbytes`` a direction every ``interval`` seconds.

``arm(direction, then, after_bytes=0)`` sets a one-shot fault on the next chunk read in a
direction (``"up"``: client to server; ``"down"``) once ``after_bytes`` more have passed that
way: ``"cut-after"`` forwards that chunk, then cuts its link (the server got the COMMIT, its
answer is lost); ``"cut-before"`` cuts without forwarding it; ``"stall"`` holds it and stalls
the proxy. ``fired()`` tells it has happened.

``cut(how, count=None)`` cuts the links open now (or ``count`` of them, at random) without
changing the mode: the soak's random link losses.

The proxy runs in a process of its own (engine.py run as a script; ``FaultProxy`` talks to it
over its stdin/stdout, one JSON line a call), not in a thread of the tests: a driver call that
waits on the network while holding the GIL (a cursor freed during a round trip) would
otherwise stop the very proxy it waits on, and a crash of the test process leaves no proxy
behind (its stdin closes, it exits). One thread there serves every link (``select``).
Models: asyncpg's ``TCPFuzzingProxy`` (tests) and psycopg's proxy fixture; written from their
behaviour.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from typing import Any

__all__ = ["FaultProxy"]

ENGINE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "engine.py")


class FaultProxy:
    """Forwards 127.0.0.1:``port`` to ``target`` (host, port), from a process of its own; see
    the module's docstring. Any thread may call it."""

    def __init__(self, target: tuple[str, int]):
        self.target = target
        self._lock = threading.Lock()
        self._process = subprocess.Popen(
            [sys.executable, ENGINE, target[0], str(target[1])],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        assert self._process.stdout is not None
        first = self._process.stdout.readline()
        assert first, "the fault proxy did not start"
        self.host, self.port = json.loads(first)

    def forward(self) -> None:
        self._rpc("forward")

    def stall(self, cut_after: float | None = None) -> None:
        self._rpc("stall", cut_after)

    def deaf(self) -> None:
        self._rpc("deaf")

    def drop(self, how: str = "reset") -> None:
        self._rpc("drop", how)

    def delay(self, seconds: float) -> None:
        self._rpc("delay", seconds)

    def trickle(self, nbytes: int = 64, interval: float = 0.05) -> None:
        self._rpc("trickle", nbytes, interval)

    def cut(self, how: str = "reset", count: int | None = None) -> int:
        """Cuts the open links (``count`` of them at random), keeping the mode; how many."""
        return self._rpc("cut", how, count)

    def arm(self, direction: str, then: str, after_bytes: int = 0) -> None:
        """A one-shot fault on the next chunk going ``direction`` once ``after_bytes`` more
        have passed that way (see the module's docstring); ``fired()`` tells it happened."""
        self._rpc("arm", direction, then, after_bytes)

    def fired(self) -> bool:
        """The fault last armed has happened."""
        return self._rpc("fired")

    def wait_fired(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while not self.fired():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.01)
        return True

    def stats(self) -> dict[str, Any]:
        """mode, links (open now), accepted, cut_links, bytes_up, bytes_down."""
        return self._rpc("stats")

    @property
    def mode(self) -> str:
        return self.stats()["mode"]

    @property
    def links(self) -> int:
        return self.stats()["links"]

    def close(self) -> None:
        """Cuts every link (RST) and ends the proxy's process."""
        with self._lock:
            if self._process.poll() is None:
                assert self._process.stdin is not None
                try:
                    self._process.stdin.close()  # its loop ends, cutting every link
                except OSError:
                    pass
                try:
                    self._process.wait(10)
                except subprocess.TimeoutExpired:
                    self._process.kill()
                    self._process.wait()
            if self._process.stdout is not None:
                self._process.stdout.close()

    def __enter__(self) -> FaultProxy:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _rpc(self, op: str, *args: Any) -> Any:
        with self._lock:
            assert self._process.poll() is None, "the fault proxy's process has ended"
            assert self._process.stdin is not None and self._process.stdout is not None
            self._process.stdin.write(json.dumps([op, *args]) + "\n")
            self._process.stdin.flush()
            answer = json.loads(self._process.stdout.readline() or "null")
        assert isinstance(answer, dict), f"the fault proxy's process did not answer {op}"
        if "error" in answer:
            raise RuntimeError(f"fault proxy {op}{tuple(args)}: {answer['error']}")
        return answer["ok"]
