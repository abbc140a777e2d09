"""``python -m fastodbc``: the ``fastodbc`` command line (``fastodbc.cli``)."""

from .cli import run

run()
