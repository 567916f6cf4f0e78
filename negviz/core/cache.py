"""On-disk cache of embeddings and pair scores, keyed by model namespace and text hash.

One SQLite file (WAL mode, so several processes may read and write at once). A namespace
is a hash of everything that changes a model's output (model id, revision, family,
options); entries are the float32 vector of one text or the score of one text pair.

The cache only saves work, so a damaged file (truncated, overwritten, "database disk image
is malformed") never stops a run: it is moved aside as ``scores.sqlite.corrupt-<time>`` with
a warning, and an empty cache takes its place (on open, or at the first query that finds it).
Likewise a cache that cannot be written (a full disk, a read-only folder) warns once and the
run goes on without saving to it (in memory, when the file cannot even be opened).
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Callable, Iterable, Mapping, TypeVar

import numpy as np

_CHUNK = 900  # SQLite's default limit on host parameters is 999
_CORRUPT_CODES = {"SQLITE_CORRUPT", "SQLITE_NOTADB"}
log = logging.getLogger(__name__)
T = TypeVar("T")


def is_corruption(exc: BaseException) -> bool:
    """A SQLite error saying the file is damaged or not a database (not "locked", "readonly", ...)."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    name = getattr(exc, "sqlite_errorname", "") or ""
    if any(name == code or name.startswith(code + "_") for code in _CORRUPT_CODES):
        return True
    text = str(exc).lower()
    return "malformed" in text or "not a database" in text


def default_cache_dir() -> Path:
    env = os.environ.get("NEGVIZ_CACHE_DIR")
    if env:
        return Path(env)
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("negviz"))


class ScoreCache:
    """Vectors and scores by (namespace, key). Thread-safe; cheap to construct."""

    def __init__(self, path: str | Path | None = None):
        self.path = Path(path) if path else default_cache_dir() / "scores.sqlite"
        self._lock = threading.Lock()
        self.moved_aside: list[Path] = []  # damaged files this cache replaced
        self.unwritable: str | None = None  # why writes stopped (said once), else None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            try:
                self._conn = self._connect()
            except sqlite3.DatabaseError as exc:
                if not is_corruption(exc):
                    raise
                self._move_aside(exc)
                self._conn = self._connect()
        except (OSError, sqlite3.Error) as exc:  # full disk, read-only folder: this run caches in memory
            self._stop_writing(exc, "this run keeps its scores in memory only")
            self._conn = self._connect(":memory:")

    def _connect(self, target: str | Path | None = None) -> sqlite3.Connection:
        """Open (and create) the file. Processes opening a new cache at once contend for the
        switch to WAL, which SQLite answers "database is locked" without waiting: that is retried
        for up to a minute, or a builder would silently cache in memory and redo another's work."""
        deadline = time.monotonic() + 60
        while True:
            try:
                return self._open(target)
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def _open(self, target: str | Path | None) -> sqlite3.Connection:
        conn = sqlite3.connect(target or self.path, timeout=60, check_same_thread=False)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute(
                "CREATE TABLE IF NOT EXISTS vectors (ns TEXT, key TEXT, dim INTEGER, data BLOB, PRIMARY KEY (ns, key))"
            )
            conn.execute("CREATE TABLE IF NOT EXISTS scores (ns TEXT, key TEXT, score REAL, PRIMARY KEY (ns, key))")
            # Texts: a generative reranker's reasoning, an endpoint's responses (negviz.scorers.llm).
            conn.execute("CREATE TABLE IF NOT EXISTS texts (ns TEXT, key TEXT, text TEXT, PRIMARY KEY (ns, key))")
            conn.commit()
            # Cheap look at the first pages of both tables: a truncated file often fails here.
            conn.execute("SELECT ns, key, length(data) FROM vectors LIMIT 1").fetchall()
            conn.execute("SELECT ns, key, score FROM scores LIMIT 1").fetchall()
        except BaseException:
            conn.close()
            raise
        return conn

    def _move_aside(self, exc: BaseException) -> None:
        """Rename the damaged file (and its WAL/SHM) out of the way; the caller reconnects."""
        stamp = time.strftime("%Y%m%dT%H%M%S")
        target = self.path.with_name(f"{self.path.name}.corrupt-{stamp}-{os.getpid()}")
        for suffix in ("", "-wal", "-shm"):
            source = Path(f"{self.path}{suffix}")
            if source.exists():
                try:
                    os.replace(source, Path(f"{target}{suffix}"))
                except FileNotFoundError:  # another process moved it first
                    pass
        self.moved_aside.append(target)
        message = (
            f"the score cache {self.path} is damaged ({exc}); moved it to {target} and started an "
            "empty cache (scores are recomputed; delete the old file when you no longer need it)"
        )
        log.warning(message)  # on stderr in the CLI (logging's last-resort handler) and the server log

    def _stop_writing(self, exc: BaseException, then: str) -> None:
        """Say once why the cache cannot be written; the run goes on (the cache only saves work)."""
        if self.unwritable is not None:
            return
        from negviz.core.paths import free_bytes

        free = free_bytes(self.path.parent)
        self.unwritable = str(exc)
        log.warning(
            "the score cache %s cannot be written (%s; %s free on its disk); %s. Free some space or set "
            "NEGVIZ_CACHE_DIR to a writable folder.",
            self.path,
            exc,
            "unknown" if free is None else f"{free:,} bytes",
            then,
        )

    def _put(self, statement: str, rows: list[tuple]) -> None:
        if self.unwritable is not None:
            return
        try:
            self._run(lambda conn: _write(conn, statement, rows))
        except sqlite3.Error as exc:  # "database or disk is full", read-only, I/O error
            self._stop_writing(exc, "scores computed from now on are not saved to it")

    def _run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``work(conn)`` under the lock; a damaged file is replaced once and the work retried."""
        with self._lock:
            try:
                return work(self._conn)
            except sqlite3.DatabaseError as exc:
                if not is_corruption(exc):
                    raise
                try:
                    self._conn.close()
                except sqlite3.Error:
                    pass
                self._move_aside(exc)
                self._conn = self._connect()
                return work(self._conn)

    # -- vectors
    def get_vectors(self, ns: str, keys: Iterable[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        for chunk in _chunks(list(keys)):
            q = f"SELECT key, data FROM vectors WHERE ns=? AND key IN ({','.join('?' * len(chunk))})"
            rows = self._run(lambda conn: conn.execute(q, [ns, *chunk]).fetchall())
            out.update((k, np.frombuffer(blob, dtype=np.float32)) for k, blob in rows)
        return out

    def held_vectors(self, ns: str, keys: Iterable[str]) -> set[str]:
        """Which of ``keys`` have a vector in ``ns`` (the keys only: a plan counts what is left)."""
        out: set[str] = set()
        for chunk in _chunks(list(keys)):
            q = f"SELECT key FROM vectors WHERE ns=? AND key IN ({','.join('?' * len(chunk))})"
            out.update(k for (k,) in self._run(lambda conn: conn.execute(q, [ns, *chunk]).fetchall()))
        return out

    def put_vectors(self, ns: str, items: Mapping[str, np.ndarray]) -> None:
        rows = [(ns, k, int(v.size), np.asarray(v, dtype=np.float32).tobytes()) for k, v in items.items()]
        self._put("INSERT OR REPLACE INTO vectors VALUES (?,?,?,?)", rows)

    # -- scores
    def get_scores(self, ns: str, keys: Iterable[str]) -> dict[str, float]:
        out: dict[str, float] = {}
        for chunk in _chunks(list(keys)):
            q = f"SELECT key, score FROM scores WHERE ns=? AND key IN ({','.join('?' * len(chunk))})"
            out.update(self._run(lambda conn: conn.execute(q, [ns, *chunk]).fetchall()))
        return out

    def put_scores(self, ns: str, items: Mapping[str, float]) -> None:
        rows = [(ns, k, float(v)) for k, v in items.items()]
        self._put("INSERT OR REPLACE INTO scores VALUES (?,?,?)", rows)

    # -- texts
    def get_texts(self, ns: str, keys: Iterable[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        for chunk in _chunks(list(keys)):
            q = f"SELECT key, text FROM texts WHERE ns=? AND key IN ({','.join('?' * len(chunk))})"
            out.update(self._run(lambda conn: conn.execute(q, [ns, *chunk]).fetchall()))
        return out

    def put_texts(self, ns: str, items: Mapping[str, str]) -> None:
        rows = [(ns, k, str(v)) for k, v in items.items()]
        self._run(lambda conn: _write(conn, "INSERT OR REPLACE INTO texts VALUES (?,?,?)", rows))

    def claim(self, name: str):
        """A lock, across processes, on work whose results land in this cache (a file next to it):
        concurrent builders of the same thing take turns, and the second finds the first's work
        here instead of computing it again. Use as ``with cache.claim(name): ...``."""
        from filelock import FileLock

        return FileLock(self.path.parent / f"{self.path.name}.{name}.lock")

    def clear(self, ns: str | None = None) -> None:
        def work(conn: sqlite3.Connection) -> None:
            for table in ("vectors", "scores", "texts"):
                if ns is None:
                    conn.execute(f"DELETE FROM {table}")
                else:
                    conn.execute(f"DELETE FROM {table} WHERE ns=?", (ns,))
            conn.commit()

        self._run(work)

    def close(self) -> None:
        with self._lock:
            self._conn.close()


def _write(conn: sqlite3.Connection, statement: str, rows: list[tuple]) -> None:
    try:
        conn.executemany(statement, rows)
        conn.commit()
    except BaseException:
        conn.rollback()
        raise


def _chunks(items: list[str]) -> Iterable[list[str]]:
    for i in range(0, len(items), _CHUNK):
        yield items[i : i + _CHUNK]
