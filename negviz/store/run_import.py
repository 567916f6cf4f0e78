"""Portable run files in and out of the store: export, import (eagerly or lazily: records now,
scores read from the file until copied in), the shipped runs of data/runs, and the texts behind a
run's scores (a mixin of negviz.store.Store)."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pandas as pd
import sqlalchemy as sa

from negviz.store import db, portable
from negviz.store import tables as t
from negviz.store.frames import score_frame, score_rows
from negviz.store.record import COMPLETE, DuplicateRunError, RunRecord, StoreError


class Imported(list):
    """The run ids import_runs stored (a list, as before), and ``skipped``: (file, why) for each
    run file left out by the rule that a spec is stored once."""

    def __init__(self, run_ids=(), skipped=()):
        super().__init__(run_ids)
        self.skipped: list[tuple[Path, str]] = list(skipped)


class RunImport:
    def export_run(self, run_id: str, path: str | Path) -> Path:
        """Write a run file; a directory path gets <run_id>.parquet inside it."""
        from negviz.core.paths import on_disk

        path = Path(path).expanduser()
        if on_disk(path, "dir"):
            path = path / f"{run_id}{portable.SUFFIX}"
        return portable.write(path, self.get_run(run_id), self.scores(run_id), self.item_texts(run_id))

    def item_texts(self, run_id: str) -> pd.DataFrame:
        """Text kept per item and slot (a generative reranker's reasoning); empty for most runs.
        A lazily imported run's texts are read from its file until copied in, as its scores are."""
        from negviz.store import item_texts

        with db.read(self._engine) as conn:
            pending = self._pending(conn, run_id)
        if pending:  # read in place, as scores() reads a pending run's scores
            return item_texts.kept(portable.read_texts(_pending_file(run_id, pending)))
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
        complete in milliseconds); each run's item scores are read in place from its file
        (pending_scores) until load_pending copies them in (e.g. from a background thread)."""
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
            from negviz.core.paths import DATA_DIR

            directory = DATA_DIR / "runs"
        directory = Path(directory)
        return self.import_runs(directory, lazy=lazy) if directory.is_dir() else Imported()

    def pending_scores(self, run_id: str, file: str) -> pd.DataFrame:
        """A lazily imported run's scores read in place from its file, checked and shaped as the
        store would give them once copied in (frames.score_frame): a fresh store shows the shipped
        runs without waiting for the copy of their 2 million score rows."""
        return score_frame(portable.read_scores(_pending_file(run_id, file)))

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
            path = _pending_file(rid, file)
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


def _pending_file(run_id: str, file: str) -> Path:
    """The run file a pending run's scores are read or copied from, still holding that run: a
    regenerated data/runs/ (make data-runs) gives a file of the same name another run."""
    path = Path(file)
    if not path.is_file():
        raise StoreError(f"run {run_id}: its scores are pending in {file}, which is missing")
    held = portable.read_record(path).run_id  # the Parquet footer only
    if held != run_id:
        raise StoreError(f"run {run_id}: its scores were pending in {file}, which now holds run {held}")
    return path


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
            skipped.append(
                (
                    file,
                    f"{kept[0].name} holds a newer run of the same spec ({kept[1].run_id}); "
                    "a spec is stored once, so only that one is imported",
                )
            )
    return todo, skipped


def _age(record: RunRecord) -> tuple:
    """Sort key, newest last (as the migration orders them: created_at, then run_id)."""
    created = record.created_at or datetime.min
    return (created if created.tzinfo else created.replace(tzinfo=timezone.utc), record.run_id)


def _spec_stored(run_id: str) -> str:
    return f"the store holds run {run_id} of the same spec (a spec is stored once); --force replaces it"
