"""negviz.store.run_table: runs with their per-item scores (save, start and finish, find one
complete run per spec, list, read one or many, delete), on a real SQLite file and a real
PostgreSQL server (see tests/support/pg.py). The helpers here (make_record, make_scores,
table_count) serve the other store tests too. Heartbeats: test_heartbeats.py."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta, timezone

import numpy as np
import pandas as pd
import pytest
import sqlalchemy as sa

from negviz.core.errors import DataValidationError
from negviz.core.schema import DatasetSpec, ModelSpec
from negviz.store import DuplicateRunError, RunNotFoundError, RunRecord, Store, StoreError, db
from negviz.store import tables as t
from negviz.store.run_table import unsaved_runs_dir
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
    # A lazily imported run is read in place from its file this way too, as scores() reads it.
    stored = store.scores(a)
    store.export_run(a, tmp_path)
    store.delete_run(a)
    store.import_runs(tmp_path, lazy=True)
    pd.testing.assert_frame_equal(store.scores_many([a, b])[a], stored)
    assert store.pending_runs() == [a]


def test_unsaved_runs_go_to_the_folder_the_environment_names(tmp_path, monkeypatch):
    monkeypatch.setenv("NEGVIZ_UNSAVED_DIR", str(tmp_path / "kept"))
    assert unsaved_runs_dir() == tmp_path / "kept"
    monkeypatch.delenv("NEGVIZ_UNSAVED_DIR")
    assert unsaved_runs_dir().name == "unsaved-runs"
