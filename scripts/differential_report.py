"""Print what a run of the differential matrix covered (tests/test_differential.py writes the
counts to build/differential/<depth>-stats.json).

    python scripts/differential_report.py build/differential/deep-stats.json
"""

import collections
import json
import sys


def main(path: str) -> None:
    try:
        with open(path) as f:
            stats = json.load(f)
    except FileNotFoundError:
        print(f"differential: no counts at {path} (did the run start?)")
        return
    for key, counts in stats.items():
        n = counts.get("examples", 0)
        secs = counts.get("seconds", 0.0)
        print(f"{key}: {n} examples, {secs:.0f} s in examples")
        groups = collections.defaultdict(list)
        for name, count in counts.items():
            if name in ("examples", "seconds"):
                continue
            group, _, value = name.partition(":")
            groups[group].append(f"{value} {count}")
        for group, items in sorted(groups.items()):
            print(f"  {group}: {', '.join(items)}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "build/differential/deep-stats.json")
