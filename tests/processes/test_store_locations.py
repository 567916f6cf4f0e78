"""Stores and caches on disks that refuse writes (issue 21, case 5), on real file systems.

A store in a read-only place opens read-only: `negviz runs` lists it, a write is refused with a
message. A full disk is a message naming the path and the free space. A score cache that cannot
be written warns once and the run goes on. Root ignores chmod, so the read-only place is a
read-only bind mount and the full disk a 1 MB tmpfs, both made here (skipped, with the reason,
where this process may not mount); SQLite's own "?mode=ro&uri=true" needs no mount.
The pages on a read-only store (AppTest): tests/pages/test_read_only_store_page.py."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import uuid
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAIRS = ROOT / "tests" / "data" / "pairs.csv"
PAIRS_MAP = "pair_id=id,q1=query1,d1=doc1,q2=query2,d2=doc2"


def negviz(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "negviz", *args], capture_output=True, text=True, env=env, timeout=600, cwd=ROOT
    )


def no_traceback(done: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in done.stderr, done.stderr[-3000:]


@contextmanager
def mounted(target: Path, *options: str):
    """``mount OPTIONS target`` for the block, unmounted after; skips where mounting is refused."""
    target.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", *options, str(target)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount here ({' '.join(options)}): {done.stderr.strip() or 'not root'}")
    try:
        yield target
    finally:
        subprocess.run(["umount", "-l", str(target)], capture_output=True)


def fill(folder: Path) -> None:
    """Write until the disk is full (a tmpfs: no space is held back for root)."""
    with open(folder / f"fill-{uuid.uuid4().hex[:6]}", "wb", buffering=0) as out:
        for size in (1 << 16, 512, 1):  # big blocks, then the last bytes
            try:
                while out.write(b"\0" * size):
                    pass
            except OSError:
                pass
    assert os.statvfs(folder).f_bavail == 0


@pytest.fixture(scope="module")
def stored_once(tmp_path_factory) -> Path:
    """A store holding one run (TF-IDF on 5 NevIR pairs), made by the CLI once for the module and
    closed cleanly (no -wal/-shm left)."""
    folder = tmp_path_factory.mktemp("stored")
    db = folder / "results.sqlite"
    done = negviz(
        "--db",
        str(db),
        "eval",
        "--model",
        "tfidf",
        "--dataset",
        "nevir",
        "--limit",
        "5",
        "--quiet",
        env={"NEGVIZ_CACHE_DIR": str(folder / "cache")},
    )
    assert done.returncode == 0, done.stderr
    assert not Path(f"{db}-shm").exists()
    return db


@pytest.fixture
def stored(stored_once, tmp_path) -> Path:
    """The test's own copy of that store, alone in its folder (a test mounts the folder read-only
    or changes the store's journal mode): a CLI child per test cost 10-16 s under load."""
    db = tmp_path / "store" / "results.sqlite"
    db.parent.mkdir()
    for side in ("", "-wal"):  # a log the last close left, if any, goes with it
        if Path(f"{stored_once}{side}").exists():
            shutil.copyfile(f"{stored_once}{side}", f"{db}{side}")
    return db


def test_a_store_on_a_read_only_mount_lists_runs_and_refuses_writes(stored, tmp_path):
    with mounted(tmp_path / "ro", "--bind", "-o", "ro", str(stored.parent)) as ro:
        db = str(ro / stored.name)
        runs = negviz("--db", db, "runs")
        no_traceback(runs)
        assert runs.returncode == 0 and "tfidf" in runs.stdout
        add = negviz("--db", db, "datasets", "add", "mypairs", str(PAIRS), "--kind", "pairs", "--columns", PAIRS_MAP)
        no_traceback(add)
        assert add.returncode == 2 and f"the results store {db} cannot be written (read-only" in add.stderr
        evaluate = negviz(
            "--db",
            db,
            "eval",
            "--model",
            "bm25",
            "--dataset",
            "nevir",
            "--limit",
            "5",
            "--quiet",
            env={"NEGVIZ_CACHE_DIR": str(tmp_path / "cache")},
        )
        no_traceback(evaluate)
        assert evaluate.returncode == 2 and "read-only" in evaluate.stderr
    assert "mypairs" not in negviz("--db", str(stored), "datasets").stdout


def test_sqlite_mode_ro_url_reads_a_store_not_in_wal_mode(stored):
    with sqlite3.connect(stored) as conn:  # a store written by another tool, in rollback-journal mode
        conn.execute("PRAGMA journal_mode=DELETE")
    url = f"sqlite:///file:{stored}?mode=ro&uri=true"
    runs = negviz("--db", url, "runs")
    no_traceback(runs)
    assert runs.returncode == 0 and "tfidf" in runs.stdout
    add = negviz("--db", url, "datasets", "add", "mypairs", str(PAIRS), "--kind", "pairs", "--columns", PAIRS_MAP)
    no_traceback(add)
    assert add.returncode == 2 and "(read-only: opened with mode=ro" in add.stderr


def test_a_full_disk_is_a_message_with_the_path_and_the_free_space(stored, tmp_path):
    with mounted(tmp_path / "full", "-t", "tmpfs", "-o", "size=1m", "tmpfs") as full:
        db = full / "results.sqlite"
        db.write_bytes(stored.read_bytes())  # an existing store (WAL mode) ...
        fill(full)  # ... then the disk fills up
        for path in (db, full / "new.sqlite"):
            done = negviz("--db", str(path), "runs")
            no_traceback(done)
            assert done.returncode == 2
            assert f"the disk holding the results store {path} is full (0 bytes free)" in done.stderr


def test_a_score_cache_on_a_full_disk_warns_once_and_the_eval_goes_on(tmp_path):
    db = str(tmp_path / "results.sqlite")
    with mounted(tmp_path / "full", "-t", "tmpfs", "-o", "size=1m", "tmpfs") as full:
        from negviz.core.cache import ScoreCache

        ScoreCache(full / "scores.sqlite").close()  # the cache exists, then its disk fills up
        fill(full)
        done = negviz(
            "--db",
            db,
            "eval",
            "--model",
            "tfidf",
            "--dataset",
            "nevir",
            "--limit",
            "50",
            "--quiet",
            env={"NEGVIZ_CACHE_DIR": str(full)},
        )
        no_traceback(done)
        assert done.returncode == 0, done.stderr
        assert done.stderr.count("cannot be written") == 1, done.stderr
        assert f"the score cache {full / 'scores.sqlite'}" in done.stderr and "0 bytes free" in done.stderr
        # and a cache folder that cannot even be created: the run caches in memory
        done = negviz(
            "--db",
            db,
            "eval",
            "--model",
            "bm25",
            "--dataset",
            "nevir",
            "--limit",
            "50",
            "--quiet",
            env={"NEGVIZ_CACHE_DIR": str(full / "sub" / "dir")},
        )
        no_traceback(done)
        assert done.returncode == 0 and done.stderr.count("cannot be written") == 1, done.stderr


def test_a_store_url_that_cannot_hold_a_store_exits_with_one_line(tmp_path):
    """Issue 47: /dev/null or a FIFO said "disk I/O error" in a traceback, /proc "disk is full"."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for url in ("sqlite:////dev/null", f"sqlite:///{fifo}", "sqlite:////proc/version", "nonsense://"):
        done = negviz("runs", env={"NEGVIZ_DB_URL": url})
        no_traceback(done)
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        assert done.stderr.startswith("negviz: error: the results store ") and "NEGVIZ_DB_URL" in done.stderr
