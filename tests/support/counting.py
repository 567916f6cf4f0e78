"""Counting the work a call does (SQL statements sent to a real engine, bytes taken from a file),
for tests that check a cost does not grow with the data instead of timing it (speeds are
benchmarks/' business)."""

from __future__ import annotations

import io
from contextlib import contextmanager
from typing import Iterator

import sqlalchemy as sa


@contextmanager
def statements(engine: sa.Engine) -> Iterator[list[str]]:
    """The SQL statements ``engine`` sends to its driver inside the block, one entry per cursor
    execute (an executemany of many rows is one). A PostgreSQL COPY goes through the driver's own
    cursor and is not seen."""
    sent: list[str] = []

    def record(_conn, _cursor, statement, _parameters, _context, _executemany) -> None:
        sent.append(statement)

    sa.event.listen(engine, "before_cursor_execute", record)
    try:
        yield sent
    finally:
        sa.event.remove(engine, "before_cursor_execute", record)


class CountingReader(io.RawIOBase):
    """A binary file over ``data`` that counts the bytes a reader took from it: a test of a
    bounded reader checks ``served`` stays near the bound however large the file is."""

    def __init__(self, data: bytes):
        super().__init__()
        self.data, self.at, self.served = data, 0, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = 0) -> int:
        self.at = (0, self.at, len(self.data))[whence] + offset
        return self.at

    def tell(self) -> int:
        return self.at

    def readinto(self, buffer) -> int:
        chunk = self.data[self.at : self.at + len(buffer)]
        buffer[: len(chunk)] = chunk
        self.at += len(chunk)
        self.served += len(chunk)
        return len(chunk)


@contextmanager
def constructed(cls: type) -> Iterator[list[tuple]]:
    """The positional arguments of every ``cls(...)`` made inside the block (the real constructor
    runs): e.g. whether a model was loaded at all."""
    made: list[tuple] = []
    real = cls.__init__

    def counting(self, *args, **kwargs) -> None:
        made.append(args)
        real(self, *args, **kwargs)

    cls.__init__ = counting
    try:
        yield made
    finally:
        cls.__init__ = real
