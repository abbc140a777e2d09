"""Property tests: the fetch path's text decoders (through fastodbc_bench) agree with CPython's strict codecs.

decode_utf16le(data) == data.decode('utf-16-le') and decode_utf8(data) == data.decode('utf-8')
for every input CPython accepts; ValueError (UnicodeDecodeError is one) exactly when CPython
raises (odd lengths, unpaired surrogates, malformed UTF-8).
"""

import struct

import fastodbc_bench
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

SETTINGS = settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

MAX = 3000


# ------------------------------------------------------------------------ strategies

NO_SURROGATES = {"exclude_categories": ("Cs",)}
ascii_text = st.text(st.characters(max_codepoint=0x7F), max_size=MAX)
latin1_text = st.text(st.characters(max_codepoint=0xFF), max_size=MAX)
bmp_text = st.text(st.characters(max_codepoint=0xFFFF, **NO_SURROGATES), max_size=MAX)
astral_text = st.text(st.characters(min_codepoint=0x10000), max_size=MAX // 2)
any_text = st.text(st.characters(**NO_SURROGATES), max_size=MAX)
mostly_ascii_text = st.lists(
    st.one_of(
        st.text(st.characters(max_codepoint=0x7F), min_size=1, max_size=64),
        st.text(st.characters(min_codepoint=0x80, **NO_SURROGATES), min_size=1, max_size=2),
    ),
    max_size=80,
).map("".join)
texts = st.one_of(ascii_text, latin1_text, bmp_text, astral_text, any_text, mostly_ascii_text)

raw_bytes = st.binary(max_size=MAX)

# UTF-16 code units biased towards surrogates, so unpaired/reversed pairs show up often.
utf16_units = st.lists(
    st.one_of(
        st.integers(0, 0x7F),
        st.integers(0xD800, 0xDBFF),
        st.integers(0xDC00, 0xDFFF),
        st.integers(0, 0xFFFF),
    ),
    max_size=MAX // 2,
)
utf16_tricky = st.tuples(utf16_units, st.booleans()).map(
    lambda t: struct.pack(f"<{len(t[0])}H", *t[0]) + (b"\x41" if t[1] else b"")
)

UTF8_PIECES = [
    b"a",
    b"\x00",
    b"\x7f",
    b"\xc2\x80",  # U+0080
    b"\xdf\xbf",  # U+07FF
    b"\xe0\xa0\x80",  # U+0800
    b"\xef\xbf\xbf",  # U+FFFF
    b"\xf0\x90\x80\x80",  # U+10000
    b"\xf4\x8f\xbf\xbf",  # U+10FFFF
    b"\xf0\x9f\x98\x80",  # emoji
    b"\xed\xa0\x80",  # encoded surrogate: invalid
    b"\xed\xbf\xbf",  # encoded surrogate: invalid
    b"\xc0\x80",  # overlong NUL: invalid
    b"\xc1\xbf",  # overlong: invalid
    b"\xe0\x80\x80",  # overlong: invalid
    b"\xf0\x80\x80\x80",  # overlong: invalid
    b"\xf4\x90\x80\x80",  # > U+10FFFF: invalid
    b"\xf5\x80\x80\x80",  # invalid lead
    b"\xff",
    b"\x80",  # lone continuation
    b"\xe2\x82",  # truncated 3-byte
    b"\xf0\x9f\x98",  # truncated 4-byte
]
utf8_tricky = st.lists(
    st.one_of(st.sampled_from(UTF8_PIECES), st.binary(max_size=3), ascii_text.map(str.encode)),
    max_size=200,
).map(b"".join)


# ------------------------------------------------------------------------ oracle


def agrees(fn, data, codec):
    try:
        want = data.decode(codec)
    except UnicodeDecodeError:
        with pytest.raises(ValueError):
            fn(data)
        return
    got = fn(data)
    assert type(got) is str
    assert got == want


# ------------------------------------------------------------------------ UTF-16LE


@SETTINGS
@given(texts)
@example("")
@example("a")
@example("😀")
@example("\uffff\U0010ffff\ufeff")
def test_utf16le_valid_text(s):
    data = s.encode("utf-16-le")
    assert fastodbc_bench.decode_utf16le(data) == s
    assert type(fastodbc_bench.decode_utf16le(data)) is str


@SETTINGS
@given(st.one_of(raw_bytes, utf16_tricky))
@example(b"")
@example(b"a")  # odd length
@example(b"a\x00b")  # odd length
@example(b"\x00\xd8")  # lone high surrogate
@example(b"\x00\xdc")  # lone low surrogate
@example(b"\x00\xdc\x00\xd8")  # reversed pair
@example(b"\x3d\xd8\x00\xde")  # valid pair (U+1F600)
@example(b"\x3d\xd8")  # high surrogate at the very end
@example(b"\x3d\xd8\x41\x00")  # high surrogate then a BMP char
@example(b"\x3d\xd8\x00\xde\x00")  # valid pair, then a stray byte
def test_utf16le_matches_cpython(data):
    agrees(fastodbc_bench.decode_utf16le, data, "utf-16-le")


def test_utf16le_long_input():
    s = ("abc" * 10_000) + "é😀" * 5_000
    assert fastodbc_bench.decode_utf16le(s.encode("utf-16-le")) == s


# ------------------------------------------------------------------------ UTF-8


@SETTINGS
@given(texts)
@example("")
@example("\x00")
@example("\U0010ffff")
def test_utf8_valid_text(s):
    data = s.encode("utf-8")
    assert fastodbc_bench.decode_utf8(data) == s
    assert type(fastodbc_bench.decode_utf8(data)) is str


@SETTINGS
@given(st.one_of(raw_bytes, utf8_tricky))
@example(b"")
@example(b"\xed\xa0\x80")
@example(b"\xc0\x80")
@example(b"\xf4\x90\x80\x80")
@example(b"\xf0\x9f\x98")
@example(b"abc\x80")
def test_utf8_matches_cpython(data):
    agrees(fastodbc_bench.decode_utf8, data, "utf-8")


@pytest.mark.parametrize("piece", UTF8_PIECES)
def test_utf8_each_piece(piece):
    for data in (piece, b"x" + piece, piece + b"y", b"z" * 40 + piece + b"z" * 40):
        agrees(fastodbc_bench.decode_utf8, data, "utf-8")


def test_decode_loop_ns_times_both_decoders():
    ours, cpython = fastodbc_bench.decode_loop_ns("héllo wörld".encode("utf-16-le"), "utf-16-le", 50)
    assert ours > 0 and cpython > 0
    ours, cpython = fastodbc_bench.decode_loop_ns("héllo".encode(), "utf-8", 50)
    assert ours > 0 and cpython > 0
    with pytest.raises(ValueError):
        fastodbc_bench.decode_loop_ns(b"abc", "latin-1", 10)
    with pytest.raises(ValueError):
        fastodbc_bench.decode_loop_ns(b"\xff\xfe\xfd", "utf-8", 10)
