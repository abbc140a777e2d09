"""The one system library fastodbc needs: unixODBC's driver manager, ``libodbc.so.2``. The
wheels link it and never bundle it (scripts/wheels.sh says why), so where it is missing the
import says what to install instead of the loader's bare message."""

from __future__ import annotations

INSTALL = """fastodbc needs unixODBC's driver manager (libodbc.so.2), which was not found on this system.
Install it, then the ODBC driver of your database:
  Debian / Ubuntu:   sudo apt-get install unixodbc
  RHEL / Fedora:     sudo dnf install unixODBC
  Alpine:            sudo apk add unixodbc
  macOS (Homebrew):  brew install unixodbc
(the loader said: {reason})"""


def missing_driver_manager(error: ImportError) -> ImportError | None:
    """The ImportError to raise instead of ``error`` when the loader could not find libodbc,
    else None (any other import failure is raised as it is)."""
    if "libodbc" not in str(error):
        return None
    return ImportError(INSTALL.format(reason=error))
