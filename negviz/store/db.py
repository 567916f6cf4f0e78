"""Engine setup for the store: URL choice, SQLite pragmas, write transactions, bulk inserts.

Everything dialect-specific lives here, so the rest of the store is plain SQLAlchemy Core.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Sequence
from urllib.parse import quote, unquote

import sqlalchemy as sa

from negviz.core import json_values
from negviz.core.paths import free_bytes
from negviz.store.record import StoreAccessError, StoreUnavailableError

URL_ENV = "NEGVIZ_DB_URL"
SQLITE_BUSY_SECONDS = 60  # how long a SQLite writer waits for another one before "database is locked"
PG_CONNECT_SECONDS = 5  # how long a PostgreSQL connection attempt waits for the server
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
    try:
        parsed = sa.make_url(str(url))
    except (sa.exc.ArgumentError, ValueError) as exc:  # ValueError: a port that is not a number
        raise StoreAccessError(_unknown_url(str(url), "it is not a database URL")) from exc
    # psycopg (v3) is the driver we ship; plain postgresql:// would ask for psycopg2.
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed


def make_engine(url: sa.URL) -> sa.Engine:
    common = dict(json_serializer=dumps, json_deserializer=json.loads)
    if url.get_backend_name() == "sqlite":
        location = sqlite_location(url)
        if location.path is not None and location.exists:
            _refuse_what_is_not_a_file(location.path)
        if location.path is not None and not location.exists:
            try:
                location.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreAccessError(
                    f"cannot create the folder of the results store {location.path}: "
                    f"{exc.strerror}; choose another store with --db / NEGVIZ_DB_URL"
                ) from exc
        connect_args = {"timeout": SQLITE_BUSY_SECONDS, "check_same_thread": False}
        if location.read_only:  # our own connect: read-only, and immutable where nothing can write
            common["creator"] = lambda: _connect_read_only(location.path)
        engine = sa.create_engine(url, connect_args=connect_args, **common)
        sa.event.listen(engine, "connect", _sqlite_connect)
        sa.event.listen(engine, "begin", _sqlite_begin)
    else:
        # A server that does not answer is said within seconds, not after TCP's minutes.
        timeout = {} if "connect_timeout" in url.query else {"connect_args": {"connect_timeout": PG_CONNECT_SECONDS}}
        try:
            engine = sa.create_engine(url, pool_pre_ping=True, **timeout, **common)
        except (sa.exc.NoSuchModuleError, sa.exc.ArgumentError) as exc:
            why = f"no database driver is named {url.drivername!r}"
            raise StoreAccessError(_unknown_url(url.render_as_string(hide_password=True), why)) from exc
    sa.event.listen(engine, "handle_error", _explain)
    return engine


def _unknown_url(shown: str, why: str) -> str:
    import re

    shown = re.sub(r"(//[^:/@]*:)[^@/]*@", r"\1***@", shown)  # a password never shown
    shown = shown if len(shown) <= 60 else f"{shown[:60]}…"
    return (
        f"the results store URL {shown!r} cannot be opened: {why}. Give --db / NEGVIZ_DB_URL a SQLite file "
        "path (or sqlite:///PATH), or postgresql://USER:PASSWORD@HOST/DATABASE."
    )


def _refuse_what_is_not_a_file(path: Path) -> None:
    """A device, a FIFO or a socket is never a store (SQLite says only "disk I/O error")."""
    import stat

    try:
        mode = os.stat(path).st_mode
    except OSError:
        return
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):  # a folder: SQLite's CANTOPEN says so (_cannot_open)
        raise StoreAccessError(
            f"the results store {path} is not a regular file (a device, FIFO or socket), so it cannot hold a "
            "store: give --db / NEGVIZ_DB_URL a store file (a new path creates one). Nothing was changed."
        )


# ---------------------------------------------------------------- where a SQLite store lives
@dataclass(frozen=True)
class SqliteLocation:
    path: Path | None  # None: in memory
    exists: bool
    read_only: bool  # opened read-only: asked for (mode=ro), or the file or its folder is not writable
    why: str  # why read-only, for messages


def sqlite_location(url: sa.URL) -> SqliteLocation:
    """The file behind a SQLite URL (a plain path, or "file:PATH?mode=ro&uri=true") and whether
    to open it read-only. Root ignores permissions but not a read-only mount: os.access knows both."""
    database = url.database or ""
    if database in ("", ":memory:") or url.query.get("mode") == "memory":
        return SqliteLocation(None, False, False, "")
    uri = database.startswith("file:")
    path = Path(unquote(database[5:].split("?")[0]) if uri else database).expanduser()
    exists = path.exists()
    if uri and url.query.get("mode") == "ro":
        return SqliteLocation(path, exists, True, "opened with mode=ro")
    if exists and not (os.access(path, os.W_OK) and os.access(path.parent, os.W_OK | os.X_OK)):
        return SqliteLocation(path, exists, True, "its file or folder is not writable here")
    return SqliteLocation(path, exists, False, "")


def _connect_read_only(path: Path) -> sqlite3.Connection:
    # A WAL file needs its -shm beside it even to be read: where none exists and none can be
    # made (a read-only folder or mount), no writer is active there and the file is read as is.
    immutable = not Path(f"{path}-shm").exists() and not os.access(path.parent, os.W_OK)
    uri = f"file:{quote(str(path))}?mode=ro" + ("&immutable=1" if immutable else "")
    return sqlite3.connect(uri, uri=True, timeout=SQLITE_BUSY_SECONDS, check_same_thread=False)


FULL_BELOW = 1 << 20  # bytes free under which an I/O error on the store's disk means "disk full"


def _explain(ctx: sa.engine.ExceptionContext) -> None:
    """The one guard at the store boundary (SQLAlchemy's handle_error event): an error about
    where the database lives becomes a StoreAccessError that says so, for the CLI to print and
    the pages to show. A server that does not answer: StoreUnavailableError; a SQLite file on a
    full disk or written while read-only: StoreAccessError. SQL errors pass unchanged."""
    if ctx.is_pre_ping:  # the pool reconnects by itself after a failed ping
        return
    orig, url = ctx.original_exception, ctx.engine.url if ctx.engine is not None else None
    if url is None:
        return
    if ctx.dialect.name == "sqlite":
        problem = _sqlite_problem(url, orig)
    elif ctx.is_disconnect or (
        ctx.connection is None and isinstance(ctx.sqlalchemy_exception, sa.exc.OperationalError)
    ):  # at connect
        host = f"{url.host or 'localhost'}:{url.port or 5432}"
        problem = StoreUnavailableError(
            f"the results database at {host} is not reachable ({_first_line(orig)}); nothing stored is lost. "
            "Start the database again, or choose another store with --db / NEGVIZ_DB_URL.",
            host,
        )
    else:
        problem = None
    if problem is not None:
        raise problem


def _sqlite_problem(url: sa.URL, orig: BaseException) -> StoreAccessError | None:
    if not isinstance(orig, sqlite3.Error):
        return None
    code = getattr(orig, "sqlite_errorname", "") or ""
    location = sqlite_location(url)
    if code.startswith("SQLITE_READONLY"):
        why = location.why or "the file, its folder or its disk is not writable"
        return StoreAccessError(
            f"the results store {location.path} cannot be written (read-only: {why}; {_first_line(orig)}); "
            "reading it works. To write, make it writable or choose another store with --db / NEGVIZ_DB_URL."
        )
    if (
        location.path is not None
        and code.startswith(("SQLITE_IOERR", "SQLITE_CANTOPEN", "SQLITE_FULL"))
        and _holds_no_files(location.path)
    ):
        return StoreAccessError(
            f"the results store {location.path} lies on a file system that holds no files (its size is 0, as "
            "/proc's and /sys's): give --db / NEGVIZ_DB_URL a store file on a disk (a new path creates one)."
        )
    if code == "SQLITE_FULL" or code.startswith(("SQLITE_IOERR", "SQLITE_CANTOPEN")):
        free = free_bytes(location.path) if location.path is not None else None
        if code == "SQLITE_FULL" or (free is not None and free < FULL_BELOW):
            shown = "unknown" if free is None else f"{free:,} bytes"
            return StoreAccessError(
                f"the disk holding the results store {location.path} is full ({shown} free): "
                "free some space there, or choose another store with --db / NEGVIZ_DB_URL."
            )
    if location.path is None:
        return None
    if code.startswith("SQLITE_CANTOPEN"):
        return StoreAccessError(_cannot_open(location.path, orig))
    if code == "SQLITE_NOTADB":
        return StoreAccessError(_not_a_database(location.path))
    return None


def _holds_no_files(path: Path) -> bool:
    """Whether ``path`` lies on a pseudo file system (/proc, /sys): zero blocks in all, not a full disk."""
    for folder in (path, *path.parents):
        try:
            return os.statvfs(folder).f_blocks == 0
        except OSError:
            continue
    return False


# Files a --db path may name by mistake: data files, which go to --dataset instead.
_DATA_SUFFIXES = (".csv", ".tsv", ".tab", ".jsonl", ".ndjson", ".json", ".parquet", ".pq", ".txt", ".trec", ".run")


def _cannot_open(path: Path, orig: BaseException) -> str:
    """Why SQLite could not open (or create) the store's file: a folder given where a file
    belongs, a new file in a folder that is read-only here, or a file this user may not read."""
    other = "or choose another store with --db / NEGVIZ_DB_URL"
    if path.is_dir():
        return (
            f"the results store {path} is a folder, not a database file: give a file in it, e.g. "
            f"--db {path / 'results.sqlite'} (created if missing), {other}."
        )
    if not path.exists():
        folder = path.parent
        if not os.access(folder, os.W_OK | os.X_OK):
            return (
                f"the results store {path} does not exist and cannot be created: its folder {folder} is "
                f"read-only here. Make that folder writable, {other} in a writable place."
            )
        return f"the results store {path} cannot be created ({_first_line(orig)}); {other}."
    return (
        f"the results store {path} cannot be opened ({_first_line(orig)}): let this user read the file "
        f"and its folder, {other}."
    )


def _not_a_database(path: Path) -> str:
    if path.suffix.lower() in _DATA_SUFFIXES:
        return (
            f"the results store {path} is a {path.suffix.lower()} file, not a SQLite database: a data file "
            "is given with --dataset (or added with `negviz datasets add`); give --db / NEGVIZ_DB_URL a store "
            "file (a new path creates one). The file was not changed."
        )
    return (
        f"the results store {path} is not a SQLite database (file is not a database): give --db / "
        "NEGVIZ_DB_URL a negviz store file, or a new path to create one. The file was not changed."
    )


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


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
    its busy timeout, when another process opens the new file at that moment: wait and retry.
    A read-only file stays in the mode it has (reading needs no switch)."""
    for attempt in range(attempts):
        try:
            mode = cur.execute("PRAGMA journal_mode").fetchone()[0]
            if str(mode).lower() in ("wal", "memory"):  # done, or an in-memory database
                return
            cur.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if str(getattr(exc, "sqlite_errorname", "")).startswith("SQLITE_READONLY"):
                return
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
    (PostgreSQL's json has no NaN, and both backends must read back the same thing); any other
    object is refused (negviz.core.json_values, strict)."""
    return json_values.dumps(obj, strict=True, sort_keys=True)
