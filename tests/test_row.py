"""Row objects: indexing, slicing, len, equality, hash, attribute access, description, repr."""

import pytest


@pytest.fixture
def row_source(backend, table, cnxn):
    t = table(
        f"a {backend.ddl('int')}, b {backend.ddl('varchar(50)')}, c {backend.ddl('varchar(50)')}"
    )
    cnxn.cursor().execute(f"INSERT INTO {t} VALUES (1, 'x', NULL)")
    cnxn.commit()
    return t


@pytest.fixture
def row(cursor, row_source):
    return cursor.execute(f"SELECT a, b, c FROM {row_source}").fetchone()


def test_row_type(db, row):
    assert isinstance(row, db.Row)


def test_indexing(row):
    assert row[0] == 1
    assert type(row[0]) is int
    assert row[1] == "x"
    assert row[2] is None


def test_negative_index(row):
    assert row[-1] is None
    assert row[-2] == "x"
    assert row[-3] == 1


def test_index_out_of_range(row):
    with pytest.raises(IndexError):
        row[3]
    with pytest.raises(IndexError):
        row[-4]


def test_slicing(row):
    assert row[0:2] == (1, "x")
    assert type(row[0:2]) is tuple
    assert row[1:] == ("x", None)
    assert row[::-1] == (None, "x", 1)
    assert row[5:] == ()


def test_a_slice_of_the_whole_row_is_the_row(db, row):
    # As in pyodbc: row[:] (or any slice of every value in order) returns the row itself.
    for whole in (row[:], row[0:3], row[::1], row[-3:], row[0:100]):
        assert whole is row
    for part in (row[0:2], row[1:], row[::-1], row[::2], row[3:]):
        assert type(part) is tuple
    assert row[1:] == ("x", None) and row[::2] == (1, None) and row[3:] == ()
    with pytest.raises(TypeError):
        row["a":"b"]


def test_len(row):
    assert len(row) == 3


def test_tuple_list_unpack(row):
    assert tuple(row) == (1, "x", None)
    assert list(row) == [1, "x", None]
    a, b, c = row
    assert (a, b, c) == (1, "x", None)


def test_iteration(row):
    assert [v for v in row] == [1, "x", None]


@pytest.mark.fastodbc_only(reason="pyodbc Rows compare equal only to other Rows")
def test_equality_with_tuple(row):
    assert row == (1, "x", None)
    assert (1, "x", None) == row
    assert row != (1, "x", "y")
    assert row != (1, "x")
    assert not (row != (1, "x", None))


def test_equality_with_row(cursor, row_source, row):
    other = cursor.execute(f"SELECT a, b, c FROM {row_source}").fetchone()
    assert row == other
    assert not (row != other)
    different = cursor.execute(f"SELECT a + 1, b, c FROM {row_source}").fetchone()
    assert row != different
    assert row < different


def test_not_equal_to_other_types(row):
    assert row != 1
    assert row != "x"
    assert row != [1, "x", None]
    assert row is not None


def test_hash(row):
    # pyodbc Rows are mutable and unhashable; if a Row is hashable it must hash like
    # the equivalent tuple (consistent with tuple equality).
    try:
        h = hash(row)
    except TypeError:
        return
    assert h == hash((1, "x", None))
    assert {row: "v"}[(1, "x", None)] == "v"


def test_attribute_access(row):
    assert row.a == 1
    assert row.b == "x"
    assert row.c is None


def test_attribute_access_unknown(row):
    with pytest.raises(AttributeError):
        _ = row.nonexistent_column


def test_attribute_access_mixed_case_alias(cursor, row_source):
    r = cursor.execute(f'SELECT a AS "MixedCase", b AS "lower" FROM {row_source}').fetchone()
    assert r.MixedCase == 1
    assert r.lower == "x"


def test_cursor_description(cursor, row_source):
    r = cursor.execute(f"SELECT a, b, c FROM {row_source}").fetchone()
    assert [tuple(d) for d in r.cursor_description] == [tuple(d) for d in cursor.description]
    assert [d[0] for d in r.cursor_description] == ["a", "b", "c"]


def test_cursor_description_survives_next_execute(cursor, row_source):
    r = cursor.execute(f"SELECT a, b, c FROM {row_source}").fetchone()
    cursor.execute(f"SELECT b FROM {row_source}")
    assert [d[0] for d in r.cursor_description] == ["a", "b", "c"]
    assert r.a == 1


def test_repr(row):
    assert repr(row) == repr((1, "x", None))
    assert str(row) == str((1, "x", None))


def test_rows_from_fetchall_independent(cursor, row_source, cnxn):
    cnxn.cursor().execute(f"INSERT INTO {row_source} VALUES (2, 'y', 'z')")
    got = cursor.execute(f"SELECT a, b, c FROM {row_source} ORDER BY a").fetchall()
    assert [tuple(r) for r in got] == [(1, "x", None), (2, "y", "z")]
    assert got[0].b == "x"
    assert got[1].c == "z"


def test_column_names_win_over_tuple_methods(cursor, row_source):
    # pyodbc looks columns up first: a column called `count` or `index` is the value.
    r = cursor.execute(f'SELECT a AS "count", b AS "index" FROM {row_source}').fetchone()
    assert r.count == 1
    assert r.index == "x"


def test_assignment_by_position(db, row):
    row[0] = 10
    row[-1] = "z"
    assert tuple(row) == (10, "x", "z")
    assert row.a == 10
    with pytest.raises(IndexError):
        row[3] = 1


@pytest.mark.fastodbc_only(reason="fastodbc's Row is a tuple subclass")
def test_row_is_a_tuple(db, row):
    import copy
    import pickle

    assert isinstance(row, tuple)
    assert type(pickle.loads(pickle.dumps(row))) is tuple
    assert pickle.loads(pickle.dumps(row)) == (1, "x", None)
    assert copy.copy(row) == row
    with pytest.raises(TypeError):
        db.Row((1, 2))
    with pytest.raises(TypeError):
        del row[0]


@pytest.mark.fastodbc_only(reason="garbage collection of fastodbc's rows")
def test_rows_join_the_cyclic_gc_only_when_they_could_be_in_a_cycle(row):
    import gc

    # Built-in values can't refer back to the row: the GC does not walk it.
    assert not gc.is_tracked(row)
    holder = [row]
    row[1] = holder
    assert gc.is_tracked(row)
    probe = gc.get_referents(row)
    assert holder in probe
