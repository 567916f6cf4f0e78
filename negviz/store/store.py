"""Store: the results database (runs, item scores, fine-tuning epochs, annotations).

One face over modules with one job each: run_table (runs, scores, heartbeats, a spec stored
once), epoch_table (fine-tuning epochs), label_table (annotations), run_import (portable run
files, the shipped runs), shard_table (finished shards of runs not committed yet); this module opens the database, migrates it and checks writability.

Every write is one short transaction, so several processes can share a store: SQLite in WAL
mode with a busy timeout, or any PostgreSQL server.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

import sqlalchemy as sa

from negviz.store import db
from negviz.store import tables as t
from negviz.store.epoch_table import EpochTable
from negviz.store.label_table import LabelTable
from negviz.store.record import COMPLETE, StoreAccessError, StoreError
from negviz.store.run_import import RunImport
from negviz.store.run_table import RunTable, _reason
from negviz.store.shard_table import ShardTable

log = logging.getLogger(__name__)

INSUFFICIENT_PRIVILEGE = "42501"  # PostgreSQL's SQLSTATE for a user without the right to write
# Set to 1 (or pass --no-shipped-runs) for a store that holds only what you put in it.
NO_SHIPPED_RUNS_ENV = "NEGVIZ_NO_SHIPPED_RUNS"


def shipped_runs_wanted(shipped_runs: bool | None = None) -> bool:
    """``shipped_runs`` when given, else whether $NEGVIZ_NO_SHIPPED_RUNS leaves them on."""
    if shipped_runs is not None:
        return shipped_runs
    return os.environ.get(NO_SHIPPED_RUNS_ENV, "").strip().lower() not in ("1", "true", "yes", "on")


def open_store(url: str | Path | None = None, shipped_runs: bool | None = None) -> "Store":
    """The results store as every entry point opens it (the CLI, negviz.evaluate, the app, the
    report): the runs shipped in data/runs/ are part of it from its first open, so each of them
    lists, reads and reuses the same runs. Their records come in at once (milliseconds: the
    Parquet footers), their item scores read in place from the files until copied in
    (RunImport.ensure_bundled, lazy), each spec stored once; a shipped run already there, or a spec the store holds, is left as it
    is, and concurrent first opens import each run once. A read-only store is read as it is.
    ``shipped_runs=False`` (or $NEGVIZ_NO_SHIPPED_RUNS=1): the store holds only what is put in it."""
    store = Store(url)
    if shipped_runs_wanted(shipped_runs) and not store.read_only:
        try:
            store.ensure_bundled(lazy=True)
        except (StoreAccessError, sa.exc.ProgrammingError) as exc:  # a store this user may only read
            if (
                isinstance(exc, sa.exc.ProgrammingError)
                and getattr(exc.orig, "sqlstate", None) != INSUFFICIENT_PRIVILEGE
            ):
                raise
            log.warning("the shipped runs are not recorded in %s, which cannot be written here (%s); it is read as it is",
                        store.url, _reason(exc))  # fmt: skip
    return store


class Store(RunTable, EpochTable, LabelTable, RunImport, ShardTable):
    """Results database. ``Store()`` uses $NEGVIZ_DB_URL, else a per-user SQLite file."""

    def __init__(self, url: str | Path | None = None):
        resolved = db.resolve_url(url)
        self._engine = db.make_engine(resolved)
        # A SQLite file that cannot be written here is opened read-only: it lists and shows runs,
        # and every write says so (db._explain).
        self.read_only = resolved.get_backend_name() == "sqlite" and db.sqlite_location(resolved).read_only
        self._open()

    @property
    def url(self) -> str:
        """The database URL with the password masked, for display."""
        return self._engine.url.render_as_string(hide_password=True)

    @property
    def engine(self) -> sa.Engine:
        """The SQLAlchemy engine, for ad-hoc queries (tests, maintenance)."""
        return self._engine

    @property
    def dialect(self) -> str:
        return self._engine.dialect.name

    def __repr__(self) -> str:
        return f"Store({self.url!r})"

    def close(self) -> None:
        self._engine.dispose()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _open(self) -> None:
        version = self._schema_version()
        if version is None:  # new database (or an old one without our tables): create them once
            with db.schema_transaction(self._engine) as conn:
                t.metadata.create_all(conn)
                version = conn.execute(sa.select(t.meta.c.value).where(t.meta.c.key == "schema_version")).scalar()
                if version is None:
                    conn.execute(t.meta.insert().values(key="schema_version", value=str(t.SCHEMA_VERSION)))
                    version = t.SCHEMA_VERSION
        if int(version) > t.SCHEMA_VERSION:
            raise StoreError(
                f"{self.url} has store schema version {version}, newer than this negviz understands "
                f"({t.SCHEMA_VERSION}); upgrade negviz"
            )
        if not self.read_only:  # a read-only store is read as it is
            self._migrate()

    def _migrate(self) -> None:
        """For stores made by an older negviz: create the tables and indexes added since (once;
        all are additive, so an older negviz still opens the store afterwards: the schema version
        stays). The one-complete-run-per-spec index first removes older duplicates of a spec."""
        with db.read(self._engine) as conn:
            inspector = sa.inspect(conn)
            tables = set(inspector.get_table_names())
            indexes = {ix["name"] for ix in inspector.get_indexes(t.runs.name)}
        missing_tables = [table for table in t.metadata.sorted_tables if table.name not in tables]
        missing_indexes = [ix for ix in t.ADDED_INDEXES if ix.name not in indexes]
        unique_missing = t.ux_runs_complete_spec.name not in indexes
        if missing_tables or missing_indexes or unique_missing:
            with db.schema_transaction(self._engine) as conn:
                t.metadata.create_all(conn, tables=missing_tables, checkfirst=True)
                for ix in missing_indexes:
                    ix.create(conn, checkfirst=True)
                if unique_missing:
                    _one_complete_run_per_spec(conn)
                    t.ux_runs_complete_spec.create(conn, checkfirst=True)

    def _schema_version(self) -> str | None:
        try:
            with db.read(self._engine) as conn:
                return conn.execute(sa.select(t.meta.c.value).where(t.meta.c.key == "schema_version")).scalar()
        except sa.exc.ProgrammingError:  # PostgreSQL: no such table yet
            return None
        except sa.exc.OperationalError as exc:  # SQLite: no such table yet; anything else is real
            if "no such table" in str(exc):
                return None
            raise

    # ------------------------------------------------------------ writability
    def check_writable(self) -> None:
        """Raise StoreError, saying why and what to do, unless this store accepts writes.

        A cheap probe before long work: one write transaction touching the meta table, rolled
        back (a read-only SQLite file or folder, a read-only database user, a full disk)."""
        try:
            with db.read(self._engine) as conn:
                conn.execution_options(negviz_write=True)
                transaction = conn.begin()
                try:
                    conn.execute(t.meta.update().where(t.meta.c.key == "schema_version").values(value=t.meta.c.value))
                finally:
                    transaction.rollback()
        except StoreAccessError as exc:  # read-only, disk full, server away: db._explain says which
            raise StoreAccessError(f"{exc} (nothing was computed)") from exc
        except sa.exc.SQLAlchemyError as exc:
            raise StoreError(
                f"the results store {self.url} cannot be written ({_reason(exc)}); nothing was computed. "
                "Make the database file and its folder writable, give the database user write rights, "
                "or choose another store with --db / NEGVIZ_DB_URL."
            ) from exc


def _one_complete_run_per_spec(conn: sa.Connection) -> None:
    """Migration for stores made before the unique index: keep the newest complete run of each
    spec and delete the older ones (with their scores), as a forced re-run would have."""
    runs = t.runs
    if conn.dialect.name == "postgresql":  # no writer may add a duplicate until the index exists
        conn.exec_driver_sql(f"LOCK TABLE {runs.name} IN SHARE ROW EXCLUSIVE MODE")
    newer = runs.alias("newer")
    shadowed = sa.exists().where(
        newer.c.spec_key == runs.c.spec_key,
        newer.c.status == COMPLETE,
        sa.or_(
            newer.c.created_at > runs.c.created_at,
            sa.and_(newer.c.created_at == runs.c.created_at, newer.c.run_id > runs.c.run_id),
        ),
    )
    removed = conn.execute(runs.delete().where(runs.c.status == COMPLETE, shadowed)).rowcount
    if removed:
        log.warning(
            "removed %d older complete run(s) that repeated a spec stored again later: a spec is now stored once",
            removed,
        )
