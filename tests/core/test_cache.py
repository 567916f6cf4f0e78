"""Work that survives a crash: scoring resumes after SIGKILL, a damaged score cache is replaced.
Processes killed or opening the cache at once: tests/concurrency/test_cache_processes.py."""

from __future__ import annotations

import logging
import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np

from negviz.core.cache import ScoreCache
from negviz.core.paths import ROOT

TEXTS = [f"text number {i}: the king did {'not ' * (i % 3)}win war {i % 17}" for i in range(600)]

CHILD = textwrap.dedent(
    """
    import sys, threading
    from negviz.core.cache import ScoreCache
    from negviz.evaluation.catalog import load_scorer
    from negviz.core.schema import ModelSpec

    model, cache_path, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    texts = [f"text number {i}: the king did {'not ' * (i % 3)}win war {i % 17}" for i in range(n)]
    scorer = load_scorer(ModelSpec.make(model, family="bi-encoder"), device="cpu",
                         cache=ScoreCache(cache_path), batch_size=8)
    scorer.checkpoint_every = 32

    def stop_mid_way(done, total, desc):  # held here until the parent kills it, mid-way
        print(done, flush=True)
        if done > 64:  # two checkpoints of 32 are in the cache; the third is being encoded
            threading.Event().wait()

    scorer.embed(texts, progress=stop_mid_way)
    print("finished", flush=True)
    """
)


def _stored_vectors(path: Path) -> int:
    try:
        with sqlite3.connect(path, timeout=5) as conn:
            return conn.execute("SELECT count(*) FROM vectors").fetchone()[0]
    except sqlite3.OperationalError:  # not created yet
        return 0


# ---------------------------------------------------------------- damaged score cache
def _filled_cache(path: Path, n: int = 3000) -> list[str]:
    cache = ScoreCache(path)
    keys = [f"k{i}" for i in range(n)]
    rng = np.random.default_rng(0)
    cache.put_vectors("ns", {k: rng.random(384, dtype=np.float32) for k in keys})
    cache.put_scores("ns", {k: float(i) for i, k in enumerate(keys)})
    cache._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # everything in the main file
    cache.close()
    return keys


def _check_replaced(cache: ScoreCache, path: Path, caplog) -> None:
    assert len(cache.moved_aside) == 1
    aside = cache.moved_aside[0]
    assert aside.name.startswith("scores.sqlite.corrupt-") and aside.exists()
    assert "is damaged" in caplog.text and str(aside) in caplog.text
    cache.put_scores("ns", {"a": 1.5})  # the fresh cache works
    assert cache.get_scores("ns", ["a"]) == {"a": 1.5}
    assert path.exists()


def test_garbage_cache_file_is_moved_aside(tmp_path, caplog):
    path = tmp_path / "scores.sqlite"
    path.write_bytes(b"this is not a database\n" * 500)
    with caplog.at_level(logging.WARNING, logger="negviz.core.cache"):
        cache = ScoreCache(path)
    _check_replaced(cache, path, caplog)
    assert cache.moved_aside[0].read_bytes().startswith(b"this is not a database")


def test_truncated_cache_is_moved_aside_on_open(tmp_path, caplog):
    path = tmp_path / "scores.sqlite"
    _filled_cache(path)
    with open(path, "r+b") as f:
        f.truncate(path.stat().st_size // 2)
    with caplog.at_level(logging.WARNING, logger="negviz.core.cache"):
        cache = ScoreCache(path)
    _check_replaced(cache, path, caplog)


def test_damage_found_by_a_later_query_is_moved_aside(tmp_path, caplog):
    path = tmp_path / "scores.sqlite"
    keys = _filled_cache(path)
    size = path.stat().st_size
    with open(path, "r+b") as f:  # overwrite pages in the middle: the file opens, a full read fails
        f.seek(size // 2)
        f.write(np.random.default_rng(1).bytes(size // 4))
    with caplog.at_level(logging.WARNING, logger="negviz.core.cache"):
        cache = ScoreCache(path)
        assert cache.moved_aside == []  # opening alone did not notice
        cache.get_vectors("ns", keys)
    _check_replaced(cache, path, caplog)


def test_cli_run_goes_on_with_a_garbage_cache(tmp_path):
    cache_dir = tmp_path / "cache"
    cache_dir.mkdir()
    (cache_dir / "scores.sqlite").write_bytes(os.urandom(8192))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NEGVIZ_CACHE_DIR": str(cache_dir), "HF_HUB_OFFLINE": "1"}
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "negviz",
            "--db",
            f"sqlite:///{tmp_path / 'r.sqlite'}",
            "eval",
            "--model",
            "tfidf",
            "--dataset",
            "nevir",
            "--limit",
            "5",
            "--quiet",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert "score cache" in out.stderr and "is damaged" in out.stderr and "corrupt-" in out.stderr
    assert "malformed" not in out.stdout
    assert len(list(cache_dir.glob("scores.sqlite.corrupt-*"))) == 1


OPEN_AT_ONCE = """
import sys
from pathlib import Path
from negviz.core.cache import ScoreCache
Path(sys.argv[2]).touch()  # imported: ready
sys.stdin.readline()  # every process opens the new file at the same instant, when the parent says go
print(ScoreCache(sys.argv[1]).unwritable)
"""


def _all_ready(folder: Path, procs: list[subprocess.Popen]) -> bool:
    """Every process has written its ready file (or one has ended, which the test then reports)."""
    return len(list(folder.glob("ready*"))) == len(procs) or any(p.poll() is not None for p in procs)


def test_cache_round_trip(tmp_path):
    cache = ScoreCache(tmp_path / "c.sqlite")
    cache.put_vectors("ns", {"a": np.array([1.0, 2.0], dtype=np.float32)})
    cache.put_scores("ns", {"p": 0.5})
    assert cache.get_vectors("ns", ["a", "b"])["a"].tolist() == [1.0, 2.0]
    assert cache.get_scores("ns", ["p", "q"]) == {"p": 0.5}
    assert cache.get_scores("other", ["p"]) == {}
    again = ScoreCache(tmp_path / "c.sqlite")  # another process would see the same
    assert again.get_scores("ns", ["p"]) == {"p": 0.5}
