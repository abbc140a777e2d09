"""Value strategies per column kind: sizes that cross every threshold of the fetch path, and
multi-byte, astral and NUL characters placed at buffer and chunk edges."""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import uuid

from hypothesis import strategies as st

# Lengths (characters for text, bytes for binary) on either side of each threshold: the bound
# element of SQLite's unreliable sizes (255 characters), the optimistic bound of long text
# (1,024 characters: 4,104 bytes of UTF-8 or 2,051 UTF-16 units with the terminator), the
# widest bound varchar (8,000 characters), psqlODBC's described text size (8,190), the
# SQLGetData chunk (64 KiB) and a large value (1 MiB).
SIZE_EDGES = (
    0, 1, 2, 255, 256, 1023, 1024, 1025, 1026, 2051, 2052, 4000, 4001, 4103, 4104, 4105,
    8000, 8001, 8190, 8191, 16_384, 32_768, 65_535, 65_536, 65_537, 131_073, 1 << 20,
)
# Byte offsets where a multi-byte character is placed to straddle a buffer or chunk edge.
BYTE_EDGES = (255, 256, 1024, 4096, 4103, 4104, 8000, 8192, 16_384, 32_768, 65_536, 131_072)

ASCII = st.characters(min_codepoint=0x20, max_codepoint=0x7E)
LATIN = st.characters(min_codepoint=0xA0, max_codepoint=0x7FF)  # two bytes of UTF-8
BMP = st.characters(min_codepoint=0x800, max_codepoint=0xFFFF, exclude_categories=("Cs",))


def astral(max_codepoint: int) -> st.SearchStrategy[str]:
    """Four bytes of UTF-8, a surrogate pair of UTF-16."""
    edges = [c for c in (0x10000, 0x1F600, 0xFFFFF, 0x100000, 0x10FFFF) if c <= max_codepoint]
    return st.one_of(
        st.sampled_from([chr(c) for c in edges]),
        st.characters(min_codepoint=0x10000, max_codepoint=max_codepoint),
    )


@dataclasses.dataclass(frozen=True)
class Rules:
    """What values a table may hold for this example (from the profile and the path)."""

    max_codepoint: int = 0x10FFFF
    nul: bool = False


def chars(rules: Rules) -> st.SearchStrategy[str]:
    options = [ASCII, LATIN, BMP]
    if rules.max_codepoint >= 0x10000:
        options.append(astral(rules.max_codepoint))
    if rules.nul:
        options.append(st.just("\x00"))
    return st.one_of(*options)


def sizes(max_size: int) -> st.SearchStrategy[int]:
    """A length, mostly small, often exactly at a threshold."""
    edges = [s for s in SIZE_EDGES if s <= max_size]
    return st.one_of(
        st.integers(0, min(max_size, 40)),
        st.sampled_from(edges),
        st.integers(0, max_size),
    )


def _index_at_byte(unit: str, edge: int, encoding: str) -> int:
    """Index of the character of ``unit * k`` that covers byte ``edge`` once encoded."""
    widths = [len(c.encode(encoding)) for c in unit]
    per_unit = sum(widths)
    full, rest = divmod(edge, per_unit)
    index = full * len(unit)
    for w in widths:
        if rest < w:
            break
        rest -= w
        index += 1
    return index


@st.composite
def text_values(draw, max_size: int, rules: Rules) -> str:
    """A string of a drawn length: a repeated unit with characters placed at the edges."""
    size = draw(sizes(max_size))
    if size <= 40:
        return draw(st.text(chars(rules), min_size=size, max_size=size))
    unit = draw(st.text(chars(rules), min_size=1, max_size=8))
    value = list((unit * (size // len(unit) + 1))[:size])
    # Places where a character changes an edge: each byte edge in UTF-8 and UTF-16, and the
    # character edges of SIZE_EDGES.
    spots = {e for e in SIZE_EDGES if e < size}
    for edge in BYTE_EDGES:
        for encoding in ("utf-8", "utf-16-le"):
            i = _index_at_byte(unit, edge, encoding)
            spots.update(j for j in (i - 1, i, i + 1) if 0 <= j < size)
    spots = sorted(spots)
    if spots:
        for _ in range(draw(st.integers(0, 4))):
            at = draw(st.sampled_from(spots))
            value[at] = draw(chars(rules))
    return "".join(value)


@st.composite
def byte_values(draw, max_size: int) -> bytes:
    size = draw(sizes(max_size))
    if size <= 40:
        return draw(st.binary(min_size=size, max_size=size))
    unit = draw(st.binary(min_size=1, max_size=8))
    value = bytearray((unit * (size // len(unit) + 1))[:size])
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.sampled_from([e for e in BYTE_EDGES if e < size] or [0]))
        value[at] = draw(st.integers(0, 255))
    return bytes(value)


def integers(bits: int) -> st.SearchStrategy[int]:
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return st.one_of(st.sampled_from([lo, hi, lo + 1, hi - 1, 0, 1, -1]), st.integers(lo, hi))


def floats(width: int, nan: bool, infinity: bool) -> st.SearchStrategy[float]:
    return st.floats(width=width, allow_nan=nan, allow_infinity=infinity)


def decimals(precision: int, scale: int) -> st.SearchStrategy[decimal.Decimal]:
    top = 10**precision - 1
    unscaled = st.one_of(st.sampled_from([0, 1, -1, top, -top]), st.integers(-top, top))
    # From text: exact at any precision (arithmetic would round to the context's 28 digits).
    return unscaled.map(lambda u: decimal.Decimal(f"{u}E-{scale}"))


def dates(lo: datetime.date, hi: datetime.date) -> st.SearchStrategy[datetime.date]:
    return st.one_of(st.sampled_from([lo, hi]), st.dates(lo, hi))


def times() -> st.SearchStrategy[datetime.time]:
    return st.one_of(
        st.sampled_from([datetime.time(0), datetime.time(23, 59, 59, 999_999)]), st.times()
    )


def timestamps(lo: datetime.date, hi: datetime.date) -> st.SearchStrategy[datetime.datetime]:
    low = datetime.datetime.combine(lo, datetime.time(0))
    high = datetime.datetime.combine(hi, datetime.time(23, 59, 59, 999_999))
    return st.one_of(st.sampled_from([low, high]), st.datetimes(low, high))


def uuids(profile) -> st.SearchStrategy[uuid.UUID]:
    return st.uuids().map(profile.storable_uuid)
