"""The progress display on stderr: rows, bytes, rows/s, elapsed, and a percentage where the
total is known. Drawn by tqdm (the ``cli`` extra), only on a terminal, only once the work has
taken a second, never with ``--quiet``; without tqdm installed there is none.

The worker thread only counts (``rows``, ``bytes``: plain attributes it alone writes; an export
also hands over ``rows_read``, its reader's count of rows read, which moves block by block
while a batch of up to 131,072 rows is built, so a slow result's count moves at least once a
second, not once a batch); the main thread, which waits for it anyway (cli/cancel.py), draws
(``show``, with ``count``), so tqdm is used from one thread and the display keeps its elapsed
time moving while a statement executes.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

#: Nothing is drawn for work shorter than this.
DELAY_S = 1.0

# Counts in full ("12,345 rows"), rates scaled ("3.2k rows/s").
_COUNTS = "{desc}: {n:,} rows{postfix} [{elapsed}, {rate_noinv_fmt}]"
_ROWS_KNOWN = (
    "{desc}: {percentage:3.0f}%|{bar}| {n:,}/{total:,} rows{postfix} [{elapsed}<{remaining}, {rate_noinv_fmt}]"
)
# The total in rows is estimated from the bytes read (CSV): marked as such.
_ROWS_ESTIMATED = _ROWS_KNOWN.replace("/{total:,}", "/~{total:,}")


def on_terminal() -> bool:
    """stderr is a terminal (a progress display would not garble a log or a pipe)."""
    stream = sys.stderr
    return stream is not None and stream.isatty()


class Progress:
    """A progress display for ``action`` ('export', 'import'). The worker sets ``total_rows``
    or ``total_bytes`` once it knows them (the percentage: of the rows, or of the input's bytes
    read, the rows' total then estimated from them)."""

    def __init__(self, action: str, *, quiet: bool):
        self.rows = 0
        #: Bytes of the output written or of the input read, so far.
        self.bytes = 0
        self.total_rows: int | None = None
        self.total_bytes: int | None = None
        #: Rows read so far, within the batch being built (an export's reader), if known.
        self.rows_read: Callable[[], int] | None = None
        self._bar = None if quiet or not on_terminal() else _bar(action)

    def count(self) -> int:
        """The rows shown: those counted, or more read meanwhile into a batch being built."""
        rows_read = self.rows_read
        return max(self.rows, rows_read()) if rows_read is not None else self.rows

    def show(self) -> None:
        """Redraws the display with the counts (main thread)."""
        bar = self._bar
        if bar is None:
            return
        rows, done, total_bytes = self.count(), self.bytes, self.total_bytes
        # tqdm formats a percentage only for a total above 0.
        if self.total_rows:
            bar.total, bar.bar_format = self.total_rows, _ROWS_KNOWN
        elif total_bytes and done:
            bar.total, bar.bar_format = max(rows, round(rows * total_bytes / done)), _ROWS_ESTIMATED
        else:
            bar.total, bar.bar_format = None, _COUNTS
        of = f" of {_size(total_bytes)}" if total_bytes and not self.total_rows else ""
        bar.set_postfix_str(_size(done) + of, refresh=False)
        bar.update(rows - bar.n)

    def close(self, finished: bool = False) -> None:
        """Draws the final counts (if the display was shown at all) and ends the line;
        ``finished``: the whole input was read (its rows are the total)."""
        if self._bar is not None:
            if finished:
                self.total_rows = self.count()
            self.show()
            self._bar.close()
            self._bar = None


def _bar(action: str) -> Any:
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(
        desc=action,
        unit=" rows",
        unit_scale=True,
        bar_format=_COUNTS,
        file=sys.stderr,
        delay=DELAY_S,
        # Redrawn at each show() (every call counts, however few rows came since the last),
        # at most 5 times a second.
        miniters=0,
        mininterval=0.2,
        dynamic_ncols=True,
        leave=True,
    )


def _size(n: int | None) -> str:
    """'512 B', '12.3 MB' (decimal units, as file sizes are shown)."""
    value = float(n or 0)
    for unit in ("B", "kB", "MB", "GB"):
        if value < 1000:
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    return f"{value:.1f} TB"
