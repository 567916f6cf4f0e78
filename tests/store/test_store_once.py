"""Issue 21, cases 1 and 2: a spec is stored once, enforced by the database, also when writers
race; and a run is never stored on an added dataset that was removed while it was computed.
On SQLite and a real PostgreSQL (tests/support/pg.py). The races are real threads on the real write
path, made deterministic by a barrier or by holding one writer's transaction open until the
other has reached the database (no sleeps deciding who wins)."""

from __future__ import annotations

import logging
import shutil
import threading
from contextlib import contextmanager
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa

from negviz.cli import main
from negviz.core.schema import DatasetSpec
from negviz.datasets.added import add_dataset
from negviz.evaluation.runner import run_eval
from negviz.store import DuplicateRunError, Store, StoreError, db, portable
from negviz.store import datasets as stored
from negviz.store import tables as t
from negviz.store.frames import score_rows
from tests.store.test_run_table import T0, make_record, make_scores, table_count
from tests.support.pg import pg_url, store, store_url  # noqa: F401  (fixtures)
from tests.support.waiting import wait_for

DATA = Path(__file__).resolve().parents[1] / "data"
RUNS = Path(__file__).resolve().parents[2] / "data" / "runs"
PAIRS_MAP = "pair_id=id,q1=query1,d1=doc1,q2=query2,d2=doc2"
NEVIR = DatasetSpec.make("nevir", limit=30)
WAIT = 120  # seconds before a stuck test fails (never reached when it passes)
UNIQUE_INDEX = "ux_runs_complete_spec"  # tables.ux_runs_complete_spec


# ---------------------------------------------------------------- helpers
def run_in_thread(fn, *args, **kwargs) -> dict:
    """Start fn in a thread; the returned dict gets 'result' or 'error', and 'thread'."""
    out: dict = {}

    def target():
        try:
            out["result"] = fn(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            out["error"] = exc

    out["thread"] = threading.Thread(target=target, daemon=True)
    out["thread"].start()
    return out


def finished(out: dict) -> dict:
    out["thread"].join(WAIT)
    assert not out["thread"].is_alive(), "a writer is stuck"
    return out


@contextmanager
def held_after(engine: sa.Engine, statement: str):
    """Pause the connection that runs ``statement`` (inside its transaction, before commit) until
    ``go`` is set; ``reached`` is set when it got there."""
    reached, go = threading.Event(), threading.Event()

    def pause(conn, cursor, text, *_):
        if text.lstrip().upper().startswith(statement) and not reached.is_set():
            reached.set()
            assert go.wait(WAIT), "never released"

    # Left on the engine (it pauses once): removing it while the held thread resumes would change
    # the listener list under SQLAlchemy's iteration of it.
    sa.event.listen(engine, "after_cursor_execute", pause)
    try:
        yield reached, go
    finally:
        go.set()


def wait_until_blocked(url: str, other: dict) -> None:
    """PostgreSQL: return once a session waits for a lock (the other writer reached the held
    transaction), or the other writer finished without waiting (what the old code did). SQLite
    has no view of a waiting writer, and needs none: its write transactions run one at a time,
    so the outcome is the same whenever the other writer starts."""
    if not url.startswith("postgresql"):
        return
    engine = sa.create_engine(db.resolve_url(url))
    query = "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
    try:
        with engine.connect() as conn:

            def blocked_or_done() -> bool:
                if not other["thread"].is_alive():
                    return True
                waiting = conn.exec_driver_sql(query).scalar()
                conn.rollback()  # a fresh snapshot of pg_stat_activity
                return bool(waiting)

            wait_for(blocked_or_done, "the other writer to wait for the lock or finish", WAIT, every=0.01)
    finally:
        engine.dispose()


def write_run_file(folder: Path, name: str, record, scores) -> Path:
    return portable.write(folder / f"{name}.parquet", record, scores)


# ---------------------------------------------------------------- case 1: two runs of one spec
def test_two_evals_of_one_spec_at_once_store_one_run(store_url, tmp_path, monkeypatch):
    """Both evaluations pass the "is it stored?" check before either writes (the barrier); one
    stores its run, the other reuses it and says so, and both succeed."""
    monkeypatch.setenv("NEGVIZ_CACHE_DIR", str(tmp_path / "cache"))
    Store(store_url).close()  # the tables exist before the race
    barrier = threading.Barrier(2, timeout=WAIT)

    def evaluate():
        first = [True]

        def progress(done, total, desc):  # called while scoring: after the check, before the write
            if first[0]:
                first[0] = False
                barrier.wait()

        with Store(store_url) as store:
            return run_eval("tfidf", NEVIR, store=store, progress=progress)

    results = [finished(out) for out in [run_in_thread(evaluate) for _ in range(2)]]
    assert all("error" not in out for out in results), [out.get("error") for out in results]
    a, b = (out["result"] for out in results)
    with Store(store_url) as store:
        runs = store.runs(status=None)
        assert len(runs) == 1, runs[["run_id", "spec_key", "status"]]
        stored_id = runs["run_id"].item()
        assert len(store.scores(stored_id)) > 0
    assert a.record.run_id == b.record.run_id == stored_id
    winner, loser = (a, b) if not a.reused else (b, a)
    assert not winner.reused and loser.reused and loser.scores is None
    assert "another evaluation stored this spec" in loser.note and stored_id in loser.note
    assert loser.summary == winner.summary


@pytest.mark.parametrize("force", [False, True], ids=["reuse", "force"])
def test_a_writer_losing_the_race_reuses_the_winner_or_replaces_it(store_url, force):
    """The winner's transaction is held open after it inserted its run; the loser checks, finds
    nothing committed, and writes (on PostgreSQL it then waits on the unique index). Released,
    the loser reuses the winner's run, or with --force replaces it: one complete run either way."""
    winner_store, loser_store = Store(store_url), Store(store_url)
    try:
        with held_after(winner_store.engine, "INSERT INTO RUNS") as (reached, go):
            winner = run_in_thread(winner_store.save_run, make_record(created_at=T0), make_scores(3))
            assert reached.wait(WAIT)
            loser = run_in_thread(
                loser_store.save_run, make_record(created_at=T0 + timedelta(1)), make_scores(3, seed=1), replace=force
            )
            wait_until_blocked(store_url, loser)
            go.set()
        winner, loser = finished(winner), finished(loser)
        assert "error" not in winner, winner.get("error")
        runs = loser_store.runs(status=None)
        if force:
            assert "error" not in loser, loser.get("error")
            assert runs["run_id"].tolist() == [loser["result"]]
        else:
            assert isinstance(loser.get("error"), DuplicateRunError), loser
            assert loser["error"].run.run_id == winner["result"]
            assert runs["run_id"].tolist() == [winner["result"]]
        assert table_count(loser_store, t.item_scores) == 3 * 2
    finally:
        winner_store.close()
        loser_store.close()


def test_the_database_itself_refuses_a_second_complete_run_of_a_spec(store):
    """Not only the writer's check: a plain INSERT of a second complete run of a spec fails."""
    store.save_run(make_record(), make_scores(2))
    second = store._new(make_record(), "complete")
    with pytest.raises(sa.exc.IntegrityError):
        with db.write(store.engine) as conn:
            conn.execute(t.runs.insert().values(**second.to_dict()))
    store.start_run(make_record())  # running, failed and cancelled runs are not limited
    assert len(store.runs(status=None)) == 2


def test_import_keeps_one_run_per_spec_and_force_replaces(store_url, tmp_path, capsys):
    """An exported run beside the bundled run of the same spec: one is imported, the other is
    reported as skipped; a file whose spec the store holds is skipped, or replaces it (--force)."""
    bundled = RUNS / "nevir__tfidf.parquet"
    record, scores = portable.read_record(bundled), portable.read_scores(bundled)
    folder = tmp_path / "runs"
    folder.mkdir()
    shutil.copy(bundled, folder / bundled.name)
    newer = replace(record, run_id="e" * 32, created_at=record.created_at + timedelta(days=1))
    write_run_file(folder, "exported", newer, scores)

    assert main(["--db", store_url, "import-runs", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "imported 1 run(s)" in out
    assert f"skipped {bundled.name}: exported.parquet holds a newer run of the same spec ({newer.run_id})" in out
    with Store(store_url) as store:
        assert store.runs()["run_id"].tolist() == [newer.run_id]
        assert len(store.scores(newer.run_id)) == len(scores)

    newest = replace(record, run_id="f" * 32, created_at=record.created_at + timedelta(days=2))
    again = tmp_path / "again"
    write_run_file(again, "newest", newest, scores)
    assert main(["--db", store_url, "import-runs", str(again)]) == 0
    out = capsys.readouterr().out
    assert "imported 0 run(s)" in out
    assert f"skipped newest.parquet: the store holds run {newer.run_id} of the same spec" in out
    assert "--force replaces it" in out
    assert main(["--db", store_url, "import-runs", str(again), "--force"]) == 0
    assert "imported 1 run(s)" in capsys.readouterr().out
    with Store(store_url) as store:
        assert store.runs()["run_id"].tolist() == [newest.run_id]
        assert table_count(store, t.item_scores) == len(scores)  # the replaced run's scores went with it


def test_bundled_import_skips_a_spec_the_store_holds(store, tmp_path):
    """The app's lazy import of the shipped runs imports the others, and leaves out a run whose
    spec the store already holds (e.g. evaluated before it was bundled)."""
    folder = tmp_path / "bundled"
    folder.mkdir()
    names = ["nevir__tfidf.parquet", "nevir__bm25.parquet"]
    for name in names:
        shutil.copy(RUNS / name, folder / name)
    mine = replace(portable.read_record(folder / names[0]), run_id="", created_at=None)
    own = store.save_run(mine, portable.read_scores(folder / names[0]))

    imported = store.ensure_bundled(folder, lazy=True)
    bm25 = portable.read_record(folder / names[1]).run_id
    assert list(imported) == [bm25]
    assert [(f.name, own in why) for f, why in imported.skipped] == [(names[0], True)]
    assert sorted(store.runs()["run_id"]) == sorted([own, bm25])
    assert list(store.ensure_bundled(folder, lazy=True)) == []  # next start: nothing to do, no error


def test_a_store_holding_duplicates_of_a_spec_opens_keeping_the_newest(store_url, caplog):
    """A store written before the rule may hold several complete runs of one spec: it still
    opens; the newest stays, the older ones go (with their scores); then the rule holds."""
    with Store(store_url) as s:
        with db.write(s.engine) as conn:  # the layout before the rule: no unique index
            conn.exec_driver_sql(f"DROP INDEX IF EXISTS {UNIQUE_INDEX}")
            ids = {}
            for name, key, status, hours in [
                ("old", "k1", "complete", 0),
                ("mid", "k1", "complete", 1),
                ("new", "k1", "complete", 2),
                ("job", "k1", "running", 3),
                ("other", "k2", "complete", 0),
            ]:
                record = s._new(make_record(key, created_at=T0 + timedelta(hours=hours)), status)
                conn.execute(t.runs.insert().values(**record.to_dict()))
                db.bulk_insert(conn, t.item_scores, score_rows(record.run_id, make_scores(2)))
                ids[name] = record.run_id
        assert len(s.runs()) == 4
    with caplog.at_level(logging.WARNING, logger="negviz.store.store"):
        reopened = Store(store_url)
    with reopened as s:
        assert "removed 2 older complete run(s)" in caplog.text
        assert sorted(s.runs()["run_id"]) == sorted([ids["new"], ids["other"]])
        assert ids["job"] in set(s.runs(status=None)["run_id"])
        assert table_count(s, t.item_scores) == 3 * 2 * 2  # new, job, other (old and mid went)
        with db.read(s.engine) as conn:
            indexes = {ix["name"]: ix for ix in sa.inspect(conn).get_indexes("runs")}
        assert indexes[UNIQUE_INDEX]["unique"]
        with pytest.raises(DuplicateRunError):
            s.save_run(make_record(), make_scores(2))
    with Store(store_url) as s:  # opening again: nothing to do
        assert sorted(s.runs()["run_id"]) == sorted([ids["new"], ids["other"]])


# ---------------------------------------------------------------- case 2: a removed dataset
def add_pairs(store: Store, name: str = "mypairs", file: str = "pairs.csv") -> None:
    add_dataset(store, name, (DATA / file).read_bytes(), file, "pairs", PAIRS_MAP, added_by="ana")


def test_removing_a_dataset_while_its_eval_runs_stores_no_run(store_url, tmp_path, monkeypatch, capsys):
    """`negviz datasets remove NAME --yes --delete-runs` while an eval on NAME is scoring: the
    eval's final write finds the dataset gone and fails with a clear message; nothing is stored."""
    monkeypatch.setenv("NEGVIZ_CACHE_DIR", str(tmp_path / "cache"))
    with Store(store_url) as store:
        add_pairs(store)
    removed: list[int] = []

    def progress(done, total, desc):  # the eval is in flight: remove its dataset now
        if not removed:
            removed.append(main(["--db", store_url, "datasets", "remove", "mypairs", "--yes", "--delete-runs"]))

    with Store(store_url) as store:
        with pytest.raises(StoreError, match="'mypairs' was removed from the store while this run was computed"):
            run_eval("tfidf", "mypairs", store=store, progress=progress)
        assert removed == [0] and "0 stored run(s) used it (deleted)" in capsys.readouterr().out
        assert store.runs(dataset="mypairs", status=None).empty
    assert main(["--db", store_url, "runs"]) == 0
    assert "no stored runs" in capsys.readouterr().err


def test_a_dataset_added_again_with_other_content_stores_no_run(store, tmp_path, monkeypatch):
    monkeypatch.setenv("NEGVIZ_CACHE_DIR", str(tmp_path / "cache"))
    add_pairs(store)
    swapped: list[bool] = []

    def progress(done, total, desc):
        if not swapped:
            swapped.append(True)
            stored.remove(store, "mypairs")
            add_pairs(store, file="pairs.tsv")  # the same name, other bytes

    with pytest.raises(StoreError, match="removed and added again with other content"):
        run_eval("tfidf", "mypairs", store=store, progress=progress)
    assert store.runs(status=None).empty


def test_removal_waits_for_a_run_being_stored_and_counts_it(store_url, tmp_path, monkeypatch):
    """The other order: the eval's write transaction has inserted its run when the removal
    starts. The removal waits for it (PostgreSQL: the write holds the dataset's row), then
    counts and deletes the run; no run is left on the removed dataset."""
    monkeypatch.setenv("NEGVIZ_CACHE_DIR", str(tmp_path / "cache"))
    writer, remover = Store(store_url), Store(store_url)
    try:
        add_pairs(writer)
        with held_after(writer.engine, "INSERT INTO RUNS") as (reached, go):
            evaluation = run_in_thread(run_eval, "tfidf", "mypairs", store=writer)
            assert reached.wait(WAIT)
            removal = run_in_thread(stored.remove, remover, "mypairs", delete_runs=True)
            wait_until_blocked(store_url, removal)
            go.set()
        evaluation, removal = finished(evaluation), finished(removal)
        assert "error" not in evaluation, evaluation.get("error")
        assert removal.get("result") == 1, removal
        assert remover.runs(status=None).empty and stored.get(remover, "mypairs") is None
    finally:
        writer.close()
        remover.close()
