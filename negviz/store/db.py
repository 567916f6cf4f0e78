"""Engine setup for the store: URL choice, SQLite pragmas, write transactions, bulk inserts.

Everything dialect-specific lives here, so the rest of the store is plain SQLAlchemy Core.
"""

from __future__ import annotations

import json
import math
import os
import random
import sqlite3
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Sequence

import sqlalchemy as sa

URL_ENV = "NEGVIZ_DB_URL"
SQLITE_BUSY_SECONDS = 60  # how long a SQLite writer waits for another one before "database is locked"
_PG_SCHEMA_LOCK = 0x6E6567766979  # advisory lock id ("negviz") serialising table creation


def default_sqlite_path() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("negviz")) / "results.sqlite"


def resolve_url(url: str | Path | None = None) -> sa.URL:
    """The argument, else $NEGVIZ_DB_URL, else the per-user SQLite file; a bare path means SQLite."""
    if url is None or url == "":
        url = os.environ.get(URL_ENV) or default_sqlite_path()
    if str(url) == ":memory:":
        return sa.URL.create("sqlite")
    if isinstance(url, Path) or "://" not in str(url):
        return sa.URL.create("sqlite", database=str(Path(url).expanduser()))
    parsed = sa.make_url(str(url))
    # psycopg (v3) is the driver we ship; plain postgresql:// would ask for psycopg2.
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed


def make_engine(url: sa.URL) -> sa.Engine:
    common = dict(json_serializer=dumps, json_deserializer=json.loads)
    if url.get_backend_name() == "sqlite":
        # (a "file:...?uri=true" URL, e.g. mode=ro for a read-only viewer, names no folder to make)
        if url.database not in (None, "", ":memory:") and not url.database.startswith("file:"):
            Path(url.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        engine = sa.create_engine(
            url, connect_args={"timeout": SQLITE_BUSY_SECONDS, "check_same_thread": False}, **common
        )
        sa.event.listen(engine, "connect", _sqlite_connect)
        sa.event.listen(engine, "begin", _sqlite_begin)
        return engine
    return sa.create_engine(url, pool_pre_ping=True, **common)


def _sqlite_connect(dbapi_conn, _record) -> None:
    # pysqlite's own transaction handling defers BEGIN and cannot do BEGIN IMMEDIATE: take it over.
    dbapi_conn.isolation_level = None
    cur = dbapi_conn.cursor()
    _use_wal(cur)  # readers never block the writer, nor it them
    cur.execute("PRAGMA synchronous=NORMAL")  # safe with WAL; a crash can lose only the last commit
    cur.execute("PRAGMA foreign_keys=ON")  # off by default in SQLite: cascades need it
    cur.close()


def _use_wal(cur, attempts: int = 200) -> None:
    """Switch the file to WAL (persistent: once switched, every later connection finds it so).
    The switch needs the file to itself and SQLite answers "database is locked" at once, without
    its busy timeout, when another process opens the new file at that moment: wait and retry."""
    for attempt in range(attempts):
        try:
            mode = cur.execute("PRAGMA journal_mode").fetchone()[0]
            if str(mode).lower() in ("wal", "memory"):  # done, or an in-memory database
                return
            cur.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc) or attempt == attempts - 1:
                raise
            time.sleep(random.uniform(0.005, 0.05))  # jitter: the other opener finishes in ms


def _sqlite_begin(conn: sa.Connection) -> None:
    # A write transaction takes the write lock up front (waiting up to the busy timeout). A deferred
    # one that reads first and writes later fails at once with SQLITE_BUSY if another writer won.
    writing = conn.get_execution_options().get("negviz_write", False)
    conn.exec_driver_sql("BEGIN IMMEDIATE" if writing else "BEGIN")


@contextmanager
def write(engine: sa.Engine) -> Iterator[sa.Connection]:
    """One short write transaction: commit on success, roll back everything on any error."""
    with engine.connect() as conn:
        conn.execution_options(negviz_write=True)
        with conn.begin():
            yield conn


@contextmanager
def read(engine: sa.Engine) -> Iterator[sa.Connection]:
    with engine.connect() as conn:
        yield conn


@contextmanager
def schema_transaction(engine: sa.Engine) -> Iterator[sa.Connection]:
    """A write transaction that no other process's schema_transaction runs beside, so several
    processes opening a new database at once create its tables exactly once."""
    with write(engine) as conn:  # on SQLite, BEGIN IMMEDIATE already serialises writers
        if conn.dialect.name == "postgresql":
            conn.execute(sa.select(sa.func.pg_advisory_xact_lock(_PG_SCHEMA_LOCK)))
        yield conn


def bulk_insert(conn: sa.Connection, table: sa.Table, rows: Sequence[tuple]) -> None:
    """Insert many rows (tuples in the table's column order) inside the caller's transaction."""
    if not rows:
        return
    names = [c.name for c in table.columns]
    if conn.dialect.name == "postgresql":
        # COPY is ~10x faster than executemany; it runs on the same connection, so same transaction.
        statement = f"COPY {table.name} ({', '.join(names)}) FROM STDIN"
        driver_error = conn.dialect.loaded_dbapi.Error
        try:
            with conn.connection.driver_connection.cursor() as cur, cur.copy(statement) as copy:
                for row in rows:
                    copy.write_row(row)
        except driver_error as exc:  # raise what SQLAlchemy would (IntegrityError, ...), as on SQLite
            raise sa.exc.DBAPIError.instance(statement, None, exc, driver_error, dialect=conn.dialect) from exc
    else:
        # The driver's executemany with plain tuples, same transaction: several times faster than
        # SQLAlchemy's insert() with one dict per row (which matters for 100,000-row runs).
        marks = ", ".join("?" * len(names))
        conn.exec_driver_sql(f"INSERT INTO {table.name} ({', '.join(names)}) VALUES ({marks})", list(rows))


def fetch_tuples(conn: sa.Connection, query: sa.Select) -> list[tuple]:
    """All rows of a query as plain tuples, read through the driver's cursor: no per-row
    SQLAlchemy result processing, for the bulk reads of item scores (plain str/float columns)."""
    compiled = query.compile(dialect=conn.dialect, compile_kwargs={"render_postcompile": True})
    if conn.dialect.name == "postgresql":
        params = compiled.params
    else:  # pysqlite's paramstyle is qmark: positional parameters in the compiled order
        params = tuple(compiled.params[name] for name in compiled.positiontup)
    cursor = conn.connection.driver_connection.cursor()
    try:
        cursor.execute(str(compiled), params)
        return cursor.fetchall()
    finally:
        cursor.close()


# ---------------------------------------------------------------- JSON
def dumps(obj: Any) -> str:
    """JSON for the store's JSON columns: numpy scalars become Python, NaN/inf become null
    (PostgreSQL's json has no NaN, and both backends must read back the same thing)."""
    return json.dumps(_plain(obj), allow_nan=False, sort_keys=True)


def _plain(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    if hasattr(obj, "tolist") and not isinstance(obj, (str, bytes)):  # numpy scalars and arrays
        return _plain(obj.tolist())
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, (str, int, float, bool)) or obj is None:
        return obj
    if hasattr(obj, "isoformat"):
        return obj.isoformat()
    if isinstance(obj, Path):
        return str(obj)
    raise TypeError(f"cannot store {type(obj).__name__} {obj!r} as JSON; use str, numbers, lists or dicts")
