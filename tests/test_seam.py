"""The Python/Rust seam: one-way (native code never imports the package; ``_native.link`` hands
it what it uses), typed (named objects instead of tuples), one list of secret attribute names
and one connection-string grammar (Rust's)."""

import subprocess
import sys

import pytest

from interpreter import FREE_THREADED_BUILD

pytestmark = pytest.mark.fastodbc_only(reason="fastodbc's extension module")

# Loads the extension file as fastodbc._native without running the package's __init__, then
# uses it: nothing of fastodbc's Python code may be imported on the way.
ALONE = """
import importlib.machinery, importlib.util, pathlib, sys
spec = importlib.util.find_spec("fastodbc")
folder = pathlib.Path(next(iter(spec.submodule_search_locations)))
path = str(next(folder.glob("_native*.so")))
loader = importlib.machinery.ExtensionFileLoader("fastodbc._native", path)
native_spec = importlib.util.spec_from_file_location("fastodbc._native", path, loader=loader)
native = importlib.util.module_from_spec(native_spec)
sys.modules["fastodbc._native"] = native
native_spec.loader.exec_module(native)
assert native.SECRET_ATTRIBUTES == ("PWD", "PASSWORD"), native.SECRET_ATTRIBUTES
assert native.connstr_escape("a;b") == "{a;b}"
native.drivers()
try:
    native.Connection("Driver={No Such Driver fastodbc};PWD=Hunter2Zq")
except RuntimeError as e:
    assert "not linked" in str(e) and "Hunter2Zq" not in str(e), e
else:
    raise AssertionError("connected to no driver")
print(sorted(m for m in sys.modules if m == "fastodbc" or m.startswith("fastodbc.")))
"""


@pytest.mark.skipif(
    FREE_THREADED_BUILD,
    reason="CPython 3.13.5t segfaults in PyModule_Create (strcmp in "
    "_PyImport_ResolveNameWithPackageContext) loading an extension under a dotted name whose "
    "package was never imported; `import fastodbc` is unaffected (not root-caused)",
)
def test_the_native_module_imports_nothing_of_the_package():
    out = subprocess.run([sys.executable, "-c", ALONE], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "['fastodbc._native']"


def test_the_secret_list_is_rusts():
    import fastodbc
    from fastodbc import _native

    assert set(_native.SECRET_ATTRIBUTES) == {"PWD", "PASSWORD"}
    # The user-extensible set starts from it (other tests may have added names since).
    assert set(_native.SECRET_ATTRIBUTES) <= fastodbc.secret_attributes


@pytest.mark.parametrize("value", ["plain", "a;b", "{x}", " spaced ", "p}}q;r}", "x\x1f", "=}"])
def test_an_escaped_value_reads_back_through_the_one_parser(value):
    from fastodbc import _native, connstr

    text = connstr.build("Driver={D}", {"Key": value, "Next": 1})
    attributes = _native.connstr_attributes(text)
    assert [k for k, _ in attributes] == ["Driver", "Key", "Next"]
    raw = attributes[1][1]
    read = raw[1:-1].replace("}}", "}") if raw.startswith("{") else raw
    assert read == value


def test_driver_traits_are_named_and_frozen(connect):
    from fastodbc import _native

    cnxn = connect()
    traits = cnxn._driver_traits
    assert isinstance(traits, _native.DriverTraits)
    assert isinstance(traits.text_as_utf8, bool) and isinstance(traits.float_digits, int)
    assert traits.liveness in ("probe", "status", "local", "unknown")
    assert traits.load_savepoint in ("", "alone", "one_text")
    with pytest.raises(AttributeError):
        traits.liveness = "probe"
    cnxn.close()
    with pytest.raises(Exception, match="closed connection"):
        cnxn._driver_traits  # noqa: B018 - the getter raises


def test_input_fields_are_named():
    pa = pytest.importorskip("pyarrow")
    from fastodbc import _native

    data = pa.table({"a": pa.array([1], pa.int32()), "t": pa.array(["x"], pa.string())})
    a, t = _native.IngestSource(data).fields("PostgreSQL", "15.0")
    assert isinstance(a, _native.IngestField) and (a.name, a.nullable, a.create_error) == ("a", True, None)
    assert a.create is not None and a.create.sql_type == 4 and not a.create.unsigned  # SQL_INTEGER
    assert t.name == "t" and (t.create is None) != (t.create_error is None)


def test_an_ingest_request_takes_keywords_only():
    from fastodbc import _native

    with pytest.raises(TypeError):
        _native.IngestRequest(None, "SELECT", "INSERT", [0], [False], [False])  # type: ignore[misc]
