"""The store's runs: saving, finishing and listing runs, their item scores, heartbeats of running
runs, and the rule that a spec is stored once (a mixin of negviz.store.Store)."""

from __future__ import annotations

import dataclasses
import socket
import uuid
from pathlib import Path
from typing import Any, Callable

import pandas as pd
import sqlalchemy as sa

from negviz import __version__
from negviz.store import datasets as added
from negviz.store import db, portable
from negviz.store import heartbeats as hb
from negviz.store import tables as t
from negviz.store.frames import long_frame, score_rows
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


class RunTable:
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
        if not rows and pending:  # a lazily imported run: read in place from its file until copied in
            return self.pending_scores(run_id, pending)
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
        # Runs without rows: pending (read from their file), empty, or missing (RunNotFoundError), as scores() does.
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
