"""On-disk cache of embeddings and pair scores, keyed by model namespace and text hash.

One SQLite file (WAL mode, so several processes may read and write at once). A namespace
is a hash of everything that changes a model's output (model id, revision, family,
options); entries are the float32 vector of one text or the score of one text pair.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path
from typing import Iterable, Mapping

import numpy as np

_CHUNK = 900  # SQLite's default limit on host parameters is 999


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
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(self.path, timeout=60, check_same_thread=False)
        with self._lock:
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=NORMAL")
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS vectors (ns TEXT, key TEXT, dim INTEGER, data BLOB, PRIMARY KEY (ns, key))"
            )
            self._conn.execute("CREATE TABLE IF NOT EXISTS scores (ns TEXT, key TEXT, score REAL, PRIMARY KEY (ns, key))")
            self._conn.commit()

    # -- vectors
    def get_vectors(self, ns: str, keys: Iterable[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        for chunk in _chunks(list(keys)):
            q = f"SELECT key, data FROM vectors WHERE ns=? AND key IN ({','.join('?' * len(chunk))})"
            with self._lock:
                rows = self._conn.execute(q, [ns, *chunk]).fetchall()
            out.update((k, np.frombuffer(blob, dtype=np.float32)) for k, blob in rows)
        return out

    def put_vectors(self, ns: str, items: Mapping[str, np.ndarray]) -> None:
        rows = [(ns, k, int(v.size), np.asarray(v, dtype=np.float32).tobytes()) for k, v in items.items()]
        with self._lock:
            self._conn.executemany("INSERT OR REPLACE INTO vectors VALUES (?,?,?,?)", rows)
            self._conn.commit()

    # -- scores
    def get_scores(self, ns: str, keys: Iterable[str]) -> dict[str, float]:
        out: dict[str, float] = {}
        for chunk in _chunks(list(keys)):
            q = f"SELECT key, score FROM scores WHERE ns=? AND key IN ({','.join('?' * len(chunk))})"
            with self._lock:
                out.update(self._conn.execute(q, [ns, *chunk]).fetchall())
        return out

    def put_scores(self, ns: str, items: Mapping[str, float]) -> None:
        with self._lock:
            self._conn.executemany(
                "INSERT OR REPLACE INTO scores VALUES (?,?,?)", [(ns, k, float(v)) for k, v in items.items()]
            )
            self._conn.commit()

    def clear(self, ns: str | None = None) -> None:
        with self._lock:
            for table in ("vectors", "scores"):
                if ns is None:
                    self._conn.execute(f"DELETE FROM {table}")
                else:
                    self._conn.execute(f"DELETE FROM {table} WHERE ns=?", (ns,))
            self._conn.commit()

    def close(self) -> None:
        with self._lock:
            self._conn.close()


def _chunks(items: list[str]) -> Iterable[list[str]]:
    for i in range(0, len(items), _CHUNK):
        yield items[i : i + _CHUNK]
