"""The column kinds of the fidelity matrix: each kind's column name, the values a source table
holds (edge values first, then seeded random ones, NULLs in every column), and its canonical
form: the value a kind means, whatever Python type a client returns it as (a UUID or its text,
TIME as a timedelta, JSON parsed, CHAR without its padding). Two values are the same when their
canonical forms are (floats by bits: NaN equals NaN, -0.0 differs from 0.0).

A profile's ``fidelity_kinds`` names the kinds of its source table, ``fidelity_ddl`` their
columns; the values a database cannot store are left out by what its profile says of it
(``nan_stored_as``), never by its name.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import ipaddress
import json
import math
import random
import re
import struct
import uuid
from collections.abc import Callable
from typing import Any

D = decimal.Decimal
UTC = datetime.timezone.utc
ROWS = 200  # rows of each source table
NULL_EVERY = 10  # a column's NULLs: one row in NULL_EVERY, at an offset of its own


def tz(hours: float) -> datetime.timezone:
    return datetime.timezone(datetime.timedelta(hours=hours))


@dataclasses.dataclass(frozen=True)
class Kind:
    name: str
    column: str  # the column's name in every table
    edges: tuple[Any, ...]  # values every source table of the kind holds
    random: Callable[[random.Random], Any]  # more values
    canon: Callable[[Any], Any]  # the value a client's answer stands for (None: NULL)
    # The edge value is a double that is not finite (left out where the database refuses it).
    not_finite: Callable[[Any], bool] = lambda v: False


# --------------------------------------------------------------------------- canonical forms


def _int(v: Any) -> Any:
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, (int, str)):
        return int(v)
    if isinstance(v, float) and v.is_integer():
        return int(v)
    if isinstance(v, D) and v == v.to_integral_value():
        return int(v)
    return v  # a fraction: compared as it is, and differs


def _decimal(v: Any) -> Any:
    if isinstance(v, float):
        v = D(repr(v)) if math.isfinite(v) else D(str(v))
    elif isinstance(v, (int, str, bytes)):
        v = D(v.decode() if isinstance(v, bytes) else v)
    if isinstance(v, D):
        return D(0) if v.is_zero() else v.normalize(decimal.Context(prec=200))
    return v


def _float(v: Any) -> Any:
    if isinstance(v, (str, D, int)) and not isinstance(v, bool):
        return float(v)
    return v


def _float32(v: Any) -> Any:
    v = _float(v)
    if isinstance(v, float) and math.isfinite(v):
        return struct.unpack("f", struct.pack("f", v))[0]
    return v


def _bool(v: Any) -> Any:
    if isinstance(v, str):
        return {"t": True, "true": True, "1": True, "f": False, "false": False, "0": False}.get(v.lower(), v)
    if isinstance(v, (int, D)):
        return bool(v)
    return v


def _text(v: Any) -> Any:
    return bytes(v).decode() if isinstance(v, (bytes, bytearray, memoryview)) else v


def _char(v: Any) -> Any:
    v = _text(v)
    return v.rstrip(" ") if isinstance(v, str) else v  # CHAR(n) compares without its padding


def _bytes(v: Any) -> Any:
    return bytes(v) if isinstance(v, (bytes, bytearray, memoryview)) else v


def _date(v: Any) -> Any:
    if isinstance(v, str):
        v = datetime.datetime.fromisoformat(v) if len(v) > 10 else datetime.date.fromisoformat(v)
    if isinstance(v, datetime.datetime) and v.time() == datetime.time(0) and v.tzinfo is None:
        return v.date()
    return v


def _time(v: Any) -> Any:
    if isinstance(v, datetime.timedelta) and datetime.timedelta(0) <= v < datetime.timedelta(days=1):
        return (datetime.datetime.min + v).time()
    if isinstance(v, str):
        return datetime.time.fromisoformat(v)
    return v


_CLOCK = re.compile(r"^(-?)(\d+):(\d\d):(\d\d)(?:\.(\d+))?$")
_DAYS = re.compile(r"^(-?\d+) days?(?: (.*))?$")


def _duration(v: Any) -> Any:
    """A duration: MariaDB's TIME (PyMySQL: timedelta), PostgreSQL's day-time interval, or the
    text of either ('-838:59:59', '34 days 22:59:59')."""
    if isinstance(v, datetime.time):
        return datetime.timedelta(hours=v.hour, minutes=v.minute, seconds=v.second, microseconds=v.microsecond)
    if not isinstance(v, str):
        return v
    text, total = v.strip(), datetime.timedelta(0)
    days = _DAYS.match(text)
    if days:
        total, text = datetime.timedelta(days=int(days.group(1))), days.group(2) or "00:00:00"
    clock = _CLOCK.match(text)
    if not clock:
        return v
    sign, h, m, s, frac = clock.groups()
    part = datetime.timedelta(hours=int(h), minutes=int(m), seconds=int(s),
                              microseconds=int((frac or "0").ljust(6, "0")[:6]))
    return total + (-part if sign else part)


def _timetz(v: Any) -> Any:
    """(time without zone, UTC offset or None)."""
    if isinstance(v, str):
        m = re.match(r"^([\d:.]+)(?:([+-]\d\d)(?::?(\d\d))?(?::?(\d\d))?)?$", v.strip())
        if not m:
            return v
        t, oh, om, os_ = m.groups()
        offset = None
        if oh is not None:
            sign = -1 if oh.startswith("-") else 1
            offset = sign * datetime.timedelta(hours=abs(int(oh)), minutes=int(om or 0), seconds=int(os_ or 0))
        return (datetime.time.fromisoformat(t), offset)
    if isinstance(v, datetime.time):
        return (v.replace(tzinfo=None), v.utcoffset())
    return v


def _timestamp(v: Any) -> Any:
    if isinstance(v, str):
        text = v.strip().replace("T", " ")
        text = re.sub(r"([+-]\d\d)$", r"\1:00", text)  # PostgreSQL's '+05' offset
        text = re.sub(r"Z$", "+00:00", text)
        v = datetime.datetime.fromisoformat(text)
    if isinstance(v, datetime.datetime) and v.tzinfo is not None:
        return v.astimezone(UTC)  # an instant: compared in UTC
    return v


def _interval(v: Any) -> Any:
    return " ".join(v.split()) if isinstance(v, str) else v


def _uuid(v: Any) -> Any:
    if isinstance(v, (bytes, bytearray)) and len(v) == 16:
        v = uuid.UUID(bytes=bytes(v))
    return str(v).lower() if isinstance(v, (uuid.UUID, str)) else v


def _json(v: Any) -> Any:
    """Its JSON text, keys sorted (JSON null is 'null', SQL NULL None)."""
    if isinstance(v, (bytes, bytearray)):
        v = bytes(v).decode()
    if isinstance(v, str):
        try:
            v = json.loads(v)
        except ValueError:
            return v
    return json.dumps(v, sort_keys=True)


def _inet(v: Any) -> Any:
    if isinstance(v, (str, ipaddress.IPv4Address, ipaddress.IPv6Address, ipaddress.IPv4Interface,
                      ipaddress.IPv6Interface)):
        try:
            return str(ipaddress.ip_interface(str(v)))
        except ValueError:
            return v
    return v


def _array(v: Any) -> Any:
    """A list of ints: from PostgreSQL's array text ('{1,NULL}') or JSON ('[1, null]')."""
    if not isinstance(v, str):
        return v
    text = v.strip()
    if text.startswith("{") and text.endswith("}"):
        inner = text[1:-1]
        return [None if x == "NULL" else int(x) for x in inner.split(",")] if inner else []
    try:
        return json.loads(text)
    except ValueError:
        return v


# --------------------------------------------------------------------------- values


def _rand_decimal(rng: random.Random, digits: int, scale: int) -> D:
    n = rng.randrange(-(10**digits) + 1, 10**digits)
    return D(n).scaleb(-scale)


def _rand_date(rng: random.Random) -> datetime.date:
    return datetime.date(1, 1, 1) + datetime.timedelta(days=rng.randrange(3_652_059))


def _rand_time(rng: random.Random) -> datetime.time:
    return (datetime.datetime.min + datetime.timedelta(microseconds=rng.randrange(86_400_000_000))).time()


def _rand_timestamp(rng: random.Random) -> datetime.datetime:
    return datetime.datetime.combine(_rand_date(rng), _rand_time(rng))


def _rand_text(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("abcXYZ 0129,;\"'\\\n\téüß東京😀") for _ in range(rng.randrange(n + 1)))


def _zone_of(rng: random.Random) -> datetime.timezone:
    return tz(rng.choice([0, 1, -5, 5.5, 14, -12, 9.75]))


_MOODS = ("sad", "ok", "happy")
_TEXT_EDGES = ("", "NA", "null", "NULL", "N/A", "nan", "NaN", "\\N", "Zürich", "東京", "ÆØÅ", "😀 astral",
               'a,b;"c"', "line\nbreak", " padded ", "x" * 5000)
_JSON_EDGES = ('{"a": 1, "b": [1, 2.5, null], "c": "é"}', "[]", "{}", '"text"', "null",
               '{"big": 12345678901234567890, "z": {"y": true}}')


def _nonfinite(v: Any) -> bool:
    return isinstance(v, float) and not math.isfinite(v)


KINDS: dict[str, Kind] = {k.name: k for k in (
    Kind("serial", "id", (), lambda r: None, _int),  # the rows' numbers: filled in by the table
    Kind("bigint", "c_bigint", (0, 1, -1, 2**63 - 1, -(2**63), 2**53 + 1),
         lambda r: r.randrange(-(2**63), 2**63), _int),
    Kind("numeric(18,4)", "c_num_18_4",
         (D("0"), D("99999999999999.9999"), D("-99999999999999.9999"), D("0.0001"), D("1.5000"), D("-0.0001")),
         lambda r: _rand_decimal(r, 18, 4), _decimal),
    Kind("numeric(38,9)", "c_num_38_9",
         (D("12345678901234567890.123456789"), D("-99999999999999999999999999999.999999999"),
          D("0.000000001"), D("123456789012345000"), D("0")),
         lambda r: _rand_decimal(r, 38, 9), _decimal),
    Kind("numeric", "c_num_free",
         (D("12345678901234567890.123456789"), D("1.5"), D("0.000000000001"),
          D("123456789012345678901234567890123456789012"), D("-1E-20"), D("0")),
         lambda r: _rand_decimal(r, r.randrange(1, 30), r.randrange(0, 12)), _decimal),
    Kind("real", "c_real", (0.0, -0.0, 1 / 3, 3.4028234663852886e38, 1e-45, 0.1, math.nan, math.inf, -math.inf),
         lambda r: _float32(r.uniform(-1e6, 1e6)), _float32, _nonfinite),
    Kind("double", "c_double",
         (0.0, -0.0, 1 / 3, 2**0.5, 1e308, 5e-324, 1.7976931348623157e308, 0.1, 123456789.12345678,
          math.nan, math.inf, -math.inf),
         lambda r: r.uniform(-1e9, 1e9) * 10 ** r.randrange(-20, 20), _float, _nonfinite),
    Kind("bool", "c_bool", (True, False), lambda r: r.random() < 0.5, _bool),
    Kind("text", "c_text", _TEXT_EDGES, lambda r: _rand_text(r, 40), _text),
    Kind("varchar(20)", "c_varchar", ("", "NA", "Zürich", "x" * 20, "tab\there", "東京" * 10),
         lambda r: _rand_text(r, 20), _text),
    Kind("char(5)", "c_char", ("ab", "abcde", "é", ""), lambda r: _rand_text(r, 5).strip(" "), _char),
    Kind("bytes", "c_bytes", (b"", b"\x00", b"\xff\xfe\x00abc", bytes(range(256)), b"a" * 10_000),
         lambda r: r.randbytes(r.randrange(30)), _bytes),
    Kind("binary(4)", "c_binary", (b"ab\x00\x00", b"\x00\x00\x00\x00", b"\xff\xff\xff\xff"),
         lambda r: r.randbytes(4), _bytes),
    Kind("date", "c_date", (datetime.date(1, 1, 1), datetime.date(9999, 12, 31), datetime.date(1970, 1, 1),
                            datetime.date(2024, 2, 29), datetime.date(1582, 10, 10)), _rand_date, _date),
    Kind("time", "c_time", (datetime.time(0), datetime.time(23, 59, 59, 999_999), datetime.time(12, 34, 56, 500_000)),
         _rand_time, _time),
    Kind("duration", "c_duration", ("838:59:59", "-838:59:59", "-00:00:01.5", "24:00:00", "100:00:00.123456"),
         lambda r: f"{r.randrange(-838, 839)}:{r.randrange(60):02}:{r.randrange(60):02}.{r.randrange(10**6):06}",
         _duration),
    Kind("timetz", "c_timetz", ("12:34:56+02", "00:00:00-05:30", "23:59:59.999999+14", "12:00:00+00"),
         lambda r: _rand_time(r).replace(tzinfo=_zone_of(r)), _timetz),
    Kind("timestamp", "c_timestamp",
         (datetime.datetime(1, 1, 1), datetime.datetime(9999, 12, 31, 23, 59, 59, 999_999),
          datetime.datetime(2024, 3, 10, 2, 30), datetime.datetime(2024, 11, 3, 1, 30), datetime.datetime(1970, 1, 1)),
         _rand_timestamp, _timestamp),
    # Instants in several zones: two an hour apart that New York's clock shows alike, one in
    # its spring gap, a half-hour zone, and years with odd offsets.
    Kind("timestamptz", "c_timestamptz",
         (datetime.datetime(2024, 11, 3, 5, 30, tzinfo=UTC), datetime.datetime(2024, 11, 3, 6, 30, tzinfo=UTC),
          datetime.datetime(2024, 3, 10, 7, 30, tzinfo=UTC), datetime.datetime(2000, 1, 1, tzinfo=tz(5.5)),
          datetime.datetime(1850, 1, 1, 12, tzinfo=UTC), datetime.datetime(9999, 12, 31, 12, tzinfo=tz(-8))),
         lambda r: datetime.datetime(1900, 1, 1, tzinfo=UTC) + datetime.timedelta(seconds=r.randrange(4_000_000_000),
                                                                                   microseconds=r.randrange(10**6)),
         _timestamp),
    Kind("interval", "c_interval",
         ("1 year 2 mons 3 days 04:05:06.789", "-1 days", "00:00:00.000001", "100 years", "-3 mons +2 days -01:00:00"),
         lambda r: f"{r.randrange(0, 30)} days {r.randrange(24):02}:{r.randrange(60):02}:{r.randrange(60):02}",
         _interval),
    Kind("uuid", "c_uuid", (uuid.UUID(int=0), uuid.UUID("ffffffff-ffff-4fff-bfff-ffffffffffff")),
         lambda r: uuid.UUID(int=r.getrandbits(128), version=4), _uuid),
    Kind("json", "c_json", _JSON_EDGES, lambda r: json.dumps({"n": r.randrange(1000), "s": _rand_text(r, 8)}),
         _json),
    Kind("jsonb", "c_jsonb", _JSON_EDGES, lambda r: json.dumps([r.randrange(1000), _rand_text(r, 8)]), _json),
    Kind("inet", "c_inet", ("192.168.0.1", "10.0.0.0/8", "::1", "2001:db8::1/64", "192.168.1.5/24"),
         lambda r: str(ipaddress.IPv4Address(r.getrandbits(32))), _inet),
    Kind("inet6", "c_inet6", ("::1", "2001:db8::1", "::ffff:192.168.0.1", "::"),
         lambda r: str(ipaddress.IPv6Address(r.getrandbits(128))), _inet),
    Kind("int[]", "c_int_array", ([1, 2, 3], [], [None, 5], [-(2**31), 2**31 - 1]),
         lambda r: [r.randrange(-1000, 1000) for _ in range(r.randrange(4))], _array),
    Kind("enum", "c_enum", _MOODS, lambda r: r.choice(_MOODS), _text),
    Kind("non-ascii name", "prix_é", ("é", "x"), lambda r: _rand_text(r, 10), _text),
)}


def canon(kind: str, value: Any) -> Any:
    return None if value is None else KINDS[kind].canon(value)


def source_values(profile, kind: str, index: int) -> list[Any]:
    """The ROWS values of a kind's column in ``profile``'s source table: its edge values (those
    the database stores), random ones, and a NULL every NULL_EVERY rows (offset by ``index``)."""
    k = KINDS[kind]
    if kind == "serial":
        return list(range(1, ROWS + 1))
    edges = [v for v in k.edges if not (k.not_finite(v) and profile.nan_stored_as == "refused")]
    rng = random.Random(f"{profile.name}/{kind}")
    out: list[Any] = []
    for i in range(ROWS):
        if (i + index) % NULL_EVERY == NULL_EVERY - 1:
            out.append(None)
        elif edges:
            out.append(edges.pop(0))
        else:
            out.append(k.random(rng))
    return out
