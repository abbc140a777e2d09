"""The typed surface of fastodbc.pool and fastodbc.aio, as mypy sees it: correct user code
passes, and the mistakes tests/typing/pool_and_aio.py marks are reported (so the derived stubs
describe the real methods, not Any)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.fastodbc_only(reason="fastodbc's stubs")

SAMPLE = Path(__file__).parent / "typing" / "pool_and_aio.py"


@pytest.mark.timeout(300)
def test_mypy_reports_exactly_the_marked_mistakes(tmp_path):
    pytest.importorskip("mypy")
    out = subprocess.run(
        [sys.executable, "-m", "mypy", "--python-version", "3.10", "--cache-dir", str(tmp_path), str(SAMPLE)],
        capture_output=True,
        text=True,
    ).stdout
    reported = {(int(m[1]), m[2]) for m in re.finditer(r"pool_and_aio\.py:(\d+): error: .*\[([\w-]+)\]", out)}
    marked = {
        (n, m[1])
        for n, line in enumerate(SAMPLE.read_text().splitlines(), 1)
        if (m := re.search(r"# error: ([\w-]+)", line))
    }
    assert marked, "the sample marks no mistake"
    assert reported == marked, out
