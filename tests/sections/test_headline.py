"""negviz.sections.headline over a copy of the shipped runs: the leaderboard's rows of the chosen
runs (value, CI and n as each run stored them), the papers' rows beside them, the bars' title and
the caption's words from the metric model (unit, chance level, n)."""

import pytest

from negviz.evaluation.published import load_reference
from negviz.results.dataset_view import DatasetView
from negviz.sections import headline


def test_the_headline_is_each_runs_stored_value_in_the_order_asked(shipped_store):
    view = DatasetView(shipped_store, "nevir")
    chosen = view.chosen(["bm25", "tfidf"]).set_index("model_name").loc[["tfidf", "bm25"]].reset_index()
    s = headline.section(view, chosen)
    assert s.title == "Headline results" and [r["model"] for r in s.data["headline"]] == ["tfidf", "bm25"]
    for row, run in zip(s.data["headline"], chosen.to_dict("records")):
        assert row["run_id"] == run["run_id"] and row["n"] == run["n"] == 1383
        assert row["value"] == pytest.approx(run["summary"]["paired_accuracy"])
        assert row["split"] == "test" and row["metric"] == "paired_accuracy"
    assert {p["source"] for p in s.data["published"]} and all(0 <= p["value"] <= 1 for p in s.data["published"])
    assert s.data["headline_figure"] == "headline-nevir" and list(s.figures) == ["headline-nevir"]
    assert s.figure.layout.title.text == "paired accuracy on nevir"
    assert s.caption.text() == (
        "nevir test · paired accuracy in % (random 25.0%) · n = 1,383 items · 95% CI: seeded bootstrap over "
        "items, 1,000 resamples. Hollow grey bars: published numbers."
    )


def test_a_number_metric_has_no_unit_or_chance_and_no_overlay_says_so():
    caption = headline.caption("cannot", "test", "mean_similarity", 25948, overlay=False)
    assert caption.text() == (
        "cannot test · mean similarity · n = 25,948 items · 95% CI: seeded bootstrap over items, 1,000 resamples."
    )
    assert caption.text(lambda s: s.upper()).startswith("CANNOT TEST ·")  # the dataset is user text


def test_the_overviews_bars_overlay_the_published_rows_or_say_why_not(shipped_store):
    from negviz.analyses.leaderboard import leaderboard
    from negviz.evaluation.catalog import load_catalog

    board = leaderboard(DatasetView(shipped_store, "nevir").chosen(["bm25"]), load_catalog())
    fig, note = headline.bars(board, "nevir", "paired_accuracy", load_reference())
    fig_off, note_off = headline.bars(board, "nevir", "paired_accuracy", load_reference(), overlay=False)
    assert note is None and note_off is None and len(fig_off.data) < len(fig.data)  # NevIR Table 2's rows
    ranks = leaderboard(DatasetView(shipped_store, "excluir").chosen(["bm25"]), load_catalog())
    _, missing = headline.bars(ranks, "excluir", "right_rank", load_reference())
    assert missing  # ExcluIR's published numbers are over a corpus: not overlaid, and the page says why
