"""The results store, on a real SQLite file and a real PostgreSQL server (see tests/support/pg.py)."""

from __future__ import annotations

import multiprocessing
import uuid
from datetime import datetime, timedelta, timezone

import numpy as np
import pandas as pd
import pytest
import sqlalchemy as sa

from negviz.errors import DataValidationError
from negviz.schema import DatasetSpec, ModelSpec
from negviz.store import DuplicateRunError, RunNotFoundError, RunRecord, Store, StoreError, db
from negviz.store import tables as t
from tests.support.counting import statements
from tests.support.pg import pg_url, store, store_url  # noqa: F401  (fixtures)

T0 = datetime(2025, 1, 1, tzinfo=timezone.utc)


def make_scores(n: int, slots=("q1_d1", "q1_d2"), seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "item_id": np.repeat([f"{1000 + i}-2" for i in range(n)], len(slots)),
            "slot": list(slots) * n,
            "score": rng.normal(size=n * len(slots)),
        }
    )


def make_record(spec_key: str = "k1", dataset: str = "nevir", **fields) -> RunRecord:
    model = ModelSpec.make("all-MiniLM-L6-v2", family="bi_encoder", revision="main", similarity="dot")
    return RunRecord.from_specs(
        model, DatasetSpec.make(dataset, limit=10), spec_key=spec_key, dataset_kind="pairs", **fields
    )


def table_count(store: Store, table: sa.Table) -> int:
    with db.read(store.engine) as conn:
        return conn.execute(sa.select(sa.func.count()).select_from(table)).scalar()


# ---------------------------------------------------------------- runs
def test_run_round_trip(store):
    scores = make_scores(20)
    summary = {"paired_accuracy": np.float64(0.25), "n_ties": np.int64(3), "ci": [0.1, 0.4], "rho": float("nan")}
    record = make_record(options={"tie_rule": "nevir", "nested": {"k": [1, 2]}}, summary=summary, device="cpu")
    run_id = store.save_run(record, scores)

    assert len(run_id) == 32 and int(run_id, 16) >= 0
    got = store.get_run(run_id)
    assert got.status == "complete" and got.kind == "eval" and got.n == 20
    assert got.model == record.model and got.dataset == record.dataset  # specs round-trip through JSON
    assert got.options == {"tie_rule": "nevir", "nested": {"k": [1, 2]}}
    # numpy scalars stored as plain numbers; NaN as null (PostgreSQL JSON has no NaN)
    assert got.summary == {"paired_accuracy": 0.25, "n_ties": 3, "ci": [0.1, 0.4], "rho": None}
    assert got.created_at.tzinfo is not None and got.finished_at >= got.created_at
    assert got.host and got.code_version and got.device == "cpu"

    back = store.scores(run_id)
    assert list(back.columns) == ["item_id", "slot", "score"]
    expected = scores.sort_values(["item_id", "slot"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(back, expected, check_dtype=False)
    assert back["score"].tolist() == expected["score"].tolist()  # exact float64 round trip

    wide = store.scores_wide(run_id)
    assert wide.shape == (20, 2) and list(wide.columns) == ["q1_d1", "q1_d2"]
    assert wide.loc["1003-2", "q1_d2"] == scores.query("item_id == '1003-2' and slot == 'q1_d2'")["score"].item()


def test_save_run_rejects_bad_scores_and_writes_nothing(store):
    scores = make_scores(5)
    scores.loc[7, "score"] = np.nan
    with pytest.raises(DataValidationError, match=r"'1003-2'.*'q1_d2'.*not a finite number"):
        store.save_run(make_record(), scores)
    with pytest.raises(DataValidationError, match="exactly the columns"):
        store.save_run(make_record(), make_scores(2).rename(columns={"score": "value"}))
    with pytest.raises(DataValidationError, match="twice"):
        store.save_run(make_record(), pd.concat([make_scores(2), make_scores(1)]))
    assert store.runs(status=None).empty
    assert table_count(store, t.item_scores) == 0


def test_failed_write_rolls_back_the_whole_transaction(store):
    run_id = store.save_run(make_record(), make_scores(3))
    # Same run id again: the run insert fails; the stored run and its scores are untouched.
    with pytest.raises(sa.exc.IntegrityError):
        store.save_run(make_record(run_id=run_id), make_scores(50))
    assert table_count(store, t.item_scores) == 6
    # A bulk insert failing after the run row was written takes the run row with it.
    record = make_record(run_id=uuid.uuid4().hex, status="complete", created_at=T0)
    with pytest.raises(sa.exc.IntegrityError):
        with db.write(store.engine) as conn:
            conn.execute(t.runs.insert().values(**record.to_dict()))
            db.bulk_insert(conn, t.item_scores, [(record.run_id, "a", "s", 1.0)] * 2)
    assert store.runs(status=None)["run_id"].tolist() == [run_id]
    assert table_count(store, t.item_scores) == 6


def test_find_run_returns_the_complete_run_of_a_spec_stored_once(store):
    """One complete run per spec: a second one is refused (DuplicateRunError names the stored
    run, nothing is written); running runs of the spec are not limited until they complete."""
    assert store.find_run("k1") is None
    first = store.save_run(make_record(created_at=T0), make_scores(2))
    store.save_run(make_record("other", created_at=T0 + timedelta(hours=3)), make_scores(2))
    running = store.start_run(make_record(created_at=T0 + timedelta(hours=2)))
    assert store.find_run("k1").run_id == first
    with pytest.raises(DuplicateRunError, match=f"already stored \\(run {first}") as taken:
        store.save_run(make_record(created_at=T0 + timedelta(hours=1)), make_scores(2))
    assert taken.value.run.run_id == first and taken.value.run.summary == {}
    assert len(store.runs()) == 2 and table_count(store, t.item_scores) == 2 * 2 * 2
    with pytest.raises(DuplicateRunError):  # completing a running run of the spec: refused, still running
        store.finish_run(running, {"acc": 1.0}, wall_seconds=2.0, scores=make_scores(2))
    assert store.get_run(running).status == "running" and table_count(store, t.item_scores) == 2 * 2 * 2
    store.finish_run(running, {"acc": 1.0}, wall_seconds=2.0, replace=True)  # a forced job replaces it
    assert store.find_run("k1").run_id == running
    with pytest.raises(RunNotFoundError):
        store.get_run(first)
    store.delete_run(running)
    assert store.find_run("k1") is None


def test_save_run_replace_keeps_one_run_per_spec(store):
    """A forced re-run (replace=True) deletes the complete runs of its spec, with their scores,
    in the transaction that writes it; other specs and running jobs stay."""
    first = store.save_run(make_record(created_at=T0), make_scores(3))
    second = store.save_run(make_record(created_at=T0 + timedelta(hours=1)), make_scores(3), replace=True)
    assert store.runs()["run_id"].tolist() == [second]
    other = store.save_run(make_record("other", created_at=T0), make_scores(3))
    running = store.start_run(make_record(created_at=T0 + timedelta(hours=2)))
    latest = store.save_run(make_record(created_at=T0 + timedelta(hours=3)), make_scores(3, seed=1), replace=True)
    complete = store.runs()
    assert sorted(complete["run_id"]) == sorted([latest, other])
    assert running in set(store.runs(status=None)["run_id"])
    assert table_count(store, t.item_scores) == 2 * 3 * 2  # latest + other
    with pytest.raises(RunNotFoundError):
        store.get_run(first)
    # Bad scores: nothing is replaced.
    with pytest.raises(DataValidationError, match="twice"):
        store.save_run(make_record(), pd.concat([make_scores(2), make_scores(1)]), replace=True)
    assert store.find_run("k1").run_id == latest


def test_runs_filters_and_orders_newest_first(store):
    a = store.save_run(make_record(dataset="nevir", created_at=T0), make_scores(2))
    b = store.save_run(make_record("k2", dataset="excluir", created_at=T0 + timedelta(minutes=1)), make_scores(2))
    c = store.start_run(make_record(dataset="nevir", kind="finetune", created_at=T0 + timedelta(minutes=2)))
    assert store.runs()["run_id"].tolist() == [b, a]
    assert store.runs(status=None)["run_id"].tolist() == [c, b, a]
    assert store.runs(dataset="nevir")["run_id"].tolist() == [a]
    assert store.runs(kind="finetune", status="running")["run_id"].tolist() == [c]
    frame = store.runs(status=None)
    assert isinstance(frame.loc[0, "model_spec"], dict) and frame.loc[0, "dataset_spec"]["limit"] == 10
    assert str(frame["created_at"].dtype).startswith("datetime64") and frame["created_at"].dt.tz is not None
    empty = store.runs(dataset="nope")
    assert empty.empty and "run_id" in empty.columns


def test_start_and_finish_run(store):
    run_id = store.start_run(make_record(kind="finetune"))
    assert store.get_run(run_id).status == "running" and store.find_run("k1") is None
    store.finish_run(run_id, {"best_epoch": 2}, wall_seconds=12.5, scores=make_scores(4))
    got = store.get_run(run_id)
    assert (got.status, got.summary, got.wall_seconds, got.n) == ("complete", {"best_epoch": 2}, 12.5, 4)
    assert len(store.scores(run_id)) == 8
    with pytest.raises(StoreError, match="already complete"):
        store.finish_run(run_id, {}, status="failed")
    failed = store.start_run(make_record())
    store.finish_run(failed, status="failed", error="CUDA out of memory")
    assert store.get_run(failed).error == "CUDA out of memory"
    with pytest.raises(RunNotFoundError):
        store.finish_run("0" * 32, {})
    with pytest.raises(StoreError, match="kind"):
        store.start_run(make_record(kind="training"))


def test_missing_runs_and_cascading_delete(store):
    with pytest.raises(KeyError, match="no run 'nope'"):  # RunNotFoundError is a KeyError
        store.get_run("nope")
    for call in (store.scores, store.epochs, store.delete_run):
        with pytest.raises(RunNotFoundError):
            call("nope")
    run_id = store.save_run(make_record(), make_scores(3))
    store.add_epoch(run_id, 0, {"acc": 0.5}, pd.DataFrame({"item_id": ["a"], "name": ["cos"], "value": [0.9]}))
    store.delete_run(run_id)
    assert [table_count(store, x) for x in (t.runs, t.item_scores, t.epochs, t.epoch_items)] == [0, 0, 0, 0]


# ---------------------------------------------------------------- epochs
def test_epochs(store):
    run_id = store.start_run(make_record(kind="finetune"))
    assert store.epochs(run_id).empty
    for epoch in range(3):
        items = pd.DataFrame(
            {
                "item_id": ["p1", "p1", "p2", "p2"],
                "name": ["cos_d1_d2", "margin"] * 2,
                "value": [1.0 - 0.1 * epoch, 0.1 * epoch, 0.99 - 0.2 * epoch, 0.0],
            }
        )
        store.add_epoch(run_id, epoch, {"paired_accuracy": 0.2 + 0.1 * epoch, "cos": {"mean": 0.9, "std": 0.01}}, items)
    frame = store.epochs(run_id)
    assert list(frame.columns) == ["epoch", "created_at", "cos.mean", "cos.std", "paired_accuracy"]
    assert frame["epoch"].tolist() == [0, 1, 2]
    assert frame["paired_accuracy"].tolist() == pytest.approx([0.2, 0.3, 0.4])
    items = store.epoch_items(run_id)
    assert list(items.columns) == ["epoch", "item_id", "name", "value"] and len(items) == 12
    one = store.epoch_items(run_id, epoch=2)
    assert one.query("item_id == 'p2' and name == 'cos_d1_d2'")["value"].item() == pytest.approx(0.59)
    with pytest.raises(StoreError, match="already stored"):
        store.add_epoch(run_id, 1, {})
    with pytest.raises(StoreError, match="may not be called"):
        store.add_epoch(run_id, 5, {"epoch": 5})
    with pytest.raises(RunNotFoundError):
        store.add_epoch("nope", 0, {})
    assert len(store.epochs(run_id)) == 3  # the failed adds wrote nothing


# ---------------------------------------------------------------- annotations
def test_annotation_versions_and_history(store):
    assert store.add_annotation("nevir", "1230-2", "ana", {"type": "affixal"}) == 1
    assert store.add_annotation("nevir", "1230-2", "ana", {"type": "implicit"}, note="unlike") == 2
    assert store.add_annotation("nevir", "1230-2", "bo", {"type": "sentential"}) == 1
    assert store.add_annotation("nevir", "77-3", "ana", {"type": "none"}) == 1
    assert store.add_annotation("excluir", "1230-2", "ana", {"exclusion": True}) == 1

    latest = store.annotations("nevir")
    assert latest[["item_id", "annotator", "version"]].values.tolist() == [
        ["1230-2", "ana", 2],
        ["1230-2", "bo", 1],
        ["77-3", "ana", 1],
    ]
    assert latest.loc[0, "labels"] == {"type": "implicit"} and latest.loc[0, "note"] == "unlike"
    history = store.annotations("nevir", item_id="1230-2", annotator="ana", latest=False)
    assert history["version"].tolist() == [1, 2]
    assert [lab["type"] for lab in history["labels"]] == ["affixal", "implicit"]
    assert len(store.annotations(latest=False)) == 5 and len(store.annotations(annotator="ana")) == 3
    assert store.annotations("nope").empty
    with pytest.raises(StoreError, match="annotator"):
        store.add_annotation("nevir", "1", "", {})


# ---------------------------------------------------------------- portable run files
def test_export_import_is_idempotent(store, tmp_path):
    scores = make_scores(30, slots=("pos", "neg"))
    run_id = store.save_run(make_record(summary={"rr": 0.62}, wall_seconds=1.5), scores)
    before = store.get_run(run_id)
    bundle = tmp_path / "runs"
    bundle.mkdir()
    path = store.export_run(run_id, bundle)
    assert path == bundle / f"{run_id}.parquet"

    assert store.import_runs(bundle) == [] and store.ensure_bundled(bundle) == []  # already there
    store.delete_run(run_id)
    assert store.ensure_bundled(bundle) == [run_id]
    assert store.get_run(run_id) == before
    assert store.scores(run_id)["score"].tolist() == scores.sort_values(["item_id", "slot"])["score"].tolist()
    assert store.import_runs(path) == []
    assert len(store.runs()) == 1
    assert store.ensure_bundled(tmp_path / "missing") == []
    (bundle / "junk.parquet").write_text("not parquet")
    with pytest.raises(DataValidationError, match="junk.parquet"):
        store.import_runs(bundle)


def test_scores_many_reads_several_runs_in_one_query(store, tmp_path):
    a = store.save_run(make_record("ka"), make_scores(30, seed=1))
    b = store.save_run(make_record("kb"), make_scores(12, slots=("pos", "neg"), seed=2))
    empty = store.start_run(make_record("kc"))
    many = store.scores_many([b, a, empty, a])
    assert list(many) == [b, a, empty]
    for run_id in (a, b, empty):
        pd.testing.assert_frame_equal(many[run_id], store.scores(run_id))
    wide = store.scores_wide_many([a, b])
    pd.testing.assert_frame_equal(wide[a], store.scores_wide(a))
    assert list(wide[b].columns) == ["neg", "pos"] and len(wide[b]) == 12
    assert store.scores_many([]) == {}
    with pytest.raises(RunNotFoundError):
        store.scores_many([a, "nope"])
    # A lazily imported run is copied in when read this way too.
    store.export_run(a, tmp_path)
    store.delete_run(a)
    store.import_runs(tmp_path, lazy=True)
    assert len(store.scores_many([a, b])[a]) == 60 and store.pending_runs() == []


def test_lazy_import_lists_at_once_and_copies_scores_once(store, tmp_path):
    scores = make_scores(40, slots=("pos", "neg"))
    run_a = store.save_run(make_record("ka", summary={"rr": 0.5}), scores)
    run_b = store.save_run(make_record("kb", dataset="excluir"), make_scores(10, seed=1))
    bundle = tmp_path / "runs"
    bundle.mkdir()
    for rid in (run_a, run_b):
        store.export_run(rid, bundle)
        store.delete_run(rid)

    assert sorted(store.ensure_bundled(bundle, lazy=True)) == sorted([run_a, run_b])
    assert store.ensure_bundled(bundle, lazy=True) == []  # records already there
    assert sorted(store.pending_runs()) == sorted([run_a, run_b])
    assert set(store.runs()["run_id"]) == {run_a, run_b}  # listed with summaries before any score is copied
    assert store.get_run(run_a).summary == {"rr": 0.5} and table_count(store, t.item_scores) == 0

    # The first read of a pending run copies its scores in; the other stays pending.
    assert store.scores(run_a)["score"].tolist() == scores.sort_values(["item_id", "slot"])["score"].tolist()
    assert store.pending_runs() == [run_b] and table_count(store, t.item_scores) == 80
    assert store.load_pending(run_a) == 0  # already copied: nothing done twice
    with Store(store.engine.url.render_as_string(hide_password=False)) as other:  # a second store on it
        assert other.load_pending() == 1
    assert store.load_pending() == 0 and store.pending_runs() == []
    assert table_count(store, t.item_scores) == 100 and len(store.scores_wide(run_b)) == 10
    store.delete_run(run_b)  # the pending row (gone already) would cascade too


def test_store_made_by_older_layout_opens_and_gains_indexes(store_url):
    """A store made before the pending_scores table and the listing index (main's layout) opens,
    gets them added, and reads its runs as before."""
    with Store(store_url) as s:
        run_id = s.save_run(make_record(), make_scores(5))
        with db.write(s.engine) as conn:
            conn.exec_driver_sql("DROP INDEX ix_runs_listing")
            conn.exec_driver_sql("DROP TABLE pending_scores")
    with Store(store_url) as s:
        with db.read(s.engine) as conn:
            inspector = sa.inspect(conn)
            assert "pending_scores" in inspector.get_table_names()
            assert "ix_runs_listing" in {ix["name"] for ix in inspector.get_indexes("runs")}
        assert len(s.scores(run_id)) == 10 and s.pending_runs() == []


# ---------------------------------------------------------------- engine and schema
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


def test_reopen_and_refuse_newer_schema(store_url):
    Store(store_url).close()
    with Store(store_url) as again:  # second open: tables exist, nothing to do
        assert again.runs().empty
        with db.write(again.engine) as conn:
            conn.execute(t.meta.update().values(value="99"))
    with pytest.raises(StoreError, match="newer"):
        Store(store_url)


def test_resolve_url(tmp_path, monkeypatch):
    assert db.resolve_url("postgresql://u:p@h:5/d").drivername == "postgresql+psycopg"
    assert db.resolve_url("postgresql+psycopg://u:p@h/d").drivername == "postgresql+psycopg"
    assert db.resolve_url(tmp_path / "a" / "r.sqlite").database == str(tmp_path / "a" / "r.sqlite")
    monkeypatch.setenv("NEGVIZ_DB_URL", f"sqlite:///{tmp_path}/env.sqlite")
    assert db.resolve_url(None).database == f"{tmp_path}/env.sqlite"
    monkeypatch.delenv("NEGVIZ_DB_URL")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert db.resolve_url(None).database == str(tmp_path / "xdg" / "negviz" / "results.sqlite")


def test_a_large_run_is_saved_with_as_many_statements_as_a_small_one(store):
    """105,000 scores reach the store in one bulk write (one executemany on SQLite, a COPY on
    PostgreSQL), not a statement per score: saving them sends the same statements as saving 300.
    Their time against a plain executemany of the same rows is measured by
    benchmarks/bench_store.py --save-run."""
    slots = ("candidate", "perturbed", "empty")
    with statements(store.engine) as few:
        store.save_run(make_record("small"), make_scores(100, slots=slots))
    with statements(store.engine) as many:
        run_id = store.save_run(make_record("large"), make_scores(35_000, slots=slots))
    assert len(store.scores(run_id)) == 105_000
    assert 0 < len(many) == len(few) and many == few, "\n".join(many)


# ---------------------------------------------------------------- several processes at once
N_PROCS, N_ANNOTATIONS, N_RUNS, SHARED_ITEMS = 4, 50, 2, 10


def _writer(url: str, proc: int, barrier) -> None:
    store = Store(url)
    barrier.wait()  # all writers start together, to collide
    for i in range(N_ANNOTATIONS):
        # Every process annotates the same items as the same annotator: versions must interleave.
        store.add_annotation("nevir", f"item{i % SHARED_ITEMS}", "shared", {"proc": proc, "i": i})
        if i % (N_ANNOTATIONS // N_RUNS) == 0:
            store.save_run(make_record(f"proc{proc}-{i}"), make_scores(500, seed=proc))
    store.close()


def test_concurrent_writers(store_url):
    # No Store opened first: the writers also race to create the tables of a new database.
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(N_PROCS)
    procs = [ctx.Process(target=_writer, args=(store_url, p, barrier), daemon=True) for p in range(N_PROCS)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
    assert [p.exitcode for p in procs] == [0] * N_PROCS

    with Store(store_url) as store:
        history = store.annotations("nevir", latest=False)
        assert len(history) == N_PROCS * N_ANNOTATIONS
        per_item = N_PROCS * N_ANNOTATIONS // SHARED_ITEMS
        for _, versions in history.groupby("item_id")["version"]:
            assert sorted(versions) == list(range(1, per_item + 1))
        latest = store.annotations("nevir")
        assert len(latest) == SHARED_ITEMS and set(latest["version"]) == {per_item}
        runs = store.runs()
        assert len(runs) == N_PROCS * N_RUNS and set(runs["n"]) == {500}
        assert table_count(store, t.item_scores) == N_PROCS * N_RUNS * 1000
