"""Checks built wheels against the manylinux policy they are tagged with, the one external
library excepted: libodbc.so.2 (unixODBC), which fastodbc links and never bundles.

For each wheel: its extension's glibc / libgcc symbol versions are no newer than the tag's
glibc, every library it needs is one the policy allows (or libodbc.so.2), and it carries no
debug information. Usage: wheel_check.py dist/*.whl
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

# manylinux2014 = manylinux_2_17: the libraries a wheel may expect on the system (PEP 599).
ALLOWED = {
    "libgcc_s.so.1",
    "libstdc++.so.6",
    "libm.so.6",
    "libdl.so.2",
    "librt.so.1",
    "libc.so.6",
    "libnsl.so.1",
    "libutil.so.1",
    "libpthread.so.0",
    "libresolv.so.2",
    "libX11.so.6",
    "libXext.so.6",
    "libXrender.so.1",
    "libICE.so.6",
    "libSM.so.6",
    "libGL.so.1",
    "libgobject-2.0.so.0",
    "libgthread-2.0.so.0",
    "libglib-2.0.so.0",
    "ld-linux-x86-64.so.2",
}
SYSTEM = {"libodbc.so.2"}
TAG = re.compile(r"manylinux_(\d+)_(\d+)|manylinux2014")


def glibc_of(wheel: Path) -> tuple[int, int]:
    match = TAG.search(wheel.name)
    if match is None:
        raise SystemExit(f"{wheel.name}: no manylinux tag")
    if match.group(0) == "manylinux2014":
        return (2, 17)
    return (int(match.group(1)), int(match.group(2)))


def check(wheel: Path) -> list[str]:
    problems = []
    limit = glibc_of(wheel)
    with tempfile.TemporaryDirectory() as tmp, zipfile.ZipFile(wheel) as archive:
        libraries = [n for n in archive.namelist() if n.endswith(".so")]
        if len(libraries) != 1:
            problems.append(f"expected one extension, found {libraries}")
        for name in libraries:
            path = Path(archive.extract(name, tmp))
            dynamic = subprocess.run(["readelf", "-d", str(path)], capture_output=True, text=True, check=True).stdout
            needed = set(re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic))
            extra = needed - ALLOWED - SYSTEM
            if extra:
                problems.append(f"{name} needs {sorted(extra)}, outside the policy")
            if "libodbc.so.2" not in needed:
                problems.append(f"{name} does not link libodbc.so.2")
            versions = subprocess.run(["readelf", "-V", str(path)], capture_output=True, text=True, check=True).stdout
            newest = max(
                (tuple(int(p) for p in v.split(".")) for v in re.findall(r"GLIBC_(\d+\.\d+(?:\.\d+)?)", versions)),
                default=(0, 0),
            )
            if newest[:2] > limit:
                problems.append(f"{name} uses GLIBC_{'.'.join(map(str, newest))}, newer than {limit}")
            sections = subprocess.run(["readelf", "-S", str(path)], capture_output=True, text=True, check=True).stdout
            if ".debug_info" in sections:
                problems.append(f"{name} carries debug information")
            size = path.stat().st_size / 2**20
            print(f"{wheel.name}: {size:.1f} MB extension, glibc <= {newest}, needs {sorted(needed)}")
    return problems


def main(paths: list[str]) -> int:
    failed = False
    for path in map(Path, paths):
        for problem in check(path):
            print(f"{path.name}: {problem}", file=sys.stderr)
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
