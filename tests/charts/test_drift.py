"""negviz.charts.drift: one pair's trajectory across epochs, called directly (the drift and trade-off
figures over every shipped run: tests/charts/test_units_readable.py)."""

import pandas as pd

from negviz.charts.drift import pair_trajectory


def test_pair_trajectory_draws_both_margins_and_the_cosine_in_epoch_order():
    pair = pd.DataFrame(
        {"epoch": [2, 0, 1], "margin1": [0.3, -0.1, 0.1], "margin2": [0.2, 0.0, -0.2], "cos": [0.7, 0.9, 0.8]}
    )
    fig = pair_trajectory(pair, epoch=1, title="pair 7", note="a note")
    m1, m2, cos = fig.data
    assert list(m1.x) == [0, 1, 2] and list(m1.y) == [-0.1, 0.1, 0.3] and list(m2.y) == [0.0, -0.2, 0.2]
    assert cos.name == "cos(E(d1), E(d2))" and list(cos.y) == [0.9, 0.8, 0.7] and cos.yaxis == "y2"
    assert fig.layout.yaxis.title.text == "margin (> 0: ranked right)" and fig.layout.yaxis2.title.text == "cosine"
    assert [s.x0 for s in fig.layout.shapes if s.type == "line" and s.x0 == s.x1] == [1]  # the chosen epoch
    assert any(a.text == "epoch 1" for a in fig.layout.annotations) and any(
        "a note" in a.text for a in fig.layout.annotations
    )


def test_pair_trajectory_without_margins_draws_the_cosine_alone():
    fig = pair_trajectory(pd.DataFrame({"epoch": [0, 1], "cos": [0.9, 0.6]}), epoch=0)
    assert [t.name for t in fig.data] == ["cos(E(sentence), E(negation))"]
    assert fig.layout.yaxis.title.text == "cosine (lower: the negation told apart)"
