"""``python -m profiles servers`` (from tests/): the server script of every profile, one a
line, for scripts/test.sh to start, source (`env`) and stop."""

import sys

from . import PROFILES

if sys.argv[1:] != ["servers"]:
    sys.exit("usage: python -m profiles servers")
for profile in PROFILES:
    if profile.server_script:
        print(profile.server_script)
