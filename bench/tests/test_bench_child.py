"""bench/child.py: a child's wall time and its own peak memory, however large the measuring
process is, and its timeout."""

from __future__ import annotations

import sys

from bench_modules import BENCH

# Imported by name, not loaded by path: a dataclass needs its module in sys.modules.
sys.path.insert(0, str(BENCH))
import child  # noqa: E402


def test_the_peak_is_the_childs_own() -> None:
    big = child.run_child([sys.executable, "-c", "x = bytearray(200 * 2**20); x[::4096] = b'1' * len(x[::4096])"], 60)
    assert big.returncode == 0 and big.maxrss >= 200 * 2**20
    # This process holding 300 MB must not show in a small child's figure (wait4's ru_maxrss did).
    held = bytearray(300 * 2**20)
    held[::4096] = b"1" * len(held[::4096])
    small = child.run_child(["true"], 60)
    assert small.returncode == 0 and 0 < small.maxrss < 50 * 2**20
    assert len(held) == 300 * 2**20


def test_exit_status_output_and_timeout() -> None:
    r = child.run_child(
        [sys.executable, "-c", "import sys; print('out'); print('err', file=sys.stderr); sys.exit(3)"], 60
    )
    assert (r.returncode, r.stdout, r.stderr, r.timed_out) == (3, "out\n", "err", False)
    slow = child.run_child(["sleep", "30"], 0.5)
    assert slow.timed_out and slow.seconds < 10
