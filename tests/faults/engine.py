"""The fault proxy's process (tests/faults/proxy.py starts it: ``python engine.py <host>
<port>``): a listener on 127.0.0.1 (a free port) forwarding to the server, one thread serving
every link with ``select``, and the modes and one-shot faults proxy.py's docstring describes.
It prints its address, then answers one JSON line a JSON command line of stdin; stdin closed
(the test process ended, however), it cuts every link and exits. Only the standard library.
"""

from __future__ import annotations

import collections
import json
import random
import select
import socket
import struct
import sys
import threading
import time
from typing import Any

# Bytes a direction may hold read but not yet written (latency, trickle, stall): past this the
# proxy stops reading that side, so the sender feels the slow link as back pressure.
QUEUE_LIMIT = 1 << 20
CHUNK = 1 << 16
IDLE_WAIT_S = 0.05
MODES = ("forward", "stall", "deaf", "drop", "delay", "trickle")


class _Direction:
    """One way of a link: bytes read from ``src``, waiting to be written to ``dst``."""

    __slots__ = ("dst", "eof", "next_send", "pending", "queued", "src", "total")

    def __init__(self, src: socket.socket, dst: socket.socket):
        self.src, self.dst = src, dst
        self.pending: collections.deque[list[Any]] = collections.deque()  # [due, bytes]
        self.queued = 0
        self.total = 0  # bytes written to dst
        self.eof = False  # src sent FIN
        self.next_send = 0.0  # trickle: not before


class _Link:
    __slots__ = ("client", "down", "server", "up")

    def __init__(self, client: socket.socket, server: socket.socket):
        self.client, self.server = client, server
        self.up = _Direction(client, server)
        self.down = _Direction(server, client)

class Engine:
    """The proxy itself, in its own process: a listener and a thread serving every link."""

    def __init__(self, target: tuple[str, int]):
        self.target = target
        self.mode = "forward"
        self._params: dict[str, Any] = {}
        self._links: list[_Link] = []
        self._commands: list[tuple[Any, threading.Event]] = []
        self._lock = threading.Lock()
        self._closing = False
        self.accepted = 0  # connections accepted since start
        self.cut_links = 0  # links cut (by drop or cut)
        self.bytes_down = 0  # server -> client bytes written, every link
        self.bytes_up = 0
        self._armed: tuple[str, str, int, threading.Event] | None = None
        self.fired = threading.Event()
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(64)
        self._listener.setblocking(False)
        self.host, self.port = self._listener.getsockname()
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._thread = threading.Thread(target=self._run, name=f"fault-proxy-{self.port}", daemon=True)
        self._thread.start()

    # -- control (any thread)

    def forward(self) -> None:
        self._set("forward")

    def stall(self, cut_after: float | None = None) -> None:
        self._set("stall", until=None if cut_after is None else time.monotonic() + cut_after)

    def deaf(self) -> None:
        self._set("deaf")

    def drop(self, how: str = "reset") -> None:
        assert how in ("reset", "close"), how
        self._set("drop", how=how)

    def delay(self, seconds: float) -> None:
        self._set("delay", seconds=seconds)

    def trickle(self, nbytes: int = 64, interval: float = 0.05) -> None:
        self._set("trickle", nbytes=max(1, nbytes), interval=interval)

    def cut(self, how: str = "reset", count: int | None = None) -> int:
        """Cuts the open links (``count`` of them at random), keeping the mode; how many."""
        assert how in ("reset", "close"), how
        return self._call(lambda: self._cut(how, count))

    def arm(self, direction: str, then: str, after_bytes: int = 0) -> threading.Event:
        assert direction in ("up", "down") and then in ("cut-after", "cut-before", "stall"), (direction, then)
        fired = threading.Event()

        def apply() -> None:
            start = self.bytes_up if direction == "up" else self.bytes_down
            self._armed = (direction, then, start + after_bytes, fired)
            self.fired = fired

        self._call(apply)
        return fired

    def stats(self) -> dict[str, Any]:
        def read() -> dict[str, Any]:
            return {
                "mode": self.mode,
                "links": len(self._links),
                "accepted": self.accepted,
                "cut_links": self.cut_links,
                "bytes_up": self.bytes_up,
                "bytes_down": self.bytes_down,
            }

        return self._call(read)

    def close(self) -> None:
        """Cuts every link (RST), closes the listener and ends the thread."""
        if self._closing:
            return
        self._call(lambda: self._cut("reset", None))
        self._closing = True
        self._wake()
        self._thread.join(10)
        self._listener.close()
        self._wake_r.close()
        self._wake_w.close()

    def _set(self, mode: str, **params: Any) -> None:
        assert mode in MODES, mode

        def apply() -> None:
            self.mode, self._params = mode, params
            if mode == "drop":
                self._cut(params["how"], None)

        self._call(apply)

    def _call(self, fn):
        """Runs ``fn`` on the proxy's thread, between two rounds, and returns its result."""
        if not self._thread.is_alive():
            return fn()
        done = threading.Event()
        box: list[Any] = []
        with self._lock:
            self._commands.append((lambda: box.append(fn()), done))
        self._wake()
        assert done.wait(10), "the fault proxy's thread does not answer"
        return box[0]

    def _wake(self) -> None:
        try:
            self._wake_w.send(b"x")
        except OSError:
            pass

    # -- the proxy's thread

    def _run(self) -> None:
        while not self._closing:
            with self._lock:
                commands, self._commands = self._commands, []
            for fn, done in commands:
                try:
                    fn()
                finally:
                    done.set()
            until = self._params.get("until") if self.mode == "stall" else None
            if until is not None and time.monotonic() >= until:
                self._cut("reset", None)
                self.mode, self._params = "forward", {}
            self._round()
        for link in list(self._links):
            self._close_link(link, "reset")

    def _round(self) -> None:
        now = time.monotonic()
        readers: list[socket.socket] = [self._wake_r]
        writers: list[socket.socket] = []
        wait = IDLE_WAIT_S
        if self.mode != "deaf":
            readers.append(self._listener)
        moving = self.mode != "stall"
        for link in self._links:
            for d in (link.up, link.down):
                if moving and not d.eof and d.queued < QUEUE_LIMIT:
                    readers.append(d.src)
                if moving and d.pending:
                    due = max(d.pending[0][0], d.next_send)
                    if due <= now:
                        writers.append(d.dst)
                    else:
                        wait = min(wait, due - now)
        try:
            readable, writable, _ = select.select(readers, list(set(writers)), [], max(wait, 0.001))
        except (OSError, ValueError):
            # A socket closed under us (a cut between two rounds): the next round rebuilds.
            return
        if self._wake_r in readable:
            try:
                while self._wake_r.recv(4096):
                    pass
            except BlockingIOError:
                pass
        if self._listener in readable:
            self._accept()
        readable_set, writable_set = set(readable), set(writable)
        now = time.monotonic()
        for link in list(self._links):
            for d in (link.up, link.down):
                if link not in self._links:
                    break
                if d.src in readable_set:
                    self._read(link, d, now)
                if link in self._links and d.dst in writable_set:
                    self._write(link, d, now)
            if link in self._links and link.up.eof and link.down.eof and not link.up.pending and not link.down.pending:
                self._close_link(link, "close")

    def _accept(self) -> None:
        try:
            client, _ = self._listener.accept()
        except BlockingIOError:
            return
        self.accepted += 1
        if self.mode == "drop":
            (_abort if self._params["how"] == "reset" else socket.socket.close)(client)
            self.cut_links += 1
            return
        try:
            server = socket.create_connection(self.target, timeout=5)
        except OSError:
            _abort(client)
            return
        for s in (client, server):
            s.setblocking(False)
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._links.append(_Link(client, server))

    def _read(self, link: _Link, d: _Direction, now: float) -> None:
        try:
            data = d.src.recv(CHUNK)
        except BlockingIOError:
            return
        except OSError:  # reset by that end: the other end learns it the same way
            self._close_link(link, "reset")
            return
        if not data:
            d.eof = True
            if not d.pending:
                _shutdown_write(d.dst)
            return
        if self._armed is not None and self._trigger(link, d, data):
            return
        due = now + self._params["seconds"] if self.mode == "delay" else now
        d.pending.append([due, data])
        d.queued += len(data)

    def _trigger(self, link: _Link, d: _Direction, data: bytes) -> bool:
        """Fires the armed fault if ``data`` (just read going ``d``) is its chunk; True when
        the chunk needs nothing more."""
        assert self._armed is not None
        direction, then, threshold, fired = self._armed
        passed = self.bytes_up if direction == "up" else self.bytes_down
        if d is not (link.up if direction == "up" else link.down) or passed < threshold:
            return False
        self._armed = None
        fired.set()  # before the cut: a caller that sees its error sees the fault fired
        if then == "stall":
            self.mode, self._params = "stall", {}
            return False  # queued: it passes if the proxy forwards again
        if then == "cut-after":
            # Whatever is queued before it, then the chunk itself, written before the cut.
            try:
                d.dst.setblocking(True)
                d.dst.settimeout(5)
                for _, queued in d.pending:
                    d.dst.sendall(queued)
                d.dst.sendall(data)
            except OSError:
                pass
            # The receiver reads it, then a FIN (a RST could overtake it); the sender a RST.
            self._links.remove(link)
            d.dst.close()
            _abort(d.src)
        else:
            self._close_link(link, "reset")
        self.cut_links += 1
        return True

    def _write(self, link: _Link, d: _Direction, now: float) -> None:
        limit = self._params["nbytes"] if self.mode == "trickle" else None
        while d.pending and d.pending[0][0] <= now and (limit is None or limit > 0):
            chunk = d.pending[0][1]
            piece = chunk if limit is None else chunk[:limit]
            try:
                sent = d.dst.send(piece)
            except BlockingIOError:
                return
            except OSError:
                self._close_link(link, "reset")
                return
            d.total += sent
            d.queued -= sent
            if d is link.down:
                self.bytes_down += sent
            else:
                self.bytes_up += sent
            if sent == len(chunk):
                d.pending.popleft()
            else:
                d.pending[0][1] = chunk[sent:]
            if limit is not None:
                limit -= sent
        if self.mode == "trickle" and limit != self._params["nbytes"]:
            d.next_send = now + self._params["interval"]
        if d.eof and not d.pending:
            _shutdown_write(d.dst)

    def _cut(self, how: str, count: int | None) -> int:
        victims = list(self._links)
        if count is not None:
            victims = random.sample(victims, min(count, len(victims)))
        for link in victims:
            self._close_link(link, how)
        self.cut_links += len(victims)
        return len(victims)

    def _close_link(self, link: _Link, how: str) -> None:
        if link in self._links:
            self._links.remove(link)
        for s in (link.client, link.server):
            if how == "reset":
                _abort(s)
            else:
                try:
                    s.close()
                except OSError:
                    pass


def _abort(s: socket.socket) -> None:
    """Closes ``s`` with a RST (linger 0), not a FIN."""
    try:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except OSError:
        pass
    try:
        s.close()
    except OSError:
        pass


def _shutdown_write(s: socket.socket) -> None:
    try:
        s.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def _serve(host: str, port: int) -> None:
    """The proxy's process: its address on the first line of stdout, then one JSON answer a
    JSON command line of stdin, until stdin closes."""
    import faulthandler
    import signal

    faulthandler.register(signal.SIGUSR1)  # `kill -USR1 <pid>`: its threads' stacks on stderr
    engine = Engine((host, port))
    print(json.dumps([engine.host, engine.port]), flush=True)
    calls = {
        name: getattr(engine, name)
        for name in ("forward", "stall", "deaf", "drop", "delay", "trickle", "cut", "stats")
    }
    calls["arm"] = lambda *a: engine.arm(*a) and None
    calls["fired"] = lambda: engine._call(engine.fired.is_set)
    for line in sys.stdin:
        op, *args = json.loads(line)
        try:
            answer: dict[str, Any] = {"ok": calls[op](*args)}
        except Exception as e:  # noqa: BLE001 - told to the caller
            answer = {"error": repr(e)}
        print(json.dumps(answer), flush=True)
    engine.close()


if __name__ == "__main__":
    _serve(sys.argv[1], int(sys.argv[2]))
