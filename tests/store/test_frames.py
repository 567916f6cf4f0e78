"""negviz.store.frames: score and epoch-item frames checked and turned into row tuples before
anything is written, and fetched rows turned back into frames with fixed dtypes."""

import numpy as np
import pandas as pd
import pytest

from negviz.core.errors import DataValidationError
from negviz.store.frames import epoch_item_rows, long_frame, score_frame, score_rows


def test_score_rows_prefix_the_run_and_keep_exact_floats():
    scores = pd.DataFrame({"slot": ["pos", "neg"], "item_id": [7, "b"], "score": [np.float32(0.5), -1]})
    assert score_rows("r1", scores) == [("r1", "7", "pos", 0.5), ("r1", "b", "neg", -1.0)]
    items = pd.DataFrame({"item_id": ["p1"], "name": ["margin"], "value": [0.25]})
    assert epoch_item_rows("r1", 3, items) == [("r1", 3, "p1", "margin", 0.25)]


@pytest.mark.parametrize(
    "frame, message, row",
    [
        (pd.DataFrame({"item_id": ["a"], "slot": ["s"]}), r"exactly the columns \['item_id', 'slot', 'score'\]", None),
        (pd.DataFrame({"item_id": ["a", None], "slot": ["s", "s"], "score": [1, 2]}), "scores: empty item_id", 1),
        (
            pd.DataFrame({"item_id": ["a", "b"], "slot": ["s", "s"], "score": [1, "x"]}),
            r"score 'x' of item_id 'b', slot 's' is not a finite number \(1 such rows\)",
            1,
        ),
        (
            pd.DataFrame({"item_id": ["a", "a"], "slot": ["s", "s"], "score": [1, 2]}),
            "item_id 'a' has slot 's' twice",
            1,
        ),
    ],
)
def test_a_bad_score_frame_is_refused_naming_the_row(frame, message, row):
    with pytest.raises(DataValidationError, match=message) as err:
        score_rows("r1", frame)
    assert err.value.row == row


def test_a_score_frame_must_be_a_frame():
    with pytest.raises(DataValidationError, match="scores must be a pandas DataFrame, got list"):
        score_rows("r1", [("a", "s", 1.0)])


def test_long_frame_fixes_dtypes_even_when_empty():
    frame = long_frame([("r", 1, "0.5")], ["item_id", "epoch", "value"])
    assert frame["value"].tolist() == [0.5] and frame["epoch"].dtype == int and frame["item_id"].tolist() == ["r"]
    empty = long_frame([], ["item_id", "slot", "score"])
    assert list(empty.columns) == ["item_id", "slot", "score"] and empty["score"].dtype == float


def test_score_frame_is_what_the_store_reads_back_in_its_order():
    """A run file's scores read in place: str keys, float scores, ordered by item_id then slot in
    code-point order (SQLite's ORDER BY), checked as score_rows checks them."""
    scores = pd.DataFrame(
        {"item_id": ["b", 10, "B", "b", "é"], "slot": ["pos", "neg", "neg", "neg", "pos"], "score": [1, 2, 3, 4.5, 5]}
    )
    frame = score_frame(scores)
    assert list(frame.itertuples(index=False, name=None)) == [
        ("10", "neg", 2.0),
        ("B", "neg", 3.0),
        ("b", "neg", 4.5),
        ("b", "pos", 1.0),
        ("é", "pos", 5.0),
    ]
    assert frame["score"].dtype == float and list(frame.index) == [0, 1, 2, 3, 4]
    ordered = score_frame(frame)  # already in order: kept as it is
    pd.testing.assert_frame_equal(ordered, frame)
    with pytest.raises(DataValidationError, match="item_id 'b' has slot 'pos' twice") as err:
        score_frame(pd.concat([scores, scores.iloc[:1]], ignore_index=True))
    assert err.value.row == 5
    with pytest.raises(DataValidationError, match="item_id 'a' has slot 's' twice"):
        score_rows("r1", pd.DataFrame({"item_id": ["a", "a", "b"], "slot": ["s", "s", "s"], "score": [1, 2, 3]}))
