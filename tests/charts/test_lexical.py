"""negviz.charts.lexical: the confound bars, one trace per lean, models in the page's order."""

import pandas as pd
import pytest

from negviz.analyses.lexical import NEITHER, RIGHT, WRONG
from negviz.charts.lexical import confound_bars


def test_confound_bars_draw_percent_with_ci_in_the_models_order():
    table = pd.DataFrame(
        {
            "model": ["b", "b", "<a>"],
            "lexical lean": [RIGHT, WRONG, RIGHT],
            "n": [10, 4, 6],
            "wrong or tie": [0.1, 0.5, 0.25],
            "ci_low": [0.05, 0.2, 0.1],
            "ci_high": [0.3, 0.8, 0.5],
        }
    )
    fig = confound_bars(table, "t", models=["<a>", "b", "not there"])
    assert [t.name for t in fig.data] == [f"BM25 leans {RIGHT}", f"BM25 leans {WRONG}"]  # no NEITHER rows: no trace
    right = fig.data[0]
    assert list(right.y) == ["<a>", "b"] and list(right.x) == pytest.approx([25.0, 10.0])
    assert list(right.error_x.array) == pytest.approx([25.0, 20.0])
    assert list(right.error_x.arrayminus) == pytest.approx([15.0, 5.0])
    assert [list(c[:2]) for c in right.customdata] == [["<a>", RIGHT], ["b", RIGHT]]
    ticks = fig.layout.yaxis.ticktext
    assert ticks[0].startswith("&lt;a&gt;") and "n = 6" in ticks[0] and "n = 14" in ticks[1]
    assert NEITHER not in " ".join(t.name for t in fig.data)
