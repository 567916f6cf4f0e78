"""negviz.ui.evaluate.fill_watch: the benchmarks a person picks are names the plan takes, and how a plan's
end is said (the page itself, with real plans: tests/pages/test_evaluate_fill_page.py)."""

from __future__ import annotations

import pandas as pd

from negviz.analyses.board import fill_cells
from negviz.evaluation.fill.fill_jobs import CANCELLED, COMPLETE, FAILED, FillJob
from negviz.ui.evaluate.fill_watch import benchmarks, outcome_text


def test_each_benchmark_offered_is_one_the_plan_fills():
    offered = benchmarks()
    assert "NevIR" in offered and all("_" not in b for b in offered)  # words, not column keys
    for name in offered:
        cells, _ = fill_cells(pd.DataFrame(), ["tfidf"], [name])
        assert cells, name


def job(state, error=None):
    cells = [
        {"cell": "tfidf on nevir", "state": "stored", "shards_done": 4, "shards": 4, "items_done": 9, "items": 9},
        {"cell": "tfidf on demetr", "state": "running", "shards_done": 1, "shards": 4, "items_done": 5, "items": 20},
    ]
    return FillJob("fill-x", state, "tfidf × every benchmark, here", {"cells": cells, "left": 10.0}, error=error)


def test_how_a_plan_ended_is_said_in_words():
    kind, head, cells = outcome_text(job(CANCELLED))
    assert kind == "warning" and head.startswith("Cancelled the fill of tfidf × every benchmark, here")
    assert "no partial run was stored" in head
    assert cells == ["tfidf on nevir: stored", "tfidf on demetr: 1/4 shards, 5/20 items"]  # no time left once ended
    failed = outcome_text(job(FAILED, error="tfidf on demetr: the dataset is missing"))
    assert failed == (
        "error",
        "The fill of tfidf × every benchmark, here failed: tfidf on demetr: the dataset is missing",
        [],
    )
    kind, head, cells = outcome_text(job(COMPLETE))
    assert (kind, head) == ("success", "Filled tfidf × every benchmark, here.") and "None" not in " ".join(cells)
    nothing = FillJob("fill-x", COMPLETE, "tfidf × nevir, here", {"report": "Nothing to fill"})
    assert outcome_text(nothing) == ("success", "Filled tfidf × nevir, here: nothing was left to fill.", [])
