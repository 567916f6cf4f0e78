"""A user's text file read through a limit on each record, so no record is ever held whole when it
is over it: a 300 MB CSV cell or a 300 MB TREC line is refused after its first ``max_bytes``.

A record is a line; in CSV and TSV (``quoted``) a newline inside double quotes does not end one,
so a quoted cell cannot slip past the limit a line at a time. The refusal names the line where
the record starts and shows its first characters.
"""

from __future__ import annotations

import io
import re
from typing import IO

from negviz.core.errors import DataValidationError
from negviz.core.limits import SHOWN_CHARS

_QUOTE_OR_NEWLINE = re.compile(rb'["\n]')
_NEWLINE = re.compile(rb"\n")


class RecordTooLong(DataValidationError):
    """A record over the reader's limit (a DataValidationError naming the file and the line)."""


class BoundedRecords(io.RawIOBase):
    """``raw`` (a binary file) as a raw stream that raises RecordTooLong the moment a record
    grows past ``max_bytes``; wrap it in ``io.BufferedReader`` to read lines or hand it to pandas."""

    def __init__(self, raw: IO[bytes], name: str, max_bytes: int, *, quoted: bool, what: str):
        super().__init__()
        self.raw, self.name, self.max_bytes, self.what = raw, name, max_bytes, what
        self._events = _QUOTE_OR_NEWLINE if quoted else _NEWLINE
        self.line = 1  # the physical line being read
        self._record_line = 1  # the line the current record started on
        self._length = 0  # bytes of the current record so far
        self._start = bytearray()  # its first bytes, for the message
        self._in_quotes = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        data = self.raw.read(len(buffer))
        if not data:
            return 0
        self._scan(data)
        buffer[: len(data)] = data
        return len(data)

    def _scan(self, data: bytes) -> None:
        if not self._in_quotes and (self._events is _NEWLINE or b'"' not in data):
            return self._scan_lines(data)
        at = 0
        for event in self._events.finditer(data):
            end = event.end()
            self._grow(data[at:end])
            at = end
            if data[event.start()] == ord('"'):
                self._in_quotes = not self._in_quotes  # a doubled quote toggles twice: still inside
                continue
            if self._in_quotes:
                self.line += 1
            else:
                self._new_record(self.line + 1)
        self._grow(data[at:])

    def _scan_lines(self, data: bytes) -> None:
        """A block without quotes: its lines measured at C speed, the record that goes on past it kept."""
        lines = data.split(b"\n")
        if len(lines) == 1:
            return self._grow(data)
        self._grow(lines[0] + b"\n")  # the record going on from the last block ends here
        lengths = list(map(len, lines[1:-1]))
        if lengths and max(lengths) + 1 > self.max_bytes:
            first = next(i for i, n in enumerate(lengths) if n + 1 > self.max_bytes)
            self._new_record(self.line + 1 + first)
            self._grow(lines[1 + first] + b"\n")  # raises, naming that line
        self._new_record(self.line + len(lines) - 1)
        self._grow(lines[-1])

    def _new_record(self, line: int) -> None:
        self.line = self._record_line = line
        self._length, self._start = 0, bytearray()

    def _grow(self, part: bytes) -> None:
        if len(self._start) < 4 * SHOWN_CHARS:
            self._start += part[: 4 * SHOWN_CHARS - len(self._start)]
        self._length += len(part)
        if self._length > self.max_bytes:
            start = self._start.decode("utf-8", errors="replace")[:SHOWN_CHARS]
            raise RecordTooLong(
                f"line {self._record_line:,} holds a {self.what} of more than {self.max_bytes:,} bytes (it starts "
                f"{start!r}...); nothing was read past it. Is this the right file?",
                file=self.name,
            )


def bounded_lines(raw: IO[bytes], name: str, max_bytes: int, *, quoted: bool, what: str) -> io.BufferedReader:
    """``raw`` read through BoundedRecords, buffered (lines can be iterated, pandas can read it)."""
    return io.BufferedReader(BoundedRecords(raw, name, max_bytes, quoted=quoted, what=what))
