"""The command's own threads, without a database: the worker's ``meanwhile`` (what the main
thread prepares once the worker has connected) and the write-behind thread's bound on the
batches it holds. The database side of both is in test_export.py and test_interrupt.py."""

from __future__ import annotations

import threading
import time

import pytest

from fastodbc.cli.cancel import Cancellable
from fastodbc.cli.parts import WRITE_BEHIND_BATCHES, WriteBehind


def test_meanwhile_waits_for_the_worker_to_attach_its_cursor():
    events: list[str] = []
    cancellable = Cancellable()

    def work() -> int:
        time.sleep(0.2)  # connecting: the main thread must not import under it
        events.append("attaching")
        cancellable.attach(object())
        time.sleep(0.05)
        return 7

    assert cancellable.run(work, meanwhile=lambda: events.append("meanwhile")) == 7
    assert events == ["attaching", "meanwhile"]


def test_meanwhile_is_skipped_when_the_work_fails_before_attaching():
    called: list[str] = []

    def work() -> int:
        raise ConnectionError("no server")

    with pytest.raises(ConnectionError, match="no server"):
        Cancellable().run(work, meanwhile=lambda: called.append("meanwhile"))
    assert called == []


class GatedParts:
    """An OutputParts stand-in whose writes wait for ``gate``; batch ``fail`` raises."""

    def __init__(self, fail: int | None = None):
        self.gate = threading.Event()
        self.written: list[int] = []
        self.fail = fail
        self.closed_with: object = None

    def write(self, batch: int) -> None:
        self.gate.wait(10)
        if batch == self.fail:
            raise OSError(f"disk full at batch {batch}")
        self.written.append(batch)

    def close(self, schema: object) -> None:
        self.closed_with = schema


def hand_over(writer: WriteBehind, batches: range, handed: list[int], errors: list[BaseException]) -> threading.Thread:
    def feed() -> None:
        try:
            for b in batches:
                writer.write(b)
                handed.append(b)
        except BaseException as e:  # noqa: BLE001 - inspected by the test
            errors.append(e)

    thread = threading.Thread(target=feed, daemon=True)  # a writer that blocks it fails the test, never hangs it
    thread.start()
    return thread


def test_write_behind_holds_at_most_its_batches_then_writes_all_in_order():
    parts = GatedParts()
    handed: list[int] = []
    with WriteBehind(parts) as writer:  # type: ignore[arg-type]
        try:
            feeder = hand_over(writer, range(6), handed, [])
            time.sleep(0.3)
            # The first batch is being written (held at the gate); one more waits its turn.
            assert handed == list(range(WRITE_BEHIND_BATCHES))
            assert parts.written == []
        finally:
            parts.gate.set()
        feeder.join(10)
        writer.close("schema")
    assert handed == list(range(6))
    assert parts.written == list(range(6))
    assert parts.closed_with == "schema"


def test_a_write_error_reaches_the_reader_and_later_batches_are_not_written():
    parts = GatedParts(fail=1)
    handed: list[int] = []
    errors: list[BaseException] = []
    with WriteBehind(parts) as writer:  # type: ignore[arg-type]
        parts.gate.set()
        feeder = hand_over(writer, range(10), handed, errors)
        feeder.join(10)
        assert [str(e) for e in errors] == ["disk full at batch 1"]
        with pytest.raises(OSError, match="batch 1"):
            writer.close("schema")
    assert parts.written == [0]
    assert parts.closed_with is None
