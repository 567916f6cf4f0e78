"""Store: the results database (runs, item scores, fine-tuning epochs, annotations).

Every write is one short transaction, so several processes can share a store: SQLite in WAL
mode with a busy timeout, or any PostgreSQL server.
"""

from __future__ import annotations

import dataclasses
import logging
import socket
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

import pandas as pd
import sqlalchemy as sa

from negviz import __version__
from negviz.store import label_rows as ann
from negviz.store import datasets as added
from negviz.store import db, portable
from negviz.store import heartbeats as hb
from negviz.store import tables as t
from negviz.store.frames import epoch_item_rows, long_frame, score_rows
from negviz.store.record import (
    COMPLETE,
    JSON_FIELDS,
    RUNNING,
    STATUSES,
    TIME_FIELDS,
    DuplicateRunError,
    RunNotFoundError,
    RunRecord,
    StoreAccessError,
    StoreError,
)

RUN_COLUMNS = tuple(f.name for f in dataclasses.fields(RunRecord))
SPEC_WRITE_ATTEMPTS = 3  # a forced write that loses a race to another writer of its spec tries again
log = logging.getLogger(__name__)


class Imported(list):
    """The run ids import_runs stored (a list, as before), and ``skipped``: (file, why) for each
    run file left out by the rule that a spec is stored once."""

    def __init__(self, run_ids=(), skipped=()):
        super().__init__(run_ids)
        self.skipped: list[tuple[Path, str]] = list(skipped)


class Store:
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

    # ------------------------------------------------------------ runs
    def save_run(
        self, record: RunRecord, scores: pd.DataFrame, replace: bool = False, added_sha256: str | None = None
    ) -> str:
        """Store a finished run and its item scores (SCORE_COLUMNS) in one transaction.

        A spec is stored once (a unique index on the spec key of complete runs): when the store
        already holds a complete run of ``record.spec_key``, e.g. another process stored it while
        this one was computing, nothing is written and DuplicateRunError names that run, for the
        caller to reuse. ``replace`` (a forced re-run): the complete runs with the same spec key
        are deleted in that same transaction instead, so the store keeps one run per spec and
        never none. ``added_sha256``: the run was made on the added dataset
        ``record.dataset_name`` with this content; the write fails with a StoreError, in the same
        transaction, unless the store still holds it. Finished work is never lost to a failing
        database: the run is then kept as a portable run file (``unsaved_runs_dir()``) and the
        StoreError says where and how to load it later."""
        record = self._new(record, COMPLETE)
        rows = score_rows(record.run_id, scores)  # validate before touching the database
        if record.n is None:
            record.n = len({row[1] for row in rows})
        if record.finished_at is None:
            record.finished_at = t.now()
        try:
            self._insert_run(record, rows, replace=replace, added_sha256=added_sha256)
        except (sa.exc.SQLAlchemyError, StoreAccessError) as exc:  # disk full, server away, ...
            if isinstance(exc, sa.exc.IntegrityError) and self._stored(record.run_id):
                raise  # this run id is already stored: the caller's mistake, no work is lost
            target = unsaved_runs_dir() / f"{record.run_id}{portable.SUFFIX}"
            try:
                portable.write(target, record, scores)
            except Exception as keep_exc:  # noqa: BLE001 - report both failures
                raise StoreError(
                    f"could not write the run to {self.url} ({_reason(exc)}), nor keep it as {target} "
                    f"({keep_exc}); the results are lost"
                ) from exc
            raise StoreError(
                f"could not write the run to {self.url} ({_reason(exc)}). The results are kept in {target}; "
                f"load them with `negviz import-runs {target}` once the store is writable."
            ) from exc
        return record.run_id

    def start_run(self, record: RunRecord, owner: str | None = None) -> str:
        """Register a long job (fine-tuning) as running, with its first heartbeat (owner: this
        process unless given); keep it alive with beat, end it with finish_run."""
        record = self._new(record, RUNNING)
        with db.write(self._engine) as conn:
            conn.execute(t.runs.insert().values(**record.to_dict()))
            hb.insert(conn, record.run_id, owner or hb.owner(), record.created_at)
        return record.run_id

    # ------------------------------------------------------------ heartbeats of running runs
    def beat(self, run_id: str, owner: str | None = None) -> bool:
        """The running run's heartbeat (one small UPDATE). False: ``owner`` (this process unless
        given) no longer owns it (the run was discarded, or claimed by another process)."""
        with db.write(self._engine) as conn:
            return hb.beat(conn, run_id, owner or hb.owner())

    def last_beats(self, run_ids: list[str]) -> dict[str, tuple[str, Any]]:
        """{run_id: (owner, time of its latest heartbeat)} for those of ``run_ids`` that have one."""
        with db.read(self._engine) as conn:
            return hb.last_beats(conn, list(run_ids))

    def claim_run(self, run_id: str, stale_before, owner: str | None = None) -> bool:
        """Take over a running run that gave no sign of life since ``stale_before`` (resume:
        it is trained again under its id, so its stored epochs are deleted); False if it has
        beaten since, has ended, or another process claimed it first."""
        try:
            with db.write(self._engine) as conn:
                return hb.claim(conn, run_id, owner or hb.owner(), stale_before)
        except sa.exc.IntegrityError:  # another process claimed it at the same moment
            return False

    def discard_run(self, run_id: str, stale_before) -> bool:
        """Delete a running run that gave no sign of life since ``stale_before``, with its epochs;
        False (nothing deleted) if it has beaten since or has ended."""
        with db.write(self._engine) as conn:
            return hb.discard(conn, run_id, stale_before)

    def finish_run(
        self,
        run_id: str,
        summary: dict[str, Any] | None = None,
        wall_seconds: float | None = None,
        status: str = COMPLETE,
        error: str | None = None,
        scores: pd.DataFrame | None = None,
        replace: bool = False,
    ) -> None:
        """End a running run; item scores, if given, are written in the same transaction.
        Completing it follows save_run's rule: DuplicateRunError (nothing changed) when another
        complete run of its spec is stored, unless ``replace``, which deletes that run."""
        if status not in STATUSES or status == RUNNING:
            raise StoreError(f"finish_run status must be one of complete, failed, cancelled, not {status!r}")
        rows = score_rows(run_id, scores) if scores is not None else []
        values: dict[str, Any] = dict(status=status, finished_at=t.now(), error=error)
        if summary is not None:
            values["summary"] = summary
        if wall_seconds is not None:
            values["wall_seconds"] = float(wall_seconds)
        if rows:
            values["n"] = len({row[1] for row in rows})
        with db.read(self._engine) as conn:
            spec_key = conn.execute(sa.select(t.runs.c.spec_key).where(t.runs.c.run_id == run_id)).scalar()
        if spec_key is None:
            raise RunNotFoundError(run_id)

        def finish(conn: sa.Connection) -> None:
            if status == COMPLETE:
                self._claim_spec(conn, spec_key, run_id, replace)
            query = t.runs.update().where(t.runs.c.run_id == run_id, t.runs.c.status == RUNNING).values(**values)
            if conn.execute(query).rowcount == 0:
                current = conn.execute(sa.select(t.runs.c.status).where(t.runs.c.run_id == run_id)).scalar()
                if current is None:
                    raise RunNotFoundError(run_id)
                raise StoreError(f"run {run_id} is already {current}; only a running run can be finished")
            conn.execute(t.run_heartbeats.delete().where(t.run_heartbeats.c.run_id == run_id))  # ended: no more beats
            db.bulk_insert(conn, t.item_scores, rows)

        self._write_under_spec_rule(finish, spec_key, run_id, replace, complete=status == COMPLETE)

    def find_run(self, spec_key: str) -> RunRecord | None:
        """The newest complete run with this spec key, or None."""
        query = (
            sa.select(t.runs)
            .where(t.runs.c.spec_key == spec_key, t.runs.c.status == COMPLETE)
            .order_by(t.runs.c.created_at.desc())
            .limit(1)
        )
        with db.read(self._engine) as conn:
            row = conn.execute(query).mappings().first()
        return _record(row) if row else None

    def get_run(self, run_id: str) -> RunRecord:
        with db.read(self._engine) as conn:
            row = conn.execute(sa.select(t.runs).where(t.runs.c.run_id == run_id)).mappings().first()
        if row is None:
            raise RunNotFoundError(run_id)
        return _record(row)

    def runs(self, dataset: str | None = None, kind: str | None = None, status: str | None = COMPLETE) -> pd.DataFrame:
        """One row per run (RunRecord fields), newest first; status=None lists every status."""
        query = sa.select(*(t.runs.c[c] for c in RUN_COLUMNS)).order_by(t.runs.c.created_at.desc())
        for column, value in (("dataset_name", dataset), ("kind", kind), ("status", status)):
            if value is not None:
                query = query.where(t.runs.c[column] == value)
        with db.read(self._engine) as conn:
            rows = conn.execute(query).all()
        frame = pd.DataFrame([tuple(r) for r in rows], columns=list(RUN_COLUMNS))
        for column in TIME_FIELDS:
            frame[column] = pd.to_datetime(frame[column], utc=True)
        return frame

    def scores(self, run_id: str) -> pd.DataFrame:
        """Long item scores (item_id, slot, score), ordered by item_id then slot."""
        c = t.item_scores.c
        query = sa.select(c.item_id, c.slot, c.score).where(c.run_id == run_id).order_by(c.item_id, c.slot)
        pending = None
        with db.read(self._engine) as conn:
            rows = db.fetch_tuples(conn, query)  # one primary-key range scan, no per-row objects
            if not rows:
                self._check_exists(conn, run_id)
                pending = self._pending(conn, run_id)
        if not rows and pending:  # a lazily imported run: copy it in now, or read what another copier wrote
            self.load_pending(run_id)
            return self.scores(run_id)
        if not rows:
            return long_frame([], ("item_id", "slot", "score"))
        frame = pd.DataFrame.from_records(rows, columns=["item_id", "slot", "score"])
        frame["score"] = frame["score"].astype(float)
        return frame

    def scores_wide(self, run_id: str) -> pd.DataFrame:
        """Scores indexed by item_id, one column per slot."""
        wide = self.scores(run_id).pivot(index="item_id", columns="slot", values="score")
        wide.columns.name = None
        return wide

    def scores_many(self, run_ids: list[str]) -> dict[str, pd.DataFrame]:
        """Long item scores of several runs in one query: {run_id: frame as scores() gives it}.
        For a page drawing many models, one round trip instead of one per run."""
        ids = list(dict.fromkeys(run_ids))
        if not ids:
            return {}
        c = t.item_scores.c
        out: dict[str, pd.DataFrame] = {}
        for start in range(0, len(ids), 500):  # bounded IN lists
            chunk = ids[start : start + 500]
            query = (
                sa.select(c.run_id, c.item_id, c.slot, c.score)
                .where(c.run_id.in_(chunk))
                .order_by(c.run_id, c.item_id, c.slot)
            )
            with db.read(self._engine) as conn:
                frame = pd.DataFrame.from_records(
                    db.fetch_tuples(conn, query), columns=["run_id", "item_id", "slot", "score"]
                )
            frame["score"] = frame["score"].astype(float)
            for run_id, part in frame.groupby("run_id", sort=False):
                out[run_id] = part.drop(columns="run_id").reset_index(drop=True)
        # Runs without rows: pending (copied in now), empty, or missing (RunNotFoundError), as scores() does.
        for run_id in ids:
            if run_id not in out:
                out[run_id] = self.scores(run_id)
        return {run_id: out[run_id] for run_id in ids}

    def scores_wide_many(self, run_ids: list[str]) -> dict[str, pd.DataFrame]:
        """scores_wide of several runs, read in one query."""
        out = {}
        for run_id, long in self.scores_many(run_ids).items():
            wide = long.pivot(index="item_id", columns="slot", values="score")
            wide.columns.name = None
            out[run_id] = wide
        return out

    def delete_run(self, run_id: str) -> None:
        """Delete a run with its scores and epochs."""
        with db.write(self._engine) as conn:
            if conn.execute(t.runs.delete().where(t.runs.c.run_id == run_id)).rowcount == 0:
                raise RunNotFoundError(run_id)

    def _new(self, record: RunRecord, status: str) -> RunRecord:
        """A copy of the record with the fields the store owns filled in, validated."""
        record = dataclasses.replace(
            record,
            run_id=record.run_id or uuid.uuid4().hex,
            status=status,
            created_at=record.created_at or t.now(),
            host=record.host or socket.gethostname(),
            code_version=record.code_version or __version__,
        )
        record.validate()
        return record

    def _insert_run(
        self, record: RunRecord, rows: list[tuple], replace: bool = False, added_sha256: str | None = None
    ) -> None:
        complete = record.status == COMPLETE

        def insert(conn: sa.Connection) -> None:
            if added_sha256 is not None:  # first: holds the dataset until this transaction ends
                added.hold(conn, record.dataset_name, added_sha256)
            if complete:
                self._claim_spec(conn, record.spec_key, record.run_id, replace)
            conn.execute(t.runs.insert().values(**record.to_dict()))
            db.bulk_insert(conn, t.item_scores, rows)

        self._write_under_spec_rule(insert, record.spec_key, record.run_id, replace, complete, inserting=True)

    @staticmethod
    def _claim_spec(conn: sa.Connection, spec_key: str, run_id: str, replace: bool) -> None:
        """Inside the write that makes ``run_id`` a complete run of ``spec_key``: delete the
        spec's other complete runs (``replace``), or raise DuplicateRunError naming the stored one."""
        runs = t.runs.c
        others = sa.and_(runs.spec_key == spec_key, runs.status == COMPLETE, runs.run_id != run_id)
        if replace:
            conn.execute(t.runs.delete().where(others))
            return
        row = conn.execute(sa.select(t.runs).where(others).limit(1)).mappings().first()
        if row is not None:
            raise DuplicateRunError(_record(row))

    def _write_under_spec_rule(
        self,
        write: Callable[[sa.Connection], None],
        spec_key: str,
        run_id: str,
        replace: bool,
        complete: bool,
        inserting: bool = False,
    ) -> None:
        """Run ``write`` in one write transaction. On SQLite the transaction holds the write lock,
        so _claim_spec sees every committed run. On PostgreSQL two writers of one spec can both
        pass _claim_spec before either commits; the unique index then stops the second one: it
        reuses the winner (DuplicateRunError), or, replacing, tries again (and deletes the winner)."""
        for attempt in range(1, SPEC_WRITE_ATTEMPTS + 1):
            try:
                with db.write(self._engine) as conn:
                    write(conn)
                return
            except sa.exc.IntegrityError:
                if not complete or (inserting and self._stored(run_id)):
                    raise  # not the spec rule (e.g. this run id is already stored)
                winner = self._complete_run_of(spec_key, other_than=run_id)
                if winner is None or attempt == SPEC_WRITE_ATTEMPTS:
                    raise
                if not replace:
                    raise DuplicateRunError(winner) from None

    def _complete_run_of(self, spec_key: str, other_than: str) -> RunRecord | None:
        runs = t.runs.c
        query = sa.select(t.runs).where(runs.spec_key == spec_key, runs.status == COMPLETE, runs.run_id != other_than)
        with db.read(self._engine) as conn:
            row = conn.execute(query.limit(1)).mappings().first()
        return _record(row) if row else None

    def _stored(self, run_id: str) -> bool:
        try:
            with db.read(self._engine) as conn:
                return self._exists(conn, run_id)
        except sa.exc.SQLAlchemyError:
            return False

    @staticmethod
    def _exists(conn: sa.Connection, run_id: str) -> bool:
        return conn.execute(sa.select(t.runs.c.run_id).where(t.runs.c.run_id == run_id)).first() is not None

    @classmethod
    def _check_exists(cls, conn: sa.Connection, run_id: str) -> None:
        if not cls._exists(conn, run_id):
            raise RunNotFoundError(run_id)

    # ------------------------------------------------------------ fine-tuning epochs
    def add_epoch(self, run_id: str, epoch: int, metrics: dict[str, Any], items: pd.DataFrame | None = None) -> None:
        """Store one epoch's metrics and, optionally, per-item measurements (item_id, name, value)."""
        if not isinstance(metrics, dict):
            raise StoreError(f"epoch metrics must be a dict, got {type(metrics).__name__}")
        reserved = {"epoch", "created_at"} & set(metrics)
        if reserved:
            raise StoreError(f"epoch metrics may not be called {sorted(reserved)}: those are epochs() columns")
        epoch = int(epoch)
        rows = epoch_item_rows(run_id, epoch, items) if items is not None else []
        try:
            with db.write(self._engine) as conn:
                self._check_exists(conn, run_id)
                conn.execute(t.epochs.insert().values(run_id=run_id, epoch=epoch, metrics=metrics, created_at=t.now()))
                db.bulk_insert(conn, t.epoch_items, rows)
        except sa.exc.IntegrityError as exc:
            raise StoreError(f"epoch {epoch} of run {run_id} is already stored") from exc

    def epochs(self, run_id: str) -> pd.DataFrame:
        """One row per epoch: epoch, created_at, then a column per metric, sorted (nested keys joined by '.')."""
        c = t.epochs.c
        with db.read(self._engine) as conn:
            query = sa.select(c.epoch, c.created_at, c.metrics).where(c.run_id == run_id).order_by(c.epoch)
            rows = conn.execute(query).all()
            if not rows:
                self._check_exists(conn, run_id)
        head = pd.DataFrame({"epoch": [r.epoch for r in rows], "created_at": [r.created_at for r in rows]})
        head["epoch"] = head["epoch"].astype(int)
        head["created_at"] = pd.to_datetime(head["created_at"], utc=True)
        metrics = pd.json_normalize([r.metrics or {} for r in rows]) if rows else pd.DataFrame()
        # Sorted: JSONB does not keep key order, and both backends must give the same frame.
        return pd.concat([head, metrics[sorted(metrics.columns)]], axis=1)

    def epoch_items(self, run_id: str, epoch: int | None = None) -> pd.DataFrame:
        """Per-item measurements (epoch, item_id, name, value), for one epoch or all."""
        c = t.epoch_items.c
        query = sa.select(c.epoch, c.item_id, c.name, c.value).where(c.run_id == run_id)
        if epoch is not None:
            query = query.where(c.epoch == int(epoch))
        with db.read(self._engine) as conn:
            rows = conn.execute(query.order_by(c.epoch, c.item_id, c.name)).all()
            if not rows:
                self._check_exists(conn, run_id)
        return long_frame(rows, ("epoch", "item_id", "name", "value"))

    # ------------------------------------------------------------ annotations
    def add_annotation(
        self, dataset: str, item_id: str, annotator: str, labels: dict[str, Any], note: str = ""
    ) -> int:
        """Append an annotation; returns its version (1, 2, ... per dataset/item_id/annotator)."""
        return ann.add(self._engine, dataset, item_id, annotator, labels, note)

    def annotations(
        self, dataset: str | None = None, item_id: str | None = None, annotator: str | None = None, latest: bool = True
    ) -> pd.DataFrame:
        """Annotations: the latest version per (dataset, item_id, annotator), or the whole history."""
        with db.read(self._engine) as conn:
            rows = conn.execute(ann.select(dataset, item_id, annotator, latest)).all()
        return ann.frame(rows)

    # ------------------------------------------------------------ portable run files
    def export_run(self, run_id: str, path: str | Path) -> Path:
        """Write a run file; a directory path gets <run_id>.parquet inside it."""
        path = Path(path)
        if path.is_dir():
            path = path / f"{run_id}{portable.SUFFIX}"
        return portable.write(path, self.get_run(run_id), self.scores(run_id), self.item_texts(run_id))

    def item_texts(self, run_id: str) -> pd.DataFrame:
        """Text kept per item and slot (a generative reranker's reasoning); empty for most runs."""
        from negviz.store import item_texts

        return item_texts.load(self._engine, run_id)

    def save_item_texts(self, run_id: str, texts: pd.DataFrame | None) -> int:
        from negviz.store import item_texts

        return item_texts.save(self._engine, run_id, texts)

    def import_runs(self, path: str | Path, lazy: bool = False, force: bool = False) -> Imported:
        """Load a run file, or every run file of a directory; runs already stored are skipped.
        A spec is stored once, as by save_run: of several complete runs of one spec among the
        files the newest is imported, and a file whose spec the store already holds (under
        another run id) is skipped, unless ``force`` (not with ``lazy``): it then replaces the
        stored run. Returns the run ids imported, with ``.skipped`` (file, why) for the files the
        spec rule left out. ``lazy``: store the records at once (listings and summaries are
        complete in milliseconds) and copy each run's item scores in later, by load_pending
        (e.g. from a background thread) or on the run's first read."""
        found: dict[str, tuple[Path, RunRecord]] = {}
        for file in portable.run_files(Path(path)):
            record = portable.read_record(file)  # the Parquet footer only
            found.setdefault(record.run_id, (file, record))
        if not found:
            return Imported()
        if lazy:
            return self._import_lazily(list(found.values()))
        with db.read(self._engine) as conn:  # a few queries for all: fast when everything is present
            todo, skipped = self._plan_import(conn, list(found.values()), force)
        imported = [record.run_id for file, record in todo if self._import_one(file, record, force, skipped)]
        return Imported(imported, skipped)

    def ensure_bundled(self, directory: str | Path | None = None, lazy: bool = False) -> Imported:
        """Import the runs shipped in data/runs/ (or directory) that the store lacks (lazily: see
        import_runs)."""
        if directory is None:
            from negviz.paths import DATA_DIR

            directory = DATA_DIR / "runs"
        directory = Path(directory)
        return self.import_runs(directory, lazy=lazy) if directory.is_dir() else Imported()

    def pending_runs(self) -> list[str]:
        """Runs imported lazily whose item scores are not copied in yet."""
        with db.read(self._engine) as conn:
            return list(conn.execute(sa.select(t.pending_scores.c.run_id)).scalars())

    def load_pending(self, run_id: str | None = None) -> int:
        """Copy in the item scores of a lazily imported run (or of all of them); returns how many
        runs this call copied. Safe beside other processes doing the same: each run is copied
        once, in the transaction that removes its pending row."""
        ids = [run_id] if run_id is not None else self.pending_runs()
        done = 0
        pend = t.pending_scores.c
        for rid in ids:
            with db.read(self._engine) as conn:
                file = self._pending(conn, rid)
            if file is None:  # copied meanwhile (another thread or process)
                continue
            path = Path(file)
            if not path.is_file():
                raise StoreError(f"run {rid}: its scores are pending in {file}, which is missing")
            rows = score_rows(rid, portable.read_scores(path))  # read and checked outside the write lock
            with db.write(self._engine) as conn:
                if conn.execute(t.pending_scores.delete().where(pend.run_id == rid)).rowcount == 0:
                    continue  # another writer won the race and copied it
                db.bulk_insert(conn, t.item_scores, rows)
            self.save_item_texts(rid, portable.read_texts(path))
            done += 1
        return done

    @staticmethod
    def _pending(conn: sa.Connection, run_id: str) -> str | None:
        pend = t.pending_scores.c
        return conn.execute(sa.select(pend.file).where(pend.run_id == run_id)).scalar()

    def _import_lazily(self, found: list[tuple[Path, RunRecord]]) -> Imported:
        """Store the records now, in one transaction; the scores stay in their files for now."""
        for _, record in found:
            record.validate()
        try:
            with db.write(self._engine) as conn:
                todo, skipped = self._plan_import(conn, found, force=False)
                if todo:
                    conn.execute(t.runs.insert(), [r.to_dict() for _, r in todo])
                    conn.execute(
                        t.pending_scores.insert(), [{"run_id": r.run_id, "file": str(f.resolve())} for f, r in todo]
                    )
        except sa.exc.IntegrityError:  # another process imported them meanwhile (PostgreSQL)
            return Imported()
        return Imported([r.run_id for _, r in todo], skipped)

    def _plan_import(
        self, conn: sa.Connection, found: list[tuple[Path, RunRecord]], force: bool
    ) -> tuple[list[tuple[Path, RunRecord]], list[tuple[Path, str]]]:
        """The run files to import: not stored yet (by run id), and one complete run per spec,
        the newest, unless the store holds that spec already (kept, unless ``force``); with
        (file, why) for the files the spec rule leaves out."""
        ids = [r.run_id for _, r in found]
        present = set(conn.execute(sa.select(t.runs.c.run_id).where(t.runs.c.run_id.in_(ids))).scalars())
        todo, skipped = _newest_per_spec([(f, r) for f, r in found if r.run_id not in present])
        taken = {} if force else self._taken_specs(conn, [r for _, r in todo])
        keep = []
        for file, record in todo:
            if record.status == COMPLETE and record.spec_key in taken:
                skipped.append((file, _spec_stored(taken[record.spec_key])))
            else:
                keep.append((file, record))
        return keep, skipped

    @staticmethod
    def _taken_specs(conn: sa.Connection, records: list[RunRecord]) -> dict[str, str]:
        """{spec key: stored complete run id} for the records' spec keys."""
        runs = t.runs.c
        keys = list({r.spec_key for r in records if r.status == COMPLETE})
        taken: dict[str, str] = {}
        for start in range(0, len(keys), 500):  # bounded IN lists
            query = sa.select(runs.spec_key, runs.run_id).where(
                runs.spec_key.in_(keys[start : start + 500]), runs.status == COMPLETE
            )
            taken.update(dict(conn.execute(query).all()))
        return taken

    def _import_one(self, file: Path, record: RunRecord, replace: bool, skipped: list[tuple[Path, str]]) -> bool:
        record.validate()
        rows = score_rows(record.run_id, portable.read_scores(file))
        try:
            self._insert_run(record, rows, replace=replace)
        except DuplicateRunError as taken:  # another writer stored this spec meanwhile
            skipped.append((file, _spec_stored(taken.run.run_id)))
            return False
        except sa.exc.IntegrityError:
            with db.read(self._engine) as conn:
                if self._exists(conn, record.run_id):  # another process imported it meanwhile
                    return False
            raise
        self.save_item_texts(record.run_id, portable.read_texts(file))
        return True


UNSAVED_ENV = "NEGVIZ_UNSAVED_DIR"


def unsaved_runs_dir() -> Path:
    """Where runs that could not be written to the store are kept: $NEGVIZ_UNSAVED_DIR, else
    ``unsaved-runs`` in the per-user data folder."""
    import os

    env = os.environ.get(UNSAVED_ENV)
    if env:
        return Path(env).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("negviz")) / "unsaved-runs"


def _newest_per_spec(found: list[tuple[Path, RunRecord]]) -> tuple[list, list[tuple[Path, str]]]:
    """The run files to import, with the complete runs reduced to the newest of each spec, and
    (file, why) for the others."""
    newest: dict[str, tuple[Path, RunRecord]] = {}
    for file, record in found:
        if record.status != COMPLETE:
            continue
        kept = newest.get(record.spec_key)
        if kept is None or _age(record) > _age(kept[1]):
            newest[record.spec_key] = (file, record)
    todo, skipped = [], []
    for file, record in found:
        kept = newest.get(record.spec_key) if record.status == COMPLETE else None
        if kept is None or kept[1] is record:
            todo.append((file, record))
        else:
            skipped.append((file, f"{kept[0].name} holds a newer run of the same spec ({kept[1].run_id}); "
                                  "a spec is stored once, so only that one is imported"))
    return todo, skipped


def _age(record: RunRecord) -> tuple:
    """Sort key, newest last (as the migration orders them: created_at, then run_id)."""
    created = record.created_at or datetime.min
    return (created if created.tzinfo else created.replace(tzinfo=timezone.utc), record.run_id)


def _spec_stored(run_id: str) -> str:
    return f"the store holds run {run_id} of the same spec (a spec is stored once); --force replaces it"


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
        log.warning("removed %d older complete run(s) that repeated a spec stored again later: "
                    "a spec is now stored once", removed)


def _reason(exc: BaseException) -> str:
    """The driver's one-line message, without SQLAlchemy's SQL echo and background link."""
    orig = getattr(exc, "orig", None)
    return str(orig if orig is not None else exc).strip().splitlines()[0]


def _record(row) -> RunRecord:
    values = {name: row[name] for name in RUN_COLUMNS}
    for name in JSON_FIELDS:
        values[name] = values[name] if values[name] is not None else {}
    return RunRecord(**values)
