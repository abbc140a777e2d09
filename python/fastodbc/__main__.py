"""``python -m fastodbc``: the ``fastodbc`` command line (``fastodbc.cli``)."""

import sys

from .cli import main

sys.exit(main())
