"""Figures read at a glance (issue 34): each model's own n beside its name on the error
preference, one order of models in both figures of that page, one score unit per playground
panel."""

import pandas as pd

from negviz.analyses import per_type as at
from negviz.analyses import playground as pg
from negviz.charts.alignment import margin_bars
from negviz.charts.lexical import confound_bars
from negviz.charts.per_type import preference_bars
from negviz.core import outcomes as oc
from negviz.scorers import score_unit
from tests.analyses.test_per_type import WIDE
from negviz.core.kinds import PAIRS_KIND


# The heatmap tests' five NevIR-style pairs; model "full" scores all five, model "short" only the first.
def _outcomes():
    return oc.run_outcomes(PAIRS_KIND, {"full": ("ra", WIDE, "strict"), "short": ("rb", WIDE.iloc[:1], "strict")})


def test_error_preference_shows_each_models_own_n_and_never_one_n_for_all():
    outcomes = _outcomes()
    prefs = at.preference_table(outcomes, PAIRS_KIND)
    fig = preference_bars(prefs, oc.CATEGORIES["pairs"], "t")
    ticks = dict(zip(fig.layout.yaxis.tickvals, fig.layout.yaxis.ticktext))
    assert "n = 5 items" in ticks["full"] and "n = 1 item<" in ticks["short"]  # counted: "1 item"
    assert at.preference_n_note(prefs) == "each model's n under its name"  # not "n = 5"
    assert at.preference_n_note(prefs, faceted=True) == "n per bar on hover"  # one facet or more
    warning = at.preference_n_warning(prefs, ["full", "short"])
    assert warning.startswith("Very different n: short is scored on n = 1") and "another model has 5" in warning
    same = at.preference_table(outcomes[outcomes["model"] == "full"], PAIRS_KIND)
    assert at.preference_n_note(same) == "n = 5 items each" and at.preference_n_warning(same) is None


def test_lexical_bars_take_the_error_figures_order_with_names_level():
    table = pd.DataFrame(
        {
            "model": ["a", "a", "b", "b"],
            "lexical lean": ["towards the right document", "towards the wrong document"] * 2,
            "n": [3, 4, 10, 12],
            "wrong or tie": [0.2, 0.5, 0.1, 0.9],
            "ci_low": [0.1, 0.4, 0.0, 0.8],
            "ci_high": [0.3, 0.6, 0.2, 1.0],
            "right": [0.8, 0.5, 0.9, 0.1],
        }
    )
    order = ["b", "a"]  # the page's: best accuracy first, not by name
    fig = confound_bars(table, "t", order)
    bars = [t for t in fig.data if len(t.y)]
    assert bars and all(list(t.y) == order and t.orientation == "h" for t in bars)  # names level, never cut
    assert list(fig.layout.yaxis.tickvals) == order and "n = 22 comparisons" in fig.layout.yaxis.ticktext[0]
    assert fig.layout.xaxis.title.text == "comparisons wrong or tied (%)" and bars[0].x[0] == 10.0


def test_playground_gives_each_model_its_own_panel_axis_and_unit():
    grids = {
        "all-MiniLM-L6-v2": [[0.70, 0.69], [0.68, 0.69]],  # margins ±0.01: vanish beside SPLADE's
        "splade-tiny": [[3.0, 5.1], [4.0, 6.0]],
    }
    units = {"all-MiniLM-L6-v2": score_unit("bi-encoder"), "splade-tiny": score_unit("splade")}
    table = pg.results_table({m: pd.DataFrame(g).to_numpy() for m, g in grids.items()}, "original", units)
    assert table.set_index("model")["unit"].to_dict() == {
        "all-MiniLM-L6-v2": "dot product",
        "splade-tiny": "sparse dot product",
    }
    fig = margin_bars(table)
    panels = [a.text for a in fig.layout.annotations]
    assert panels == ["<b>all-MiniLM-L6-v2</b> · score: dot product", "<b>splade-tiny</b> · score: sparse dot product"]
    x1, x2 = fig.layout.xaxis, fig.layout.xaxis2
    assert x1.title.text == "margin (dot product)" and x2.title.text == "margin (sparse dot product)"
    assert x1.range[1] < 0.02 < 2.0 < x2.range[1]  # each on its own scale: MiniLM's 0.01 stays visible
    assert x1.range[0] == -x1.range[1]  # 0 in the middle of each panel
    bars = [t for t in fig.data if t.x[0] is not None]
    assert [t.xaxis for t in bars] == ["x", "x2"] and "margin %{x:+.4f}" in bars[0].hovertemplate  # raw margin
    legend = {t.name for t in fig.data if t.showlegend is not False}
    assert legend == {"its document ranked first", "another document ranked first"}  # every colour named


def test_score_units_follow_the_family_and_its_options():
    assert score_unit("bi-encoder", {"similarity": "cosine"}) == "cosine"
    assert score_unit("bi-encoder", {"normalize": True}) == "cosine"  # dot of unit vectors
    assert score_unit("cross-encoder") == "logit" and score_unit("bm25") == "BM25 score"
    assert score_unit("no-such-family") == "score"
