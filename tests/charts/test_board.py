"""negviz.charts.board: the board table called directly on a hand-made board (cell text with CI
and n, chance-level colours, the sort key, published rows, held-out marks) and non-overlapping labels."""

import pandas as pd

from negviz.analyses.board import board_table
from negviz.charts.board import PUBLISHED_MARK, board_table_html, chance_shade, label_positions
from negviz.core import metric_text


def hand_board() -> pd.DataFrame:
    empty = board_table(
        pd.DataFrame(columns=["run_id", "model_name", "dataset_name", "kind", "status", "split", "n", "summary"]), None
    )
    rows = [
        {
            "model": "m1",
            "nevir": 0.5,
            "nevir_ci_low": 0.4,
            "nevir_ci_high": 0.6,
            "nevir_n": 100,
            "trained_sets": ["nevir"],
        },
        {"model": "m2", "nevir": 0.3, "excluir": None},
    ]
    return pd.DataFrame(rows).reindex(columns=list(dict.fromkeys([*empty.columns, "trained_sets"])))


def test_the_board_table_shows_each_cell_in_its_unit_with_ci_n_and_the_sort_key():
    published = pd.DataFrame({"model": ["Paper <i>"], "source": ["Table 2"], "nevir": [0.773]})
    board = hand_board()
    board.loc[1, ["nevir_n", "nevir_of"]] = [50, 1383]  # a partial import: 50 of 1,383 pairs
    html = board_table_html(board, published, "nevir", keys=["nevir", "excluir"])
    assert html.count("<table") == 1 and '<th colspan="1">NevIR</th>' in html  # (dataset, metric) headers
    assert '<th class="nv-sorted">▼ paired accuracy (%)<br><small>n=100</small></th>' in html
    assert "<b>50.0%</b><br><small>40.0 to 60.0%</small><br><small>n=100 held-out†</small>" in html
    assert "<b>30.0%</b><br><small>n=50 of 1,383</small>" in html  # not the column's n: said, "n of N"
    assert "† trained on NevIR" in html and html.count(metric_text.MISSING) >= 1  # m2 has no ExcluIR cell
    assert f"{PUBLISHED_MARK}Paper &lt;i&gt;" in html and "77.3%" in html  # escaped, once, in its unit
    assert "None" not in html and "nan" not in html


def test_colour_is_the_distance_from_the_metric_chance_level():
    assert chance_shade("paired_accuracy", 0.25) == "background:rgba(21,128,61,0.08)"  # at chance: faint
    assert chance_shade("paired_accuracy", 0.071).startswith("background:rgba(185,28,28,")  # NevIR 7.1%: red
    assert chance_shade("paired_accuracy", 1.0) == "background:rgba(21,128,61,0.58)"  # the far end: strongest
    # 0.071 lies 0.179 below 0.25: 0.716 of the room down to 0 -> 0.08 + 0.5 * 0.716
    assert chance_shade("paired_accuracy", 0.071) == "background:rgba(185,28,28,0.44)"
    assert chance_shade("delta_r1", -0.1) == "background:rgba(185,28,28,0.13)"  # Δ: chance 0, room 1
    assert chance_shade("sensitivity_ratio", 0.6) == "" and chance_shade("paired_accuracy", None) == ""


def test_label_positions_move_a_label_that_would_overlap():
    assert label_positions([], [], []) == []
    # two points at one place: the first label above, the second below (above is taken)
    assert label_positions([0.0, 0.0], [0.0, 0.0], ["a", "b"]) == ["top center", "bottom center"]
    # far apart: both above
    assert label_positions([0.0, 100.0], [0.0, 100.0], ["a", "b"]) == ["top center", "top center"]


def test_label_positions_give_up_on_a_label_that_fits_nowhere():
    n = 5
    # five points at one place: four positions, the fifth label is left to the hover
    assert label_positions([0.0] * n, [0.0] * n, ["long label"] * n)[-1] == "none"
