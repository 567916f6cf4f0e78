"""negviz.charts.cue_influence: the cue's share of the attribution drawn as boxes, in percent."""

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
        ["other", "correct", "a"],
        ["other", "correct", "b"],
        ["other", "tie", "d"],
    ]
