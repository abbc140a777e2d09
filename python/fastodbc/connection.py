"""``Connection``: the Python surface over the native connection."""

from __future__ import annotations

from types import TracebackType
from typing import Any

from . import _native, errors
from .constants import SQL_CHAR, SQL_SEARCH_PATTERN_ESCAPE, SQL_WCHAR, SQL_WMETADATA
from .cursor import Cursor
from .errors import NotSupportedError, ProgrammingError

__all__ = ["Connection"]

_UTF16 = {"utf-16", "utf-16le", "utf16", "utf16le", "utf_16", "utf_16_le"}
_UTF8 = {"utf-8", "utf8", "utf_8"}


def _normalise(encoding: str) -> str:
    return encoding.lower().replace(" ", "")


class Connection(errors.WithErrorClasses, _native.Connection):
    """An open ODBC connection (``fastodbc.connect()`` returns one).

    As in pyodbc, a connection used as a context manager commits when the block succeeds and
    rolls back when it raises; it is not closed.
    """

    def cursor(self) -> Cursor:
        """A new cursor on this connection."""
        return Cursor(self)

    @property
    def searchescape(self) -> str:
        """The driver's escape character for ``%`` and ``_`` in catalog search patterns
        (``SQLGetInfo(SQL_SEARCH_PATTERN_ESCAPE)``), read once."""
        escape = self.__dict__.get("_searchescape")
        if escape is None:
            escape = self.__dict__["_searchescape"] = self.getinfo(SQL_SEARCH_PATTERN_ESCAPE)
        return escape

    @property
    def maxwrite(self) -> int:
        """pyodbc's size above which it sends a parameter in pieces (``SQLPutData``); 0 (the
        default) or at least 255. Kept for compatibility: fastodbc binds every parameter
        whole, whatever its size, so the value changes nothing."""
        self._check_open()
        return self.__dict__.get("_maxwrite", 0)

    @maxwrite.setter
    def maxwrite(self, value: int) -> None:
        self._check_open()
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"maxwrite must be an int, not {type(value).__name__}")
        if value != 0 and value < 255:
            raise ValueError("Cannot set maxwrite less than 255 unless setting to 0.")
        self.__dict__["_maxwrite"] = value
        self._settings_changed()

    def _check_open(self) -> None:
        if self.closed:
            raise ProgrammingError("HY000", "Attempt to use a closed connection.")

    def execute(self, sql: str, *params: Any) -> Cursor:
        """Creates a cursor, executes ``sql`` on it and returns it."""
        return self.cursor().execute(sql, *params)

    def setdecoding(
        self, sqltype: int, encoding: str | None = None, ctype: int | None = None
    ) -> None:
        """Chooses how text columns of ``sqltype`` (SQL_CHAR or SQL_WCHAR) are fetched.

        ``utf-8`` fetches SQL_C_CHAR and decodes UTF-8 in Rust; ``utf-16le`` fetches SQL_C_WCHAR
        and decodes UTF-16 in Rust; any other Python codec fetches SQL_C_CHAR bytes and decodes
        them with that codec. ``ctype`` (SQL_CHAR / SQL_WCHAR) may force the C type.
        SQL_WMETADATA is accepted and ignored: metadata always uses the wide API.
        """
        if sqltype == SQL_WMETADATA:
            return
        if sqltype not in (SQL_CHAR, SQL_WCHAR):
            raise ValueError("sqltype must be SQL_CHAR, SQL_WCHAR or SQL_WMETADATA")
        if encoding is None:
            encoding = "utf-16le" if (ctype == SQL_WCHAR or sqltype == SQL_WCHAR) else "utf-8"
        enc = _normalise(encoding)
        if enc in _UTF16:
            if ctype == SQL_CHAR:
                raise NotSupportedError("HYC00", "UTF-16 text needs ctype SQL_WCHAR")
            kind = "utf16"
        elif ctype == SQL_WCHAR:
            raise NotSupportedError("HYC00", f"ctype SQL_WCHAR needs a UTF-16 encoding, not {encoding}")
        elif enc in _UTF8:
            kind = "utf8"
        else:
            "".encode(encoding)  # LookupError for an unknown codec, now rather than per value
            kind = "codec"
        self._set_decoding(sqltype == SQL_WCHAR, kind, encoding)

    def getdecoding(self, sqltype: int) -> tuple[str, int]:
        """``(encoding, ctype)`` used for text columns of ``sqltype``."""
        decoding = self._get_decoding(sqltype == SQL_WCHAR)
        return decoding.name, SQL_WCHAR if decoding.kind == "utf16" else SQL_CHAR

    def setencoding(self, encoding: str | None = None, ctype: int | None = None) -> None:
        """Chooses how ``str`` parameters are sent: UTF-16 (SQL_C_WCHAR) or UTF-8 (SQL_C_CHAR)."""
        enc = _normalise(encoding or ("utf-8" if ctype == SQL_CHAR else "utf-16le"))
        if enc in _UTF16 and ctype in (None, SQL_WCHAR):
            self._set_encoding(True)
        elif enc in _UTF8 and ctype in (None, SQL_CHAR):
            self._set_encoding(False)
        else:
            raise NotSupportedError(
                "HYC00", f"parameter text can be sent as UTF-16 or UTF-8, not {encoding}"
            )

    def __enter__(self) -> Connection:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.closed or self.autocommit:
            return
        if exc_type is None:
            self.commit()
        else:
            self.rollback()
