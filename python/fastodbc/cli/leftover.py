"""A table an import created, dropped after the import's process has ended.

Ctrl-C ends an import whose worker is stuck where no cancel reaches it (reading a stdin that
stays open) by ending the process (cli/__init__.py, ``_end_now``); the server then rolls back
the load's open transaction, but where DDL commits by itself (MariaDB) the CREATE TABLE of a
``--mode create`` load was committed, and the table would stay. The worker cannot drop it (it
is stuck), nor can another connection while the worker's session holds the table's locks. So a
process of its own, started as the command ends, waits for the command's process to be gone
(its connection closed, its locks released), then drops the table over a new connection. The
connection string goes to it through a pipe, never its command line (process lists show that).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

#: How long the dropping process waits for the command's process to end, at most.
WAIT_S = 30.0


def drop_after_exit(connstr: str, table: str) -> None:
    """Starts the process that drops ``table`` (quoted, qualified) once this one has ended."""
    child = subprocess.Popen(
        [sys.executable, "-c", "from fastodbc.cli.leftover import main; main()", str(os.getpid())],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # not in the terminal's process group: Ctrl-C is not for it
    )
    assert child.stdin is not None
    child.stdin.write(json.dumps({"connstr": connstr, "table": table}).encode())
    child.stdin.close()


def main() -> None:
    """The dropping process: the command's pid in argv, the request on stdin."""
    parent = int(sys.argv[1])
    request = json.loads(sys.stdin.read())
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        try:
            os.kill(parent, 0)
        except ProcessLookupError:
            break
        time.sleep(0.02)
    from .. import connect

    cnxn = connect(request["connstr"], autocommit=True)
    try:
        cnxn.cursor().execute(f"DROP TABLE IF EXISTS {request['table']}")
    finally:
        cnxn.close()


if __name__ == "__main__":
    main()
