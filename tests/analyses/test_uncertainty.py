"""negviz.analyses.uncertainty: the order in which the models are least sure of an item, by hand."""

from __future__ import annotations

import pandas as pd
import pytest

from negviz.analyses.uncertainty import uncertainty_order


def test_uncertainty_order_by_hand():
    out = pd.DataFrame(
        {
            "model": ["m1", "m2", "m1", "m2", "m1", "m2", "m1"],
            "item_id": ["a", "a", "b", "b", "c", "c", "d"],
            "correct": [True, True, True, False, False, False, True],
            "margin": [0.9, 0.5, 0.2, -0.1, -0.3, -0.4, 0.01],
        }
    )
    order = uncertainty_order(out, ["a", "b", "c", "d", "e"])
    # b: one right of two (0.5); then a, c, d agree (0): closeness = mean within-model |margin| pct
    # m1 |margins| .9 .2 .3 .01 -> pct a 1, b .5, c .75, d .25; m2 .5 .1 .4 -> a 1, b 1/3, c 2/3
    assert order["item_id"].tolist() == ["b", "d", "c", "a", "e"]
    assert order.set_index("item_id").loc["b", "disagreement"] == 0.5
    assert order.set_index("item_id").loc["c", "closeness"] == pytest.approx((0.75 + 2 / 3) / 2)


def test_uncertainty_order_keeps_dataset_order_on_ties_and_drops_items_outside_the_order():
    out = pd.DataFrame(
        {
            "model": ["m", "m", "m", "m"],
            "item_id": ["x", "y", "z", "w"],
            "correct": [True, None, True, False],  # y has no verdict: as if unscored
            "margin": [0.5, 0.1, 0.5, -0.2],
        }
    )
    # x and z: one model, right, the same |margin|: the order given decides; w is not asked for
    order = uncertainty_order(out, ["z", "y", "x"])
    assert order["item_id"].tolist() == ["z", "x", "y"]
    assert order["models"].tolist() == [1, 1, 0] and order["disagreement"].iloc[:2].tolist() == [0.0, 0.0]
    assert uncertainty_order(out.iloc[:0])["item_id"].tolist() == []  # no outcomes, no order given: nothing
