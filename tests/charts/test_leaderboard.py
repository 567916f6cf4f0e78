"""negviz.charts.leaderboard: the Overview's bars in percent with their CIs, the random baseline and
the papers' numbers overlaid, over the hand-made runs of tests/analyses/test_leaderboard.py."""

import pandas as pd
import pytest

from negviz.analyses.leaderboard import leaderboard
from negviz.charts.leaderboard import PUBLISHED_NAME, leaderboard_bars
from tests.analyses.test_leaderboard import fake_runs


def test_leaderboard_bars_values_labels_baseline_and_published_overlay():
    board = leaderboard(fake_runs())
    pub = pd.DataFrame({"model": ["TF-IDF"], "source": ["NevIR Table 2"], "value": [0.02], "category": ["sparse"]})
    fig = leaderboard_bars(board[board["run_id"].isin(["b", "c"])], "paired_accuracy", 0.25, "t", pub)
    tfidf, bi, published = fig.data  # one trace per family (a legend entry each), then the papers
    assert (tfidf.name, bi.name) == ("tfidf", "bi-encoder") and fig.layout.showlegend
    assert list(tfidf.x) == pytest.approx([2.0]) and list(bi.x) == pytest.approx([20.0])  # percent
    assert list(tfidf.y) == ["tfidf (n=10)"] and list(bi.y) == ["m1 (n=10)"]
    assert list(tfidf.error_x.array) == pytest.approx([1.0]) and list(bi.error_x.array) == pytest.approx([5.0])
    assert list(published.y) == ["TF-IDF (sparse) · NevIR Table 2"] and published.name == PUBLISHED_NAME
    assert fig.layout.shapes[0].x0 == 25.0  # the random baseline
