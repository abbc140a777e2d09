"""Exit 0 when every requirement of a pinned requirements file is installed at its version.

    python scripts/requirements_met.py FILE

scripts/deps.sh and bench/setup.sh call pip only when this fails: pip itself takes seconds
even when everything is satisfied.
"""

import re
import sys
from importlib.metadata import PackageNotFoundError, version


def unmet(path: str) -> list[str]:
    bad = []
    for line in open(path):
        line = line.split("#")[0].strip()
        if not line:
            continue
        name, _, want = line.partition("==")
        name = re.sub(r"\[.*\]", "", name).strip()
        try:
            if want and version(name) != want.strip():
                bad.append(line)
        except PackageNotFoundError:
            bad.append(line)
    return bad


if __name__ == "__main__":
    sys.exit(1 if unmet(sys.argv[1]) else 0)
