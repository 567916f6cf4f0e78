"""negviz.charts.board: the board heatmap called directly on a hand-made board (cell text with CI
and n, rank colours, published rows, held-out marks), its parts, and non-overlapping labels."""

import math

import pandas as pd

from negviz.analyses.board import board_table
from negviz.charts.board import PUBLISHED_MARK, board_figure, label_positions, parts


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


def test_board_figure_shows_value_ci_n_and_ranks_each_column():
    published = pd.DataFrame({"model": ["Paper"], "source": ["Table 2"], "nevir": [0.25]})
    fig = board_figure(hand_board(), published, title="board", keys=["nevir", "excluir"])
    heat = fig.data[0]
    small = "<br><span style='font-size:11px'>{}</span>"
    assert heat.text[0][0] == "50.0%" + small.format("40.0 to 60.0%") + small.format("n=100 · held-out†")
    assert list(heat.text[1]) == ["30.0%", "—"]  # no CI, no n; no cell at all
    assert heat.z[0][0] == 1.0 and heat.z[1][0] == 0.5  # the best of two, the second
    assert all(math.isnan(v) for v in (heat.z[0][1], heat.z[1][1], heat.z[2][0]))  # one value: no rank; papers: none
    assert heat.y[0].startswith("m1<br>") and "† trained on NevIR" in heat.y[0]
    assert heat.y[2] == f"{PUBLISHED_MARK}Paper (Table 2)" and list(heat.text[2]) == ["25.0%", ""]
    assert "no run" in heat.hovertext[1][1] and fig.layout.title.text == "board"


def test_parts_split_the_columns_into_figures_of_three():
    assert parts(["a", "b", "c", "d"]) == [["a", "b", "c"], ["d"]]
    assert parts([]) == []


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
