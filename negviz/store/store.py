"""Store: the results database (runs, item scores, fine-tuning epochs, annotations).

Every write is one short transaction, so several processes can share a store: SQLite in WAL
mode with a busy timeout, or any PostgreSQL server.
"""

from __future__ import annotations

import dataclasses
import socket
import uuid
from pathlib import Path
from typing import Any

import pandas as pd
import sqlalchemy as sa

from negviz import __version__
from negviz.store import annotations as ann
from negviz.store import db, portable
from negviz.store import tables as t
from negviz.store.frames import epoch_item_rows, long_frame, score_rows
from negviz.store.record import (
    COMPLETE,
    JSON_FIELDS,
    RUNNING,
    STATUSES,
    TIME_FIELDS,
    RunNotFoundError,
    RunRecord,
    StoreError,
)

RUN_COLUMNS = tuple(f.name for f in dataclasses.fields(RunRecord))


class Store:
    """Results database. ``Store()`` uses $NEGVIZ_DB_URL, else a per-user SQLite file."""

    def __init__(self, url: str | Path | None = None):
        self._engine = db.make_engine(db.resolve_url(url))
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
        self._migrate()

    def _migrate(self) -> None:
        """For stores made by an older negviz: create the tables and indexes added since (once;
        both are additive, so an older negviz still opens the store afterwards)."""
        with db.read(self._engine) as conn:
            inspector = sa.inspect(conn)
            tables = set(inspector.get_table_names())
            indexes = {ix["name"] for ix in inspector.get_indexes(t.runs.name)}
        missing_tables = [table for table in t.metadata.sorted_tables if table.name not in tables]
        missing_indexes = [ix for ix in t.ADDED_INDEXES if ix.name not in indexes]
        if missing_tables or missing_indexes:
            with db.schema_transaction(self._engine) as conn:
                t.metadata.create_all(conn, tables=missing_tables, checkfirst=True)
                for ix in missing_indexes:
                    ix.create(conn, checkfirst=True)

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
        except sa.exc.SQLAlchemyError as exc:
            raise StoreError(
                f"the results store {self.url} cannot be written ({_reason(exc)}); nothing was computed. "
                "Make the database file and its folder writable, give the database user write rights, "
                "or choose another store with --db / NEGVIZ_DB_URL."
            ) from exc

    # ------------------------------------------------------------ runs
    def save_run(self, record: RunRecord, scores: pd.DataFrame, replace: bool = False) -> str:
        """Store a finished run and its item scores (SCORE_COLUMNS) in one transaction.

        ``replace`` (a forced re-run): the complete runs with the same spec key are deleted in
        that same transaction, so the store keeps one run per spec and never none. Finished work
        is never lost: if the write fails, the run is kept as a portable run file
        (``unsaved_runs_dir()``) and the StoreError says where and how to load it later."""
        record = self._new(record, COMPLETE)
        rows = score_rows(record.run_id, scores)  # validate before touching the database
        if record.n is None:
            record.n = len({row[1] for row in rows})
        if record.finished_at is None:
            record.finished_at = t.now()
        try:
            self._insert_run(record, rows, replace_spec=record.spec_key if replace else None)
        except sa.exc.SQLAlchemyError as exc:
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

    def start_run(self, record: RunRecord) -> str:
        """Register a long job (fine-tuning) as running; end it with finish_run."""
        record = self._new(record, RUNNING)
        self._insert_run(record, [])
        return record.run_id

    def finish_run(
        self,
        run_id: str,
        summary: dict[str, Any] | None = None,
        wall_seconds: float | None = None,
        status: str = COMPLETE,
        error: str | None = None,
        scores: pd.DataFrame | None = None,
    ) -> None:
        """End a running run; item scores, if given, are written in the same transaction."""
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
        with db.write(self._engine) as conn:
            query = t.runs.update().where(t.runs.c.run_id == run_id, t.runs.c.status == RUNNING).values(**values)
            if conn.execute(query).rowcount == 0:
                current = conn.execute(sa.select(t.runs.c.status).where(t.runs.c.run_id == run_id)).scalar()
                if current is None:
                    raise RunNotFoundError(run_id)
                raise StoreError(f"run {run_id} is already {current}; only a running run can be finished")
            db.bulk_insert(conn, t.item_scores, rows)

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

    def _insert_run(self, record: RunRecord, rows: list[tuple], replace_spec: str | None = None) -> None:
        with db.write(self._engine) as conn:
            if replace_spec is not None:
                runs = t.runs.c
                conn.execute(t.runs.delete().where(runs.spec_key == replace_spec, runs.status == COMPLETE))
            conn.execute(t.runs.insert().values(**record.to_dict()))
            db.bulk_insert(conn, t.item_scores, rows)

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

    def import_runs(self, path: str | Path, lazy: bool = False) -> list[str]:
        """Load a run file, or every run file of a directory; runs already stored are skipped.
        Returns the run ids imported. ``lazy``: store the records at once (listings and summaries
        are complete in milliseconds) and copy each run's item scores in later, by load_pending
        (e.g. from a background thread) or on the run's first read."""
        found: dict[str, tuple[Path, RunRecord]] = {}
        for file in portable.run_files(Path(path)):
            record = portable.read_record(file)  # the Parquet footer only
            found.setdefault(record.run_id, (file, record))
        if not found:
            return []
        if lazy:
            return self._import_lazily(list(found.values()))
        with db.read(self._engine) as conn:  # one query for all: fast when everything is present
            present = set(conn.execute(sa.select(t.runs.c.run_id).where(t.runs.c.run_id.in_(list(found)))).scalars())
        return [run_id for run_id, item in found.items() if run_id not in present and self._import_one(*item)]

    def ensure_bundled(self, directory: str | Path | None = None, lazy: bool = False) -> list[str]:
        """Import the runs shipped in data/runs/ (or directory) that the store lacks (lazily: see
        import_runs)."""
        if directory is None:
            from negviz.paths import DATA_DIR

            directory = DATA_DIR / "runs"
        directory = Path(directory)
        return self.import_runs(directory, lazy=lazy) if directory.is_dir() else []

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

    def _import_lazily(self, found: list[tuple[Path, RunRecord]]) -> list[str]:
        """Store the records now, in one transaction; the scores stay in their files for now."""
        for _, record in found:
            record.validate()
        try:
            with db.write(self._engine) as conn:
                present = set(
                    conn.execute(
                        sa.select(t.runs.c.run_id).where(t.runs.c.run_id.in_([r.run_id for _, r in found]))
                    ).scalars()
                )
                todo = [(f, r) for f, r in found if r.run_id not in present]
                if todo:
                    conn.execute(t.runs.insert(), [r.to_dict() for _, r in todo])
                    conn.execute(
                        t.pending_scores.insert(), [{"run_id": r.run_id, "file": str(f.resolve())} for f, r in todo]
                    )
        except sa.exc.IntegrityError:  # another process imported them meanwhile (PostgreSQL)
            return []
        return [r.run_id for _, r in todo]

    def _import_one(self, file: Path, record: RunRecord) -> bool:
        record.validate()
        rows = score_rows(record.run_id, portable.read_scores(file))
        try:
            self._insert_run(record, rows)
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


def _reason(exc: BaseException) -> str:
    """The driver's one-line message, without SQLAlchemy's SQL echo and background link."""
    orig = getattr(exc, "orig", None)
    return str(orig if orig is not None else exc).strip().splitlines()[0]


def _record(row) -> RunRecord:
    values = {name: row[name] for name in RUN_COLUMNS}
    for name in JSON_FIELDS:
        values[name] = values[name] if values[name] is not None else {}
    return RunRecord(**values)
