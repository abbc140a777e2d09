"""`_native.int_rows`: the benchmark's Python object floor builds exactly the rows it is given."""

from __future__ import annotations

import gc
import struct

import pytest

from fastodbc import _native


def packed(rows: list[tuple[int, ...]]) -> bytes:
    return b"".join(struct.pack(f"<{len(r)}q", *r) for r in rows)


def test_rebuilds_the_rows_struct_packed():
    rows = [(0, -1, 2**63 - 1, -(2**63)), (1, 2**31, -(2**31) - 1, 123456789012345)] * 3
    built = _native.int_rows(packed(rows), 4)
    assert built == rows
    assert all(type(r) is tuple and all(type(v) is int for v in r) for r in built)


def test_rows_stay_out_of_the_cyclic_gc_as_fetched_rows_do():
    built = _native.int_rows(packed([(1, 2), (3, 4)]), 2)
    assert not any(gc.is_tracked(r) for r in built)


def test_empty_input_is_an_empty_list():
    assert _native.int_rows(b"", 3) == []


@pytest.mark.parametrize(("data", "ncols"), [(b"\0" * 12, 1), (b"\0" * 16, 3), (b"\0" * 8, 0)])
def test_partial_rows_are_refused(data, ncols):
    with pytest.raises(ValueError, match="whole rows"):
        _native.int_rows(data, ncols)
