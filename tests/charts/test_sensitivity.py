"""negviz.charts.sensitivity figure builders called directly: the DEMETR heatmap (values, tiny
denominators, published columns, escaped names, clicks), the focus chart, CANNOT's boxes and the
own-sentence bars, over the hand-computed items of tests/analyses/test_sensitivity.py."""

import numpy as np
import pandas as pd
import pytest

from negviz.analyses import sensitivity as sv
from negviz.charts.sensitivity import (
    TINY_MARK,
    cannot_chart,
    column_key,
    focus_chart,
    own_sentence_chart,
    sensitivity_heatmap,
)
from negviz.evaluation.published import load_reference
from tests.analyses.test_sensitivity import FRAME, WIDE


def test_heatmap_places_values_marks_tiny_and_published_and_carries_clicks():
    matrix = _toy_matrix()
    rows = sv.perturbation_order([*matrix["perturbation"], "base_id33_empty"])  # a row nobody has
    cols = [("toy", False)] + [(m, True) for m in sv.PUBLISHED_MODELS]
    fig = sensitivity_heatmap(matrix, rows, cols, value=sv.RATIO, title="t")
    strip, missing, values, cells = fig.data
    neg, ant = rows.index("critical_id8_negation"), rows.index("critical_id7_antonym")
    assert values.z[ant][0] == pytest.approx(0.5)
    assert values.text[neg][0].endswith(TINY_MARK)  # the .0005 denominator
    assert values.text[neg][4] == "<i>.65</i>"  # NegMPNet, published, italic, no leading zero
    empty = rows.index("base_id33_empty")
    assert np.isnan(values.z[empty][1]) and missing.z[empty][1] == 1.0 and values.text[empty][1] == "–"
    assert np.isnan(missing.z[ant][0])  # a cell with a value is not greyed
    assert len(cells.x) == len(rows) * len(cols)
    assert ["toy", "critical_id7_antonym", "run"] in [list(c) for c in cells.customdata]
    # published headers are italic and one group label names them, under the cells: a per-column
    # "published" line was wider than a column and ran into its neighbours
    heads = fig.layout.xaxis.ticktext
    assert heads[2] == f"<i>{sv.PUBLISHED_MODELS[0]}</i>" and heads[1] == "toy"
    assert not any("published" in h or "<br>" in h for h in heads) and fig.layout.xaxis.tickangle == -90
    assert [a.text for a in fig.layout.annotations if "published" in a.text] == ["<i>published</i>"]
    assert fig.layout.margin.t >= 11 * 0.5 * max(len(h) for h in heads)  # upright names fit above
    assert len(strip.z) == len(rows) and fig.layout.xaxis.side == "top"


def test_heatmap_escapes_names_and_shows_accuracy_in_percent():
    matrix = _toy_matrix(sv.ACCURACY, name="<b>x</b>")
    rows = sv.perturbation_order(matrix["perturbation"])
    fig = sensitivity_heatmap(matrix, rows, [("<b>x</b>", False)], value=sv.ACCURACY, title="t")
    assert "&lt;b&gt;x" in fig.layout.xaxis.ticktext[1] and "<b>x</b>" not in fig.layout.xaxis.ticktext[1]
    assert fig.data[2].text[rows.index("critical_id7_antonym")][0] == "67%" + TINY_MARK  # its t == e item
    assert column_key("m", True) != column_key("m", False)


def test_focus_cannot_and_own_sentence_figures():
    focus = sv.critical_focus(_toy_matrix())
    fig = focus_chart(focus, sv.RATIO, "f")
    assert {t.name for t in fig.data} == set(sv.FOCUS_GROUPS)
    assert "NegMPNet (published)" in fig.layout.yaxis.categoryarray
    items = pd.DataFrame(
        {
            "pair_id": list("abcd"),
            "source": ["s1", "s1", "s2", "s2"],
            "label": 1,
            "sentence1": "x",
            "sentence2": "y",
            "similarity": [0.1, 0.3, 0.5, 0.7],
        }
    )
    dist = sv.cannot_distribution({"m1": items, "m2": items.assign(similarity=items["similarity"] * 10)})
    cfig = cannot_chart(dist, "c")
    boxes = [t for t in cfig.data if t.type == "box"]
    assert len(boxes) == 2 and list(boxes[1].median) == pytest.approx([2.0, 6.0])
    assert [a.text for a in cfig.layout.annotations] == ["m1", "m2"]
    own = pd.DataFrame(
        {
            "model": ["a", "a"],
            "perturbation": ["negation", "antonym"],
            "perturbed": ["<x>", "y"],
            "margin": [0.1, 0.2],
            "score_candidate": 1.0,
            "score_perturbed": [0.9, 0.8],
            "score_empty": 0.0,
            "ratio": [0.1, 0.2],
            "demetr_file_ratio": [0.08, np.nan],
        }
    )
    ofig = own_sentence_chart(own, "o")
    assert ofig.data[0].type == "bar" and list(ofig.data[0].x) == [0.1, 0.2]
    assert ofig.data[0].customdata[0][0] == "&lt;x&gt;"
    assert ofig.data[1].type == "scatter"  # the DEMETR-file mean marker


def _toy_matrix(value=sv.RATIO, name="toy"):
    table = sv.perturbation_table(sv.item_table(FRAME, WIDE))
    return sv.model_matrix({name: table}, sv.published_columns(load_reference()), value)


def test_own_sentence_chart_gives_each_model_its_own_colour_and_one_legend_entry():
    """14 models (the shipped ones): 14 colours, none repeated, and one legend entry per model
    (the DEMETR-mean diamond joins its model's entry; it was a second entry, 2 x 13 in all)."""
    models = [f"m{k}" for k in range(14)]
    own = pd.DataFrame(
        {
            "model": [m for m in models for _ in range(2)],
            "perturbation": ["negation", "antonym"] * len(models),
            "perturbed": "x",
            "margin": 0.1,
            "score_candidate": 1.0,
            "score_perturbed": 0.9,
            "score_empty": 0.0,
            "ratio": 0.1,
            "demetr_file_ratio": 0.2,
        }
    )
    fig = own_sentence_chart(own, "o")
    bars = [t for t in fig.data if t.type == "bar"]
    assert len({t.marker.color for t in bars}) == len(models)
    in_legend = [t.name for t in fig.data if t.showlegend is not False]
    assert in_legend == models
