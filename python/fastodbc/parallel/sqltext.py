"""Just enough of a query's text to partition it: its top-level ORDER BY, and identifiers.

A partitioned read wraps the query as a derived table, which keeps its row set (LIMIT,
DISTINCT, GROUP BY mean what they meant) but not its order: the planner finds the ORDER BY
the query ends with, to keep it where it can and to refuse where it cannot.
"""

from __future__ import annotations

import dataclasses
import itertools
import re

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")
#: Clauses that may follow an ORDER BY at the top level and end it.
_AFTER_ORDER = {"LIMIT", "OFFSET", "FETCH", "FOR"}


@dataclasses.dataclass(frozen=True)
class OrderItem:
    """One item of an ORDER BY: its expression's text, direction and explicit NULL placement."""

    expression: str
    descending: bool = False
    #: "first", "last", or None: the database's default.
    nulls: str | None = None


@dataclasses.dataclass(frozen=True)
class OrderBy:
    """The top-level ORDER BY a query ends with (before any LIMIT / OFFSET / FETCH)."""

    text: str
    items: tuple[OrderItem, ...]


def _tokens(sql: str) -> list[tuple[int, int, str, int]]:
    """(start, end, kind, depth) of each token outside quotes and comments: kind "word",
    "(" / ")", "," or ";"; quoted names are "name" tokens (their text keeps the quotes)."""
    out: list[tuple[int, int, str, int]] = []
    i, depth, n = 0, 0, len(sql)
    while i < n:
        c = sql[i]
        if c in "'\"`[":
            close = "]" if c == "[" else c
            j = i + 1
            while j < n:
                if sql[j] == close:
                    if j + 1 < n and sql[j + 1] == close and close != "]":  # a doubled quote
                        j += 2
                        continue
                    break
                j += 1
            out.append((i, min(j + 1, n), "string" if c == "'" else "name", depth))
            i = j + 1
        elif sql.startswith("--", i):
            j = sql.find("\n", i)
            i = n if j < 0 else j + 1
        elif sql.startswith("/*", i):
            j = sql.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif c == "(":
            out.append((i, i + 1, "(", depth))
            depth += 1
            i += 1
        elif c == ")":
            depth -= 1
            out.append((i, i + 1, ")", depth))
            i += 1
        elif c in ",;":
            out.append((i, i + 1, c, depth))
            i += 1
        else:
            m = _WORD.match(sql, i)
            if m:
                out.append((i, m.end(), "word", depth))
                i = m.end()
            else:
                i += 1
    return out


def top_level_order_by(sql: str) -> OrderBy | None:
    """The ORDER BY at the top level of ``sql`` (not one inside a subquery or a window), or
    None when the query has none."""
    toks = _tokens(sql)
    words = [(k, t) for k, t in enumerate(toks) if t[2] == "word" and t[3] == 0]
    start = None
    for (k, t), (k2, t2) in itertools.pairwise(words):
        if k2 == k + 1 and sql[t[0] : t[1]].upper() == "ORDER" and sql[t2[0] : t2[1]].upper() == "BY":
            start = k2 + 1
    if start is None:
        return None
    end_tok = len(toks)
    for k in range(start, len(toks)):
        s, e, kind, depth = toks[k]
        if depth == 0 and (kind == ";" or (kind == "word" and sql[s:e].upper() in _AFTER_ORDER)):
            end_tok = k
            break
    if start >= end_tok:
        return None
    begin, finish = toks[start][0], toks[end_tok - 1][1]
    items: list[OrderItem] = []
    cut = begin
    for s, _e, kind, depth in toks[start:end_tok]:
        if kind == "," and depth == 0:
            items.append(_item(sql[cut:s]))
            cut = s + 1
    items.append(_item(sql[cut:finish]))
    return OrderBy(sql[begin:finish].strip(), tuple(items))


def _item(text: str) -> OrderItem:
    words = text.split()
    nulls = None
    if len(words) >= 2 and words[-2].upper() == "NULLS" and words[-1].upper() in ("FIRST", "LAST"):
        nulls = words[-1].lower()
        words = words[:-2]
    descending = False
    if words and words[-1].upper() in ("ASC", "DESC"):
        descending = words[-1].upper() == "DESC"
        words = words[:-1]
    return OrderItem(" ".join(words), descending, nulls)


def bare_name(text: str) -> str | None:
    """The column name an expression is, unquoted (case kept where it was quoted, folded to
    lower case where not), or None when it is not a lone name."""
    text = text.strip()
    if len(text) >= 2 and text[0] in "\"`[" and text[-1] == ("]" if text[0] == "[" else text[0]):
        inner = text[1:-1]
        return None if text[0] in inner.replace(text[0] * 2, "") else inner.replace(text[0] * 2, text[0])
    return text.lower() if _WORD.fullmatch(text) else None


def quote_name(name: str, quote: str) -> str:
    """``name`` as a quoted identifier (``quote``: the database's identifier quote)."""
    close = "]" if quote == "[" else quote
    return quote + name.replace(close, close * 2) + close
