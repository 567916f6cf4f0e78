"""Reasoning kept with a run: Rank1's template on a real tiny causal LM generates text before its
verdict; the text reaches the store's item_texts table, survives a cached re-run, and travels
in the run file (eager and lazy import)."""

from __future__ import annotations

import pytest

from negviz.core.cache import ScoreCache
from negviz.core.schema import DatasetSpec, ModelSpec
from negviz.evaluation.runner import run_eval
from negviz.store import Store

DATASET = DatasetSpec.make("nevir", limit=2)


@pytest.fixture(scope="module")
def rank1(tiny_model_dir) -> ModelSpec:
    path = tiny_model_dir("llm-pointwise")
    return ModelSpec.make(str(path), "llm-pointwise", template="rank1", max_reasoning_tokens=6)


def test_reasoning_is_stored_per_item_and_query(rank1, store, tmp_path):
    cache = ScoreCache(tmp_path / "c.sqlite")
    run = run_eval(rank1, DATASET, store=store, cache=cache, device="cpu")
    texts = store.item_texts(run.record.run_id)
    assert len(texts) == 8 and set(texts["name"]) == {"reasoning"}
    assert set(texts["slot"]) == {"q1_d1", "q1_d2", "q2_d1", "q2_d2"}
    assert texts["text"].str.len().gt(0).all()
    # A cached re-run computes nothing and still keeps the reasoning (it is cached with the scores).
    again = run_eval(rank1, DATASET, store=store, cache=cache, device="cpu", force=True)
    assert again.record.summary["generation"]["pairs_from_score_cache"] == 8
    assert (
        store.item_texts(again.record.run_id).sort_values(["item_id", "slot"])["text"].tolist()
        == texts.sort_values(["item_id", "slot"])["text"].tolist()
    )
    # And a run file carries it into another store, eagerly or lazily.
    file = store.export_run(again.record.run_id, tmp_path / "run.parquet")
    for lazy in (False, True):
        with Store(f"sqlite:///{tmp_path / f'other-{lazy}.sqlite'}") as other:
            other.import_runs(file, lazy=lazy)
            if lazy:
                assert other.pending_runs() == [again.record.run_id]  # the record only, so far
            # A lazily imported run's texts are read from its file until copied in, with its scores.
            assert len(other.item_texts(again.record.run_id)) == 8
            other.load_pending()
            assert other.pending_runs() == [] and len(other.item_texts(again.record.run_id)) == 8


def test_a_template_without_reasoning_keeps_no_text(tiny_model_dir, store, tmp_path):
    spec = ModelSpec.make(str(tiny_model_dir("llm-pointwise")), "llm-pointwise")
    run = run_eval(spec, DATASET, store=store, cache=ScoreCache(tmp_path / "c.sqlite"), device="cpu")
    assert store.item_texts(run.record.run_id).empty
