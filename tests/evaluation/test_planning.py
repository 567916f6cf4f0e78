"""The fill plan: which cells the board leaves empty, each cut into shards, its cost from the
throughput stored runs measured (or a stated assumption), and what the plan leaves out."""

from __future__ import annotations

import pandas as pd
import pytest

from negviz.analyses.board import fill_cells
from negviz.core.cache import ScoreCache
from negviz.core.errors import NegvizError
from negviz.core.schema import DatasetSpec
from negviz.evaluation.fill.commit import keep
from negviz.evaluation.fill.planning import ASSUMED_PAIRS_PER_SECOND, LeftOut, make_plan, throughput
from negviz.evaluation.fill.shards import compute_shard
from negviz.evaluation.runner import run_eval
from negviz.results.dataset_view import DatasetView
from negviz.store import Store

SLICE = DatasetSpec.make("nevir", limit=40)


@pytest.fixture
def store(tmp_path):
    with Store(tmp_path / "results.sqlite") as s:
        yield s


def test_fill_cells_are_the_empty_evaluation_cells_and_samples(store, tmp_path):
    run_eval("tfidf", SLICE, store=store, cache=ScoreCache(tmp_path / "c.sqlite"))  # a sample of NevIR
    board = DatasetView(store).board()
    cells, left = fill_cells(board)
    assert [(c.model, c.dataset) for c in cells] == [
        ("tfidf", "nevir"),  # it holds a sample only: the whole benchmark is still to fill
        ("tfidf", "excluir"),
        ("tfidf", "demetr"),
        ("tfidf", "cannot"),
    ]
    assert cells[2].keys == ("demetr_negation", "demetr_antonym")  # one run fills both columns
    # a search over the corpus and general retrieval are not evaluations of pairs: left out, with their commands
    assert "negviz eval --model tfidf --dataset excluir --corpus offline" in set(left["command"])
    assert any("negviz finetune" in c for c in left["command"])

    chosen, _ = fill_cells(board, models=["bm25", "tfidf"], benchmarks=["demetr"])
    assert [(c.model, c.dataset) for c in chosen] == [("bm25", "demetr"), ("tfidf", "demetr")]
    with pytest.raises(NegvizError, match="no benchmark nevirr"):
        fill_cells(board, benchmarks=["nevirr"])


def test_throughput_comes_from_the_models_stored_runs_on_the_worker_kind():
    runs = pd.DataFrame(
        {
            "model_name": ["m", "m", "m", "m", "other"],
            "dataset_name": ["nevir", "demetr", "nevir", "nevir", "nevir"],
            "dataset_kind": ["pairs", "perturbation", "pairs", "pairs", "pairs"],
            "device": ["cpu", "cpu", "cuda:0", "cached", "cpu"],
            "wall_seconds": [100.0, 50.0, 1.0, 0.1, 1.0],
            "n": [1000, 500, 1000, 1000, 1000],
        }
    )
    nevir = throughput(runs, "m", "nevir", "cpu")  # its NevIR run on a CPU: 1,000 items x 4 slots in 100 s
    assert nevir.measured and nevir.pairs_per_second == pytest.approx(40.0)
    demetr = throughput(runs, "m", "cannot", "cpu")  # no CANNOT run: all its CPU runs
    assert demetr.pairs_per_second == pytest.approx((1000 * 4 + 500 * 3) / 150)
    assert throughput(runs, "m", "nevir", "cuda").pairs_per_second == pytest.approx(4000.0)
    assumed = throughput(runs, "unseen", "nevir", "cpu")
    assert not assumed.measured and assumed.pairs_per_second == ASSUMED_PAIRS_PER_SECOND["cpu"]
    assert "assumed" in assumed.source


def test_the_plan_cuts_cells_reuses_kept_shards_and_says_what_it_leaves_out(store, tmp_path):
    cache = ScoreCache(tmp_path / "c.sqlite")
    cells = [("tfidf", SLICE, "NevIR"), ("bm25", SLICE, "NevIR"), ("no-such-model-xyz", SLICE, "NevIR")]
    left = [
        LeftOut("tfidf", "ExcluIR offline corpus ΔR@1", "negviz eval --model tfidf --dataset excluir --corpus offline")
    ]
    plan = make_plan(store, cells, shards=3, left_out=left, cache=cache)
    # BM25's scores depend on its collection (every document of the run): it is never cut
    assert [(c.model, len(c.shards), c.items) for c in plan.cells] == [("tfidf", 3, 40), ("bm25", 1, 40)]
    assert "bm25 on nevir (first 40 items) · NevIR: 40 items in 1 shard (one: its scores depend" in plan.text()
    assert [lo.model for lo in plan.left_out] == ["tfidf", "no-such-model-xyz"]
    assert "not in the catalog" in plan.left_out[1].why

    keep(store, compute_shard(plan.cells[0].shards[1], cache_dir=str(tmp_path / "w")))  # a killed fill's shard
    run_eval("bm25", SLICE, store=store, cache=cache)  # another evaluation stored bm25's spec
    again = make_plan(store, cells, shards=3, left_out=left, cache=cache)
    assert [c.model for c in again.cells] == ["tfidf"]  # a stored spec is not planned again
    assert again.cells[0].done == {1} and [s.index for s in again.cells[0].todo] == [0, 2]
    text = again.text(workers=2)
    assert "tfidf on nevir (first 40 items) · NevIR: 40 items in 3 shards, 1 finished by an earlier fill" in text
    assert "2 shards to run" in text and "assumed: no stored run of tfidf" in text
    assert "negviz eval --model tfidf --dataset excluir --corpus offline" in text
    assert "tfidf (ExcluIR offline corpus ΔR@1)" in text


def test_a_limit_is_said_per_group_where_the_kind_limits_each_group():
    """DEMETR's limit keeps the first N items of each perturbation (its kind's limit_by): the plan
    says so, so 120 does not read as 120 items when the cell holds 35 x 120."""
    from negviz.core.kinds import PAIRS_KIND, PERTURBATION_KIND
    from negviz.evaluation.fill.planning import dataset_text

    assert dataset_text(DatasetSpec.make("demetr", limit=120), PERTURBATION_KIND) == (
        "demetr (first 120 items of each perturbation)"
    )
    assert dataset_text(DatasetSpec.make("nevir", limit=40), PAIRS_KIND) == "nevir (first 40 items)"
    assert dataset_text(DatasetSpec.make("nevir")) == "nevir"
