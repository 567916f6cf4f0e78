"""Per-type accuracy: hand-computed outcomes, cells, preferences; figure builders; the heatmap page.
The page (AppTest): tests/pages/test_heatmap_page.py.
"""

import numpy as np
import pandas as pd
import pytest

from negviz.analyses import per_type as at
from negviz.charts.per_type import BELOW, accuracy_heatmap, distribution_bars, margin_distributions, preference_bars
from negviz.core import outcomes as oc
from negviz.evaluation.published import load_reference
from negviz.core.kinds import EXCLUSION_KIND, PAIRS_KIND

# Four NevIR-style pairs with s(q1,d1), s(q1,d2), s(q2,d1), s(q2,d2) chosen to hit each verdict.
WIDE = pd.DataFrame(
    {
        "q1_d1": [0.9, 0.9, 0.1, 0.1, 0.5],
        "q1_d2": [0.1, 0.1, 0.9, 0.9, 0.5],
        "q2_d1": [0.1, 0.9, 0.1, 0.9, 0.1],
        "q2_d2": [0.9, 0.1, 0.9, 0.1, 0.9],
    },
    index=pd.Index(["p1", "p2", "p3", "p4", "p5"], name="item_id"),
)


def outcomes_two_models():
    # model A: the verdicts above; model B: every pair correct.
    good = WIDE.copy()
    good[["q1_d1", "q2_d2"]], good[["q1_d2", "q2_d1"]] = 1.0, 0.0
    return oc.run_outcomes(PAIRS_KIND, {"A": ("ra", WIDE, "strict"), "B": ("rb", good, "strict")})


def test_item_outcomes_give_each_error_category():
    out = oc.item_outcomes(PAIRS_KIND, WIDE)
    assert out["category"].tolist() == ["correct", "prefers_original", "prefers_edited", "reversed", "tie"]
    assert out["correct"].tolist() == [True, False, False, False, False]
    assert out["margin1"].round(6).tolist() == [0.8, 0.8, -0.8, -0.8, 0.0]
    assert out["margin2"].round(6).tolist() == [0.8, -0.8, 0.8, -0.8, 0.8]


def test_exclusion_outcomes_are_right_rank_with_ties():
    wide = pd.DataFrame({"pos": [2.0, 1.0, 1.0], "neg": [1.0, 2.0, 1.0]}, index=["a", "b", "c"])
    out = oc.item_outcomes(EXCLUSION_KIND, wide)
    assert out["category"].tolist() == ["correct", "wrong", "tie"]
    assert out["margin1"].tolist() == [1.0, -1.0, 0.0] and out["margin2"].isna().all()


def test_cell_table_counts_accuracy_ci_and_min_n():
    outcomes = outcomes_two_models()
    groups = pd.Series({"p1": "x", "p2": "x", "p3": "y", "p4": "y", "p5": "y"})
    cells = at.cell_table(outcomes, groups, min_n=3).set_index(["model", "column"])
    assert cells.loc[("A", "x"), "n"] == 2 and cells.loc[("A", "x"), "value"] == 0.5
    assert cells.loc[("A", "y"), "value"] == 0.0 and cells.loc[("B", "y"), "value"] == 1.0
    assert not cells.loc[("A", "x"), "enough"] and cells.loc[("A", "y"), "enough"]
    assert cells.loc[("A", "y"), ["ci_low", "ci_high"]].tolist() == [0.0, 0.0]
    assert 0.0 <= cells.loc[("A", "x"), "ci_low"] <= 0.5 <= cells.loc[("A", "x"), "ci_high"] <= 1.0


def test_difference_to_a_reference_model_on_shared_items():
    cells = at.cell_table(outcomes_two_models(), pd.Series({i: "all" for i in WIDE.index}), reference="B")
    cells = cells.set_index("model")
    assert cells.loc["A", "value"] == pytest.approx(1 / 5 - 1)  # 1 of 5 right vs 5 of 5
    assert cells.loc["B", "value"] == 0.0


def test_orders_of_rows_and_columns():
    outcomes = outcomes_two_models()
    assert at.model_order(outcomes) == ["B", "A"] and at.model_order(outcomes, "name") == ["A", "B"]
    cells = at.cell_table(outcomes, pd.Series({"p1": "x", "p2": "x", "p3": "y", "p4": "y", "p5": "y"}))
    assert at.sort_columns(cells, ["x", "y"], "n") == ["y", "x"]
    assert at.sort_columns(cells, ["x", "y"], "hardest") == ["y", "x"]  # mean 0.5 vs 0.75
    assert at.column_order("type", pd.Series(["affixal", "sentential", "none"])) == ["sentential", "affixal", "none"]


def test_groups_for_each_axis_on_nevir():
    from negviz.datasets import load
    from negviz.language.taxonomy import label_pairs

    ds = load("nevir")
    meta = at.item_meta(ds.kind, ds.frame, label_pairs(ds))
    assert at.available_axes(ds.kind, meta) == ["type", "edit_type", "cue"]
    assert set(at.item_groups("edit_type", meta)) == {"scope (2)", "affirmative (3)"}
    cues = at.item_groups("cue", meta, top_k=3)
    assert at.column_order("cue", cues) == ["not", "unlike", "unsuccessful"]  # 147, 48, 48 (ties by name)
    assert len(cues) == 147 + 48 + 48


def test_preference_table_counts_and_shares():
    prefs = at.preference_table(outcomes_two_models(), PAIRS_KIND).set_index(["model", "category"])
    assert prefs.loc[("A", "reversed"), "count"] == 1 and prefs.loc[("A", "reversed"), "share"] == 0.2
    assert prefs.loc[("B", "correct"), "share"] == 1.0 and prefs.loc[("B", "tie"), "count"] == 0
    assert (prefs.groupby("model")["share"].sum() == 1.0).all()


def test_cell_items_list_the_pairs_behind_a_cell():
    outcomes = outcomes_two_models()
    meta = pd.DataFrame({"item_id": list(WIDE.index), "type": ["a", "a", "b", "b", "b"], "cue": ["no"] * 5})
    groups = at.item_groups("type", meta)
    items = at.cell_items(outcomes, groups, meta, "A", "b")
    assert items["item_id"].tolist() == ["p3", "p4", "p5"]
    assert items["verdict"].tolist() == ["prefers_edited", "reversed", "tie"]
    assert {"cue", "margin1", "margin2"} <= set(items.columns)


def test_distribution_beside_petcu_nevir():
    dist = pd.DataFrame({"type": ["sentential", "affixal", "exclusion_exceptor", "none"], "count": [5, 3, 2, 0]})
    comp = at.distribution_vs_petcu(dist, load_reference("petcu_distributions"), "nevir", "mine")
    mine = comp[comp["source"] == "mine"].set_index("category")["share"]
    assert mine["sentential"] == 0.5 and mine["remaining_types"] == 0.2 and mine["other"] == 0.0
    paper = comp[comp["source"] != "mine"].set_index("category")
    assert paper.loc["sentential", "count"] == 79 and paper.loc["sentential", "share"] == pytest.approx(79 / 225)
    excl = at.distribution_vs_petcu(dist, load_reference("petcu_distributions"), "excluir", "mine")
    assert excl[excl["source"] == "mine"].set_index("category").loc["exclusionary", "count"] == 2
    assert at.distribution_vs_petcu(dist, load_reference("petcu_distributions"), "demetr", "mine").empty


# ---------------------------------------------------------------- figures
def test_heatmap_figure_values_grey_cells_baseline_and_hover():
    outcomes = outcomes_two_models()
    groups = pd.Series({"p1": "x", "p2": "x", "p3": "y", "p4": "y", "p5": "y"})
    cells = at.cell_table(outcomes, groups, min_n=3)
    fig = accuracy_heatmap(
        cells,
        ["B", "A"],
        ["x", "y"],
        metric="paired accuracy",
        baseline=0.25,
        title="t",
        column_labels={"x": "Type X"},
        min_n=3,
    )
    grey, main, points = fig.data
    assert list(main.x) == ["Type X", "y"] and list(main.y) == ["B", "A"]
    z = np.array(main.z, dtype=float)
    assert np.isnan(z[0, 0]) and np.isnan(z[1, 0])  # n = 2 < 3: greyed, no colour
    assert z[0, 1] == 100.0 and z[1, 1] == 0.0
    assert np.array(grey.z, dtype=float)[1, 0] == 1
    assert main.text[1][0] == "n=2" and BELOW in main.text[1][1] and BELOW not in main.text[0][1]
    assert "below min n 3" in points.customdata[2][6]  # the grey cell says why in its hover
    assert main.colorscale[1][0] == 0.25 and "random 25%" in main.colorbar.ticktext  # white at random
    assert points.customdata[3][:3] == ("A", "y", 3) or list(points.customdata[3][:3]) == ["A", "y", 3]
    assert "95% CI" in points.hovertemplate and "n = " in points.hovertemplate


def test_heatmap_difference_mode_is_centred_on_zero():
    cells = at.cell_table(outcomes_two_models(), pd.Series({i: "all" for i in WIDE.index}), min_n=1, reference="B")
    fig = accuracy_heatmap(
        cells, ["A", "B"], ["all"], metric="paired accuracy", baseline=0.25, title="t", reference="B"
    )
    main = fig.data[1]
    assert main.zmin == -main.zmax and main.colorscale[1][0] == 0.5  # white at no difference
    assert main.text[0][0].startswith("-80.0 pp")


def test_preference_bars_stack_every_category_with_counts():
    prefs = at.preference_table(outcomes_two_models(), PAIRS_KIND)
    fig = preference_bars(prefs, oc.CATEGORIES["pairs"], "t")
    assert [t.name for t in fig.data][0] == "correct" and len(fig.data) == 5
    assert fig.layout.barmode == "stack"
    total = sum(np.array(t.x, dtype=float) for t in fig.data)
    assert np.allclose(total, 100.0)
    reversed_ = fig.data[3]
    assert list(reversed_.y) == ["A", "B"] and list(reversed_.customdata[0]) == ["A", "all", "reversed", 1, 5]
    assert fig.data[0].text[1] == "100% (5)" and reversed_.text[0] == "20% (1)"  # share and count
    faceted = preference_bars(
        at.preference_table(outcomes_two_models(), PAIRS_KIND, pd.Series({"p1": "f", "p2": "g"})),
        oc.CATEGORIES["pairs"],
        "t",
        faceted=True,
    )
    assert len(faceted.data[0].y) == 2 and len(faceted.data[0].y[0]) == 4  # [facet, model] pairs


def test_margin_histograms_one_row_per_model_with_tie_line():
    fig = margin_distributions(outcomes_two_models(), PAIRS_KIND.margin_labels, "t", ["A", "B"])
    hists = [t for t in fig.data if t.type == "histogram"]
    assert len(hists) == 4 and fig.data[0].name == "s(q1,d1) - s(q1,d2)"
    assert [s.x0 for s in fig.layout.shapes] == [0, 0]
    notes = [a.text for a in fig.layout.annotations]
    assert notes[:2] == ["A · n = 5 items", "B · n = 5 items"]
    # the tie line is named once, in the legend, never by a label drawn over each histogram
    assert "tie" not in " ".join(notes) and any(t.name.startswith("tie") and t.line.dash == "dash" for t in fig.data)


def test_distribution_bars_show_both_sources():
    dist = pd.DataFrame({"type": ["sentential", "affixal"], "count": [3, 1]})
    comp = at.distribution_vs_petcu(dist, load_reference("petcu_distributions"), "nevir", "mine (n=4)")
    fig = distribution_bars(comp, "t")
    assert [t.name for t in fig.data][0] == "mine (n=4)" and fig.data[1].name.startswith("Petcu et al.")
    assert fig.data[0].x[0] == 75.0


def test_the_preference_warning_names_no_facet_when_the_bars_have_none():
    """Unfaceted bars (facet "all") say just each model's n: 'scored on n = 100 items', not
    'n = 100 (all items) items'; a faceted one names the facet of each n."""
    from negviz.analyses.per_type import preference_n_warning

    bars = pd.DataFrame({"model": ["small", "big"], "facet": ["all", "all"], "n": [100, 1383]})
    text = preference_n_warning(bars, ["big", "small"])
    assert text.startswith("Very different n: small is scored on n = 100 items, where another model has 1,383")
    faceted = pd.DataFrame({"model": ["small", "big"], "facet": ["affixal", "affixal"], "n": [10, 400]})
    assert "small is scored on n = 10 (affixal) items" in preference_n_warning(faceted, ["big", "small"])
