"""Copies of the shipped-runs store lent to a test module's tests one after another (conftest
``app_env``): a copy is 181 MB, and copying it for every test took ~0.4 s each. A copy is lent
again only while no test has changed it: the next test after one that wrote (or changed its
mode) gets a fresh copy, so every test still starts from the shipped runs alone."""

from __future__ import annotations

import shutil
from pathlib import Path

SIDE_FILES = ("", "-wal", "-journal")  # what a write through SQLite changes (-shm: readers too)


def store_in(folder: Path, source: Path) -> str:
    """The URL of ``folder``/results.sqlite, made a copy of the store ``source`` (the shipped runs
    with their scores in: an app opening it has no copy of them to make in the background)."""
    shutil.copyfile(source, folder / "results.sqlite")
    return f"sqlite:///{folder / 'results.sqlite'}"


def fingerprint(db: Path) -> tuple:
    """Size, modification time and mode of the store file and of its write-ahead log and
    rollback journal; an empty or missing log or journal reads the same (a reader opening the
    store creates an empty log, and the last connection to close removes it)."""
    marks = []
    for suffix in SIDE_FILES:
        try:
            st = Path(f"{db}{suffix}").stat()
        except FileNotFoundError:
            marks.append(None)
            continue
        marks.append(None if suffix and st.st_size == 0 else (st.st_size, st.st_mtime_ns, st.st_mode))
    return tuple(marks)


class StoreCopies:
    """Copies of ``source`` in ``folder``, each lent until a test changes it."""

    def __init__(self, source: Path, folder: Path) -> None:
        self.source, self.folder = source, folder
        self.made = 0  # copies made (a test reads it to see the lending work)
        self._clean: tuple[Path, tuple] | None = None

    def lend(self) -> tuple[Path, tuple]:
        """A copy no test has changed, and its fingerprint now."""
        if self._clean is None or fingerprint(self._clean[0]) != self._clean[1]:
            self.made += 1
            copy = self.folder / f"copy-{self.made}" / "results.sqlite"
            copy.parent.mkdir()
            shutil.copyfile(self.source, copy)
            self._clean = (copy, fingerprint(copy))
        return self._clean

    def give_back(self, copy: Path, lent_as: tuple) -> None:
        """After the test: a copy it changed is never lent again (and its files go: the disk is shared)."""
        if fingerprint(copy) != lent_as:
            if self._clean is not None and self._clean[0] == copy:
                self._clean = None
            shutil.rmtree(copy.parent, ignore_errors=True)

    def remove(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)
