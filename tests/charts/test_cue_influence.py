"""negviz.charts.cue_influence: the cue's share of the attribution drawn as boxes, in percent."""

import numpy as np
import pandas as pd
import pytest

from negviz.analyses import cue_influence as C
from negviz.charts.cue_influence import share_boxes
from tests.analyses.test_cue_influence import _frame  # the frame whose shares were worked by hand


def test_the_figure_draws_the_same_percent():
    fig = share_boxes(_frame(), "category", ["correct", "tie"], "t")
    assert sorted(fig.data[0].y) == pytest.approx([0.5, 25.0, 50.0])
    assert C.UNIT in fig.layout.yaxis.title.text and fig.layout.yaxis.ticksuffix == "%"
    assert "%{y:.1f}% of |attribution|" in fig.data[0].hovertemplate


def test_share_boxes_draw_one_box_per_run_with_groups_in_the_order_given():
    frame = pd.concat([_frame(), _frame().assign(label="other")], ignore_index=True)
    fig = share_boxes(frame, "category", ["tie", "correct"], "t", labels={"tie": "<i>tie</i>"})
    assert [t.name for t in fig.data] == ["run", "other"]
    # c has no share: left out; a, b correct, d a tie
    assert list(fig.data[0].x) == ["correct", "correct", "<i>tie</i>"]
    assert list(fig.layout.xaxis.categoryarray) == ["<i>tie</i>", "correct"]
    assert [list(c) for c in fig.data[1].customdata] == [
        ["other", "correct", "a", 2],  # each bin's n: too few for a box here
        ["other", "correct", "b", 2],
        ["other", "tie", "d", 1],
    ]


def test_a_bin_too_small_for_a_box_is_grey_points_and_each_method_has_its_own_axis():
    """A bin of 2 got a box; two attribution methods shared one y axis. Now a bin under MIN_N is
    drawn as grey points with its n, a full bin as a box, and each method is a panel of its own."""
    from negviz.core.sample_size import MIN_N

    big = pd.DataFrame(
        {"label": "full", "category": "correct", "cue_share": np.linspace(0.1, 0.5, MIN_N), "item_id": range(MIN_N)}
    )
    few = pd.DataFrame({"label": "full", "category": "tie", "cue_share": [0.2, 0.3], "item_id": ["x", "y"]})
    other = big.assign(label="occl")
    fig = share_boxes(
        pd.concat([big, few, other], ignore_index=True),
        "category",
        ["correct", "tie"],
        "t",
        methods={"full": "gradient-x-input", "occl": "occlusion"},
    )
    boxes = [(t.name, t.line.width, t.marker.color, t.yaxis, len(t.y)) for t in fig.data]
    assert boxes == [
        ("full", None, "#2563eb", "y", MIN_N),  # a box, its run's colour
        ("full", 0, "#a1a1aa", "y", 2),  # no box line, grey points
        ("occl", None, "#ea580c", "y2", MIN_N),  # the other method: the second panel's axis
    ]
    assert [a.text for a in fig.layout.annotations] == ["method: gradient-x-input", "method: occlusion"]
    assert list(fig.layout.xaxis.ticktext) == ["correct", "tie<br>(n=2 in a run)"]
