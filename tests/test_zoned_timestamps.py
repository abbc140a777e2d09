"""Zoned timestamps (PostgreSQL's ``timestamptz``) reach Arrow as ``timestamp[us, tz=UTC]``
holding their instant, whatever the session's time zone, through ``fetch_arrow_table`` and
``fetch_record_batch``, with read-ahead on and off; rows keep pyodbc's naive wall time in the
session's zone (issue 29). psycopg is the oracle for the instants.

psqlODBC drops the UTC offset of every value and gives the session zone's wall time: a wall
time the zone repeats (the hour a change back from daylight saving time adds) names two
instants, and is refused with DataError, never guessed."""

from __future__ import annotations

import datetime
import zoneinfo

import pyarrow as pa
import pytest

from profiles import backends_where

pytestmark = pytest.mark.fastodbc_only(reason="Arrow fetch is fastodbc's")

UTC = datetime.timezone.utc
def has_zones(p) -> bool:
    return "timestamptz" in p.ddl_map and p.set_time_zone_sql is not None


ZONED = backends_where(has_zones)
ZONES = ["UTC", "America/New_York", "Asia/Kolkata", "<+05>-05"]
# The zones in Python (the system's tz database, as PostgreSQL's on Debian); POSIX counts
# hours west: <+05>-05 is UTC+5.
TZINFO = {
    "UTC": UTC,
    "America/New_York": zoneinfo.ZoneInfo("America/New_York"),
    "Asia/Kolkata": zoneinfo.ZoneInfo("Asia/Kolkata"),
    "<+05>-05": datetime.timezone(datetime.timedelta(hours=5)),
}


def instant(text: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(text).astimezone(UTC)


# Instants around New York's changes of 2024 (03-10 07:00 UTC forward, 11-03 06:00 UTC back),
# the epoch, a leap day, microseconds, and a zone with a seconds offset in 1850 (LMT).
INSTANTS = [
    instant("2024-03-01T12:00:00.250000+00:00"),
    instant("2024-03-10T06:59:59.999999+00:00"),  # 01:59:59.999999 EST, the last before 02:00
    instant("2024-03-10T07:00:00+00:00"),  # 03:00 EDT
    instant("2024-11-03T05:59:59+00:00"),  # 01:59:59 EDT: inside the repeated hour
    instant("2024-11-03T07:00:00+00:00"),  # 02:00 EST, just after it
    instant("1970-01-01T00:00:00+00:00"),
    instant("2024-02-29T23:59:59.999999+00:00"),
    instant("1850-06-01T12:00:00+00:00"),
]
# Instants whose New York wall time falls in the repeated hour (01:00-01:59:59 on 2024-11-03).
REPEATED_IN_NEW_YORK = {instant("2024-11-03T05:59:59+00:00")}


def readable(zone: str) -> list[datetime.datetime]:
    return [i for i in INSTANTS if not (zone == "America/New_York" and i in REPEATED_IN_NEW_YORK)]


@pytest.fixture
def oracle(backend):
    import psycopg

    from differential.oracles import connstr_attrs

    a = connstr_attrs(backend.connstr)
    cnxn = psycopg.connect(
        host=a.get("server", "127.0.0.1"), port=a.get("port", "5432"), dbname=a["database"],
        user=a.get("uid", ""), password=a.get("pwd", ""), autocommit=True,
    )
    yield cnxn
    cnxn.close()


def zoned_table(backend, table, cnxn, values) -> str:
    """A table (id, z timestamptz) holding `values` (instants, None for NULL), in that order."""
    t = table(f"id {backend.ddl('int')} NOT NULL, z {backend.ddl('timestamptz')}")
    cur = cnxn.cursor()
    for i, v in enumerate(values):
        literal = "NULL" if v is None else f"'{v.isoformat()}'"
        cur.execute(f"INSERT INTO {t} VALUES ({i}, {literal})")
    cnxn.commit()
    return t


def arrow_of(cur, sql: str, how: str) -> pa.Table:
    cur.execute(sql)
    if how == "fetch_arrow_table":
        return cur.fetch_arrow_table()
    return pa.Table.from_batches(list(cur.fetch_record_batch(batch_rows=3)))


@pytest.mark.parametrize("backend", ZONED, indirect=True)
@pytest.mark.parametrize("read_ahead", [True, False], ids=["read_ahead", "no_read_ahead"])
@pytest.mark.parametrize("how", ["fetch_arrow_table", "fetch_record_batch"])
@pytest.mark.parametrize("zone", ZONES)
def test_arrow_holds_the_instant_in_every_session_zone(backend, table, cnxn, oracle, zone, how, read_ahead):
    values = [*readable(zone), None]
    t = zoned_table(backend, table, cnxn, values)
    cnxn.read_ahead = read_ahead
    cur = cnxn.cursor()
    cur.execute(backend.set_time_zone_sql.format(zone=zone))
    got = arrow_of(cur, f"SELECT z, id FROM {t} ORDER BY id", how)
    assert got.schema.field("z").type == pa.timestamp("us", tz="UTC")
    assert got.schema.field("id").type == pa.int32()
    want = [r[0] for r in oracle.execute(f"SELECT z FROM {t} ORDER BY id")]
    assert want[:-1] == values[:-1] and want[-1] is None
    assert got.column("z").to_pylist() == want
    assert got.column("z").null_count == 1


@pytest.mark.parametrize("backend", ZONED, indirect=True)
@pytest.mark.parametrize("zone", ZONES)
def test_rows_keep_the_session_wall_time(backend, table, cnxn, oracle, zone):
    """fetchall gives what pyodbc gives: the naive wall time in the session's zone."""
    values = [*INSTANTS, None]
    t = zoned_table(backend, table, cnxn, values)
    cur = cnxn.cursor()
    cur.execute(backend.set_time_zone_sql.format(zone=zone))
    want = [r[0] for r in oracle.execute(f"SELECT z FROM {t} ORDER BY id")]
    assert want == values
    got = [r[0] for r in cur.execute(f"SELECT z FROM {t} ORDER BY id").fetchall()]
    assert got == [None if w is None else w.astimezone(TZINFO[zone]).replace(tzinfo=None) for w in want]
    assert cur.description[0][1] is datetime.datetime


@pytest.mark.parametrize("backend", ZONED, indirect=True)
@pytest.mark.parametrize("how", ["fetch_arrow_table", "fetch_record_batch"])
def test_a_repeated_wall_time_is_refused_not_guessed(db, backend, table, cnxn, how):
    """01:30 on 2024-11-03 in New York is 05:30 and 06:30 UTC: the driver's wall time cannot
    tell them apart, so Arrow refuses it (naming the value and the way out); in UTC it reads."""
    t = zoned_table(backend, table, cnxn, sorted(REPEATED_IN_NEW_YORK))
    cur = cnxn.cursor()
    cur.execute(backend.set_time_zone_sql.format(zone="America/New_York"))
    with pytest.raises(db.DataError) as err:
        arrow_of(cur, f"SELECT z FROM {t}", how)
    message = err.value.args[-1]
    assert err.value.args[0] == "22008" and "2024-11-03 01:59:59 names two instants" in message
    assert "America/New_York" in message and "SET TIME ZONE 'UTC'" in message
    cur.execute(backend.set_time_zone_sql.format(zone="UTC"))
    assert arrow_of(cur, f"SELECT z FROM {t}", how).column("z").to_pylist() == sorted(REPEATED_IN_NEW_YORK)


@pytest.mark.parametrize(
    "backend", backends_where(lambda p: has_zones(p) and p.server_cursor_attributes is not None), indirect=True
)
def test_arrow_through_a_server_cursor(backend, table, cnxn, connect):
    """With the driver fetching through a server cursor (psqlODBC's UseDeclareFetch), two
    rows a round trip, the zone is read beside the open cursor and every batch is right."""
    t = zoned_table(backend, table, cnxn, readable("America/New_York"))
    c = connect(backend.connstr.rstrip(";") + ";" + backend.server_cursor_attributes.format(n=2))
    cur = c.cursor()
    cur.execute(backend.set_time_zone_sql.format(zone="America/New_York"))
    cur.execute(f"SELECT z FROM {t} ORDER BY id")
    cur.fetchone()
    got = pa.Table.from_batches(list(cur.fetch_record_batch(batch_rows=3)))
    assert got.column("z").to_pylist() == readable("America/New_York")[1:]


@pytest.mark.parametrize("backend", ZONED, indirect=True)
def test_arrow_after_rows_and_plain_timestamps(backend, table, cnxn):
    """Arrow read after some rows were served, and plain timestamps beside a zoned one:
    those stay naive wall times."""
    t = table(f"id {backend.ddl('int')} NOT NULL, z {backend.ddl('timestamptz')}, n {backend.ddl('timestamp')}")
    cur = cnxn.cursor()
    for i, v in enumerate(INSTANTS):
        cur.execute(f"INSERT INTO {t} VALUES ({i}, '{v.isoformat()}', '{v.replace(tzinfo=None).isoformat()}')")
    cnxn.commit()
    cur.execute(backend.set_time_zone_sql.format(zone="Asia/Kolkata"))
    cur.execute(f"SELECT id, z, n FROM {t} ORDER BY id")
    first = cur.fetchone()
    assert first[1] == INSTANTS[0].astimezone(TZINFO["Asia/Kolkata"]).replace(tzinfo=None)
    rest = cur.fetch_arrow_table()
    assert rest.schema.field("n").type == pa.timestamp("us")
    assert rest.column("z").to_pylist() == INSTANTS[1:]
    assert rest.column("n").to_pylist() == [v.replace(tzinfo=None) for v in INSTANTS[1:]]


@pytest.mark.parametrize("backend", ZONED, indirect=True)
def test_an_unknown_session_zone_is_refused(db, backend, table, cnxn):
    """A session zone fastodbc cannot read instants in (a POSIX rule with daylight saving
    time) raises DataError rather than giving wall times as instants."""
    t = zoned_table(backend, table, cnxn, INSTANTS[:1])
    cur = cnxn.cursor()
    cur.execute(backend.set_time_zone_sql.format(zone="XXX3YYY,M3.2.0,M11.1.0"))
    with pytest.raises(db.DataError) as err:
        cur.execute(f"SELECT z FROM {t}").fetch_arrow_table()
    assert "XXX3YYY,M3.2.0,M11.1.0" in err.value.args[-1]
    # Rows are the wall time, as always.
    assert cur.execute(f"SELECT z FROM {t}").fetchval() == datetime.datetime(2024, 3, 1, 9, 0, 0, 250000)


LABELS = ["UTC", "Europe/Paris", "+02:00"]


@pytest.mark.parametrize("backend", ZONED, indirect=True)
@pytest.mark.parametrize("label", LABELS)
@pytest.mark.parametrize("zone", ["America/New_York", "Asia/Kolkata"])
def test_ingest_of_zoned_arrow_keeps_the_instant(backend, table, cnxn, oracle, zone, label):
    """Arrow timestamps with a zone (any label: the values are UTC) go into timestamptz as
    their instants, whatever the session's zone; NULLs stay NULL."""
    t = table(f"id {backend.ddl('int')} NOT NULL, z {backend.ddl('timestamptz')}")
    cur = cnxn.cursor()
    cur.execute(backend.set_time_zone_sql.format(zone=zone))
    values = [*INSTANTS, None]
    data = pa.table({
        "id": pa.array(range(len(values)), pa.int32()),
        "z": pa.array(values, pa.timestamp("us", tz=label)),
    })
    assert cur.ingest(t, data) == len(values)
    cnxn.commit()
    assert [r[0] for r in oracle.execute(f"SELECT z FROM {t} ORDER BY id")] == values


@pytest.mark.parametrize("zone", ["America/New_York", "Asia/Kolkata"])
def test_ingest_create_of_zoned_arrow(backend, cnxn, table, zone):
    """mode='create' of a zoned Arrow column: a zoned column where the database has one
    (timestamptz), read back as the same instants through Arrow; elsewhere a plain timestamp
    holding the UTC time (the database has nowhere to keep a zone)."""
    name = table()
    cur = cnxn.cursor()
    if backend.set_time_zone_sql:
        cur.execute(backend.set_time_zone_sql.format(zone=zone))
    values = [*readable(zone), None]
    data = pa.table({
        "id": pa.array(range(len(values)), pa.int32()),
        "z": pa.array(values, pa.timestamp("us", tz="Europe/Paris")),
    })
    assert cur.ingest(name, data, mode="create") == len(values)
    cnxn.commit()
    got = cur.execute(f"SELECT z FROM {name} ORDER BY id").fetch_arrow_table().column("z")
    if "timestamptz" in backend.ddl_map:
        assert got.type == pa.timestamp("us", tz="UTC")
        assert got.to_pylist() == values
    else:
        assert got.type == pa.timestamp("us")
        utc = [None if v is None else backend.timestamp_roundtrip(v.replace(tzinfo=None)) for v in values]
        assert got.to_pylist() == utc
