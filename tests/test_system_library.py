"""unixODBC is fastodbc's one system dependency (python/fastodbc/_system.py): importing fastodbc
where ``libodbc.so.2`` is missing raises an ImportError that says what to install. The library
is hidden for real: a private mount namespace lays an overlay over its directory in which the
file is deleted (a whiteout), so the loader searches and fails as on a system without it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import fastodbc

LIBRARY = "libodbc.so.2"


def library_directory() -> Path:
    """Where the loader finds libodbc.so.2 today (its cache names it)."""
    listing = subprocess.run(["/sbin/ldconfig", "-p"], capture_output=True, text=True, check=True).stdout
    for line in listing.splitlines():
        if line.strip().startswith(LIBRARY) and "x86-64" in line:
            return Path(line.rsplit("=>", 1)[1].strip()).resolve().parent
    raise AssertionError(f"{LIBRARY} is not in the loader's cache")


def import_without_library(tmp_path: Path, code: str, hidden: str = LIBRARY) -> subprocess.CompletedProcess[str]:
    directory = library_directory()
    upper, work = tmp_path / "upper", tmp_path / "work"
    upper.mkdir()
    work.mkdir()
    package_root = str(Path(fastodbc.__file__).resolve().parent.parent)
    script = (
        "mount --make-rprivate / && "
        f"mknod {upper}/{hidden} c 0 0 && "
        f"mount -t overlay overlay -o lowerdir={directory},upperdir={upper},workdir={work} {directory} && "
        f'exec "{sys.executable}" -c "$0"'
    )
    env = dict(os.environ, PYTHONPATH=package_root)
    return subprocess.run(["unshare", "-m", "sh", "-c", script, code], capture_output=True, text=True, env=env)


@pytest.fixture
def namespaces():
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("hiding a system library needs root and unshare (CI runs as root)")


def test_a_missing_driver_manager_names_the_package_to_install(tmp_path, namespaces):
    done = import_without_library(tmp_path, "import fastodbc")
    assert done.returncode == 1, done.stderr
    last = done.stderr.strip().splitlines()
    message = "\n".join(last[last.index(next(x for x in last if x.startswith("ImportError: fastodbc needs"))) :])
    assert "unixODBC's driver manager (libodbc.so.2)" in message
    for line in ("apt-get install unixodbc", "dnf install unixODBC", "apk add unixodbc", "brew install unixodbc"):
        assert line in message
    assert f"{LIBRARY}: cannot open shared object file" in message


def test_with_another_name_hidden_the_same_namespace_imports_and_connects(tmp_path, namespaces):
    # The control: only the name hidden differs, so the failure above is the library's absence.
    code = "import fastodbc; print(fastodbc.connect('Driver=SQLite3;Database=:memory:').execute('SELECT 7').fetchval())"
    done = import_without_library(tmp_path, code, hidden="libnot_a_library.so.9")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "7"
