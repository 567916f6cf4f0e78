"""The plan that fills the board's empty cells (negviz.results.board_fill.board_plan): the board's
empty cells of the chosen models and benchmarks, cut into shards; the cells a plain evaluation
cannot fill left out with what fills them; a cell the store holds left alone."""

from __future__ import annotations

import pandas as pd

from negviz.core.schema import DatasetSpec
from negviz.evaluation.runner import run_eval
from negviz.results.board_fill import board_plan
from negviz.store import Store


def test_the_plan_holds_the_empty_cells_of_the_chosen_models_and_benchmarks(tmp_path, monkeypatch):
    monkeypatch.setenv("NEGVIZ_CACHE_DIR", str(tmp_path / "cache"))
    with Store(f"sqlite:///{tmp_path / 'runs.sqlite'}") as store:
        plan = board_plan(pd.DataFrame(), store, models=["tfidf"], benchmarks=["nevir"], limit=20, shards=3)
        assert [(c.model, c.dataset.name, c.dataset.limit, len(c.shards), c.items) for c in plan.cells] == [
            ("tfidf", "nevir", 20, 3, 20)
        ]
        everything = board_plan(pd.DataFrame(), store, models=["tfidf"], limit=20)
        assert len(everything.cells) > 1 and everything.left_out  # corpus search, general retrieval: other commands
        assert all(c.why for c in everything.left_out)
        run_eval("tfidf", DatasetSpec.make("nevir", "test", 20), store=store)
        # A board read before the run landed still shows the cell empty: the store's run is kept, not redone.
        assert board_plan(pd.DataFrame(), store, models=["tfidf"], benchmarks=["nevir"], limit=20).cells == []
