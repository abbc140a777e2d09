"""The fault proxy itself, in front of an echo server (no database): each mode does what the
fault tests rely on."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from .proxy import FaultProxy

WAIT_S = 5.0
QUIET_S = 0.3  # nothing arrives within this: the link passes nothing


@pytest.fixture
def echo():
    """A server on 127.0.0.1 echoing every byte on every connection: (its (host, port), the
    bytes it received)."""
    listener = socket.create_server(("127.0.0.1", 0))
    conns: list[socket.socket] = []
    received = bytearray()

    def serve(c: socket.socket) -> None:
        try:
            while data := c.recv(65536):
                received.extend(data)
                c.sendall(data)
        except OSError:
            pass

    def accept() -> None:
        while True:
            try:
                c, _ = listener.accept()
            except OSError:
                return
            conns.append(c)
            threading.Thread(target=serve, args=(c,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    yield listener.getsockname(), received
    listener.close()
    for c in conns:
        c.close()


@pytest.fixture
def proxy(echo):
    p = FaultProxy(echo[0])
    yield p
    p.close()


def dial(proxy: FaultProxy) -> socket.socket:
    s = socket.create_connection((proxy.host, proxy.port), timeout=WAIT_S)
    return s


def receive(s: socket.socket, n: int, timeout: float = WAIT_S) -> bytes:
    s.settimeout(timeout)
    got = b""
    while len(got) < n:
        data = s.recv(n - len(got))
        if not data:
            break
        got += data
    return got


def nothing_arrives(s: socket.socket) -> bool:
    """Within QUIET_S: no byte, no FIN, no RST."""
    s.settimeout(QUIET_S)
    try:
        s.recv(1)
    except TimeoutError:
        return True
    except OSError:
        return False
    return False


def test_forward_and_stall(proxy):
    s = dial(proxy)
    s.sendall(b"ping")
    assert receive(s, 4) == b"ping"
    proxy.stall()
    s.sendall(b"lost?")
    assert nothing_arrives(s)  # neither data nor FIN nor RST: a dead link
    proxy.forward()
    assert receive(s, 5) == b"lost?"  # held, not lost
    assert proxy.stats()["links"] == 1


@pytest.mark.parametrize("how", ["reset", "close"])
def test_drop_cuts_links_and_refuses_new_ones(proxy, how):
    s = dial(proxy)
    s.sendall(b"x")
    assert receive(s, 1) == b"x"
    proxy.drop(how)
    for new in (False, True):
        if how == "reset":
            with pytest.raises(ConnectionResetError):  # at connect already, or at the first use
                sock = dial(proxy) if new else s
                sock.settimeout(WAIT_S)
                sock.sendall(b"y")
                sock.recv(1)
        else:
            sock = dial(proxy) if new else s
            sock.settimeout(WAIT_S)
            assert sock.recv(1) == b""  # FIN
    proxy.forward()
    fresh = dial(proxy)
    fresh.sendall(b"z")
    assert receive(fresh, 1) == b"z"


def test_deaf_listener_accepts_nothing(proxy):
    open_link = dial(proxy)
    proxy.deaf()
    s = dial(proxy)  # the kernel completes the handshake, nobody answers
    s.sendall(b"hello")
    assert nothing_arrives(s)
    open_link.sendall(b"a")
    assert receive(open_link, 1) == b"a"  # links already open keep forwarding
    assert proxy.stats()["accepted"] == 1


def test_delay_and_trickle(proxy):
    s = dial(proxy)
    proxy.delay(0.3)
    started = time.monotonic()
    s.sendall(b"d")
    assert receive(s, 1) == b"d"
    assert time.monotonic() - started >= 0.55  # both ways delayed
    proxy.trickle(10, 0.05)
    payload = bytes(range(256)) * 2
    started = time.monotonic()
    s.sendall(payload)
    assert receive(s, len(payload)) == payload  # all of it, in order
    assert time.monotonic() - started >= 512 / 10 * 0.05 * 0.9


@pytest.mark.parametrize("then", ["cut-before", "cut-after"])
def test_armed_cut(echo, proxy, then):
    address, received = echo
    s = dial(proxy)
    s.sendall(b"warm")
    assert receive(s, 4) == b"warm"
    proxy.arm("up", then, after_bytes=0)
    s.sendall(b"payload")
    assert proxy.wait_fired(WAIT_S)
    s.settimeout(WAIT_S)
    with pytest.raises(ConnectionResetError):  # the client never gets the answer
        while s.recv(1):
            pass
    time.sleep(QUIET_S)
    # cut-after: the server got the chunk (a COMMIT done, its answer lost); cut-before: not.
    assert bytes(received) == (b"warm" if then == "cut-before" else b"warmpayload")
    assert proxy.stats()["links"] == 0


def test_cut_some_links(proxy):
    socks = [dial(proxy) for _ in range(4)]
    for s in socks:
        s.sendall(b"x")
        assert receive(s, 1) == b"x"
    assert proxy.cut(count=3) == 3
    assert proxy.stats()["links"] == 1
