"""The report on a dataset of a kind only a test registers (tests/support/toy_kind.py) draws it as
the pages do: its metric by the metric object's name and chance level, its categories, its margins
and an example card with the kind's own texts."""

from __future__ import annotations

import pytest

from negviz.core.cache import ScoreCache
from negviz.datasets.added import add_dataset
from negviz.evaluation.runner import run_eval
from negviz.report import html
from negviz.report.build import build_report
from negviz.store import Store
from tests.support.toy_kind import CHOICE, PREFERS_A, TOY_FILE, toy_kind_registered


def test_the_report_draws_a_new_kind(tmp_path, monkeypatch):
    with toy_kind_registered(monkeypatch), Store(tmp_path / "runs.sqlite") as store:
        add_dataset(store, "questions", TOY_FILE.to_csv(index=False).encode(), "questions.csv", CHOICE)
        for model in ("tfidf", "bm25"):
            run_eval(model, "questions", store=store, cache=ScoreCache(tmp_path / "scores.sqlite"))
        rep = build_report(store, "tfidf", against=["bm25"], datasets=["questions"], maxsim=False)
        section = rep.data["datasets"]["questions"]
        assert (section["kind"], section["metric_label"]) == (CHOICE, "choice accuracy")
        assert section["random_baseline"] == pytest.approx(1 / 3)
        assert [row["value"] for row in section["headline"]] == pytest.approx([1 / 3, 1 / 3])
        shares = {(r["model"], r["category"]): r["count"] for r in section["errors"]["preference"]}
        assert shares[("tfidf", PREFERS_A)] == 1 and shares[("tfidf", "tie")] == 1
        assert section["errors"]["margin_definitions"] == ["s(q,right) - s(q,wrong_a)", "s(q,right) - s(q,wrong_b)"]
        assert rep.data["board"]["table_card"] is None  # no shipped benchmark holds the model
        page, _ = html.render(rep, "plotly")
        assert "choice accuracy" in page and "wrong_a" in page
