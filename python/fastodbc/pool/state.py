"""What a pool restores when a connection comes back: the state ``configure`` left it in."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..connection import Connection
from ..constants import SQL_CHAR, SQL_WCHAR

__all__ = ["SessionState"]


@dataclass(frozen=True)
class SessionState:
    """A connection's user-settable state, read once after ``configure``."""

    autocommit: bool
    timeout: int
    read_ahead: bool
    fetch_buffer_bytes: int
    decoding_char: tuple[str, int]
    decoding_wchar: tuple[str, int]
    encoding_wide: bool
    converters: dict[int, Any]
    maxwrite: int

    @classmethod
    def read(cls, cnxn: Connection) -> SessionState:
        return cls(
            autocommit=cnxn.autocommit,
            timeout=cnxn.timeout,
            read_ahead=cnxn.read_ahead,
            fetch_buffer_bytes=cnxn.fetch_buffer_bytes,
            decoding_char=cnxn.getdecoding(SQL_CHAR),
            decoding_wchar=cnxn.getdecoding(SQL_WCHAR),
            encoding_wide=cnxn._get_encoding(),
            converters=cnxn._output_converters(),
            maxwrite=cnxn.maxwrite,
        )

    def restore(self, cnxn: Connection) -> None:
        """Puts back what differs: a driver call only for autocommit, and only if it changed.
        An open transaction must already be rolled back."""
        if cnxn.autocommit != self.autocommit:
            cnxn.autocommit = self.autocommit
        if cnxn.timeout != self.timeout:
            cnxn.timeout = self.timeout
        if cnxn.read_ahead != self.read_ahead:
            cnxn.read_ahead = self.read_ahead
        if cnxn.fetch_buffer_bytes != self.fetch_buffer_bytes:
            cnxn.fetch_buffer_bytes = self.fetch_buffer_bytes
        for sqltype, (encoding, ctype) in ((SQL_CHAR, self.decoding_char), (SQL_WCHAR, self.decoding_wchar)):
            if cnxn.getdecoding(sqltype) != (encoding, ctype):
                cnxn.setdecoding(sqltype, encoding, ctype)
        if cnxn._get_encoding() != self.encoding_wide:
            cnxn._set_encoding(self.encoding_wide)
        if cnxn._output_converters() != self.converters:
            cnxn.clear_output_converters()
            for sqltype, func in self.converters.items():
                cnxn.add_output_converter(sqltype, func)
        if cnxn.maxwrite != self.maxwrite:
            cnxn.maxwrite = self.maxwrite
