"""negviz.store.run_import: portable run files exported and imported (at once or lazily, the
scores copied on first read) and the texts a run kept per item, on SQLite and PostgreSQL (see
tests/support/pg.py)."""

from __future__ import annotations

import pandas as pd
import pytest

from negviz.core.errors import DataValidationError
from negviz.store import Store, StoreError
from negviz.store import tables as t
from tests.store.test_run_table import make_record, make_scores, table_count
from tests.support.pg import pg_url, store, store_url  # noqa: F401  (fixtures)


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

    # A pending run reads in place from its file, as the store gives it once copied in; nothing is copied.
    in_place = store.scores(run_a)
    assert in_place["score"].tolist() == scores.sort_values(["item_id", "slot"])["score"].tolist()
    assert sorted(store.pending_runs()) == sorted([run_a, run_b]) and table_count(store, t.item_scores) == 0
    assert store.load_pending(run_a) == 1 and store.pending_runs() == [run_b]
    assert table_count(store, t.item_scores) == 80
    pd.testing.assert_frame_equal(store.scores(run_a), in_place)  # the same frame, from the table now
    assert store.load_pending(run_a) == 0  # already copied: nothing done twice
    with Store(store.engine.url.render_as_string(hide_password=False)) as other:  # a second store on it
        assert other.load_pending() == 1
    assert store.load_pending() == 0 and store.pending_runs() == []
    assert table_count(store, t.item_scores) == 100 and len(store.scores_wide(run_b)) == 10
    store.delete_run(run_b)  # the pending row (gone already) would cascade too


def test_a_pending_run_whose_file_went_or_changed_is_refused_with_the_file_named(store, tmp_path):
    """A pending run is read from its file, so a file removed, or regenerated with another run
    under the same name (make data-runs), is an error naming both, never another run's scores."""
    first = store.save_run(make_record("ka"), make_scores(4))
    other = store.save_run(make_record("kb"), make_scores(6, seed=1))
    bundle = tmp_path / "runs"
    bundle.mkdir()
    file = store.export_run(first, bundle / "shipped.parquet")
    replacement = store.export_run(other, tmp_path / "other.parquet")
    store.delete_run(first)
    assert store.import_runs(bundle, lazy=True) == [first]
    replacement.replace(file)
    with pytest.raises(
        StoreError, match=f"run {first}: its scores were pending in .*shipped.parquet, which now holds run {other}"
    ):
        store.scores(first)
    file.unlink()
    with pytest.raises(StoreError, match="shipped.parquet, which is missing"):
        store.load_pending(first)
