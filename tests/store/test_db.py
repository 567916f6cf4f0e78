"""negviz.store.db: where a store lives (its URL, a SQLite file and whether it opens read-only),
the engine's settings on each backend, one bulk write in the caller's transaction and the JSON
the store's columns hold. On SQLite and PostgreSQL (see tests/support/pg.py)."""

from __future__ import annotations

import numpy as np
import pytest
import sqlalchemy as sa

from negviz.store import db
from negviz.store import tables as t
from tests.store.test_run_table import make_record, make_scores
from tests.support.pg import pg_url, store, store_url  # noqa: F401  (fixtures)


def test_backend_settings(store, tmp_path):
    store.save_run(make_record(), make_scores(1))
    with db.read(store.engine) as conn:
        if store.dialect == "sqlite":
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        version = conn.execute(sa.select(t.meta.c.value).where(t.meta.c.key == "schema_version")).scalar()
    assert version == str(t.SCHEMA_VERSION)
    if store.dialect == "postgresql":
        assert "***" in store.url and store.engine.url.password not in store.url


def test_resolve_url(tmp_path, monkeypatch):
    assert db.resolve_url("postgresql://u:p@h:5/d").drivername == "postgresql+psycopg"
    assert db.resolve_url("postgresql+psycopg://u:p@h/d").drivername == "postgresql+psycopg"
    assert db.resolve_url(tmp_path / "a" / "r.sqlite").database == str(tmp_path / "a" / "r.sqlite")
    monkeypatch.setenv("NEGVIZ_DB_URL", f"sqlite:///{tmp_path}/env.sqlite")
    assert db.resolve_url(None).database == f"{tmp_path}/env.sqlite"
    monkeypatch.delenv("NEGVIZ_DB_URL")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert db.resolve_url(None).database == str(tmp_path / "xdg" / "negviz" / "results.sqlite")


def test_a_url_that_cannot_hold_a_store_is_one_clear_message(tmp_path):
    """Issue 47: /dev/null and a FIFO said "disk I/O error", /proc "disk is full", an unknown
    scheme SQLAlchemy's NoSuchModuleError; each now names the URL or the path and what to do."""
    import os

    from negviz.store import Store, StoreAccessError

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    cases = {
        "sqlite:////dev/null": "the results store /dev/null is not a regular file (a device, FIFO or socket)",
        f"sqlite:///{fifo}": f"the results store {fifo} is not a regular file",
        "sqlite:////proc/version": "the results store /proc/version lies on a file system that holds no files",
        "nonsense://": "the results store URL 'nonsense://' cannot be opened: no database driver is named 'nonsense'",
        "postgresql+nodriver://me:secret@host/db": "URL 'postgresql+nodriver://me:***@host/db' cannot be opened",
        "sqlite://" + ":" * 3: "it is not a database URL",
        "postgresql://me:secret@host:port/db": "URL 'postgresql://me:***@host:port/db' cannot be opened",
    }
    for url, words in cases.items():
        with pytest.raises(StoreAccessError) as info:
            Store(url).runs()
        message = str(info.value)
        assert words in message and "--db / NEGVIZ_DB_URL" in message and "secret" not in message, message
    assert os.path.exists("/dev/null") and fifo.is_fifo()


def test_sqlite_location_says_when_a_store_opens_read_only(tmp_path):
    path = tmp_path / "r.sqlite"
    assert db.sqlite_location(db.resolve_url(":memory:")) == db.SqliteLocation(None, False, False, "")
    new = db.sqlite_location(db.resolve_url(path))
    assert (new.path, new.exists, new.read_only) == (path, False, False)
    path.touch()
    asked = db.sqlite_location(sa.make_url(f"sqlite:///file:{path}?mode=ro&uri=true"))
    assert (asked.path, asked.exists, asked.read_only, asked.why) == (path, True, True, "opened with mode=ro")


def test_bulk_insert_and_fetch_tuples_stay_in_the_callers_transaction(store):
    run_id = store.save_run(make_record(), make_scores(1))
    rows = [(run_id, "x1", "pos", 0.25), (run_id, "x2", "pos", -1.5)]
    with pytest.raises(RuntimeError):
        with db.write(store.engine) as conn:
            db.bulk_insert(conn, t.item_scores, rows)
            raise RuntimeError("after the insert")  # the whole transaction rolls back
    with db.write(store.engine) as conn:
        db.bulk_insert(conn, t.item_scores, [])  # nothing to do
        db.bulk_insert(conn, t.item_scores, rows)
    query = (
        sa.select(t.item_scores.c.item_id, t.item_scores.c.score)
        .where(t.item_scores.c.item_id.in_(["x1", "x2"]))
        .order_by(t.item_scores.c.item_id)
    )
    with db.read(store.engine) as conn:
        assert [tuple(r) for r in db.fetch_tuples(conn, query)] == [("x1", 0.25), ("x2", -1.5)]


def test_dumps_writes_plain_sorted_json_and_refuses_other_objects():
    assert db.dumps({"b": np.int64(2), "a": float("nan")}) == '{"a": null, "b": 2}'
    with pytest.raises(TypeError, match="cannot store"):
        db.dumps({"x": object()})
