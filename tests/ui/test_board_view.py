"""negviz.ui.board.board_view: the board across benchmarks over a copy of the shipped runs (app_env), in
AppTest: the board's figures, download and the --json row count; the transfer scatter's axes; the
fixes table of a model against its catalog base."""

from streamlit.testing.v1 import AppTest

from negviz.analyses.board import board_json, sorted_board


def _board_page(section):
    from negviz.ui.board import board_view

    frame = board_view.board()
    if section == "board":
        board_view.board_section()
    elif section == "transfer":
        board_view.transfer_section(frame)
    else:
        board_view.fixes_section()


def _app(section) -> AppTest:
    return AppTest.from_function(_board_page, args=(section,), default_timeout=120).run()


def test_the_board_has_a_figure_per_part_and_says_its_json_rows(app_env):
    from negviz.ui.board import board_view

    at = _app("board")
    assert not at.exception
    frame = board_view.board()
    assert "bm25" in set(frame["model"])
    assert len(at.get("html")) == 1 and not at.get("plotly_chart")  # one table
    rows = len(board_json(sorted_board(frame, None)))
    assert any(c.value.endswith(f"`negviz board --json` ({rows} rows).") for c in at.caption)


def test_the_transfer_scatter_needs_two_different_benchmarks(app_env):
    at = _app("transfer")
    assert len(at.get("plotly_chart")) == 1
    at.selectbox(key="by").set_value(at.selectbox(key="bx").value).run()
    assert [i.value for i in at.info] == ["Choose two different benchmarks."]
    assert list(at.get("plotly_chart")) == []


def test_the_fixes_table_lists_each_model_beside_its_base(app_env):
    at = _app("fixes")
    assert not at.exception
    table = at.dataframe[0].value
    assert len(table) > 0 and (table["model"] != table["base"]).all()
    # repaired and broken pairs make the difference: model − base accuracy, in points
    diff = (table["repaired"] - table["broken"]) / table["n"] * 100
    assert ((diff - table["difference (pp)"]).abs() <= 0.05 + 1e-9).all()  # shown to one decimal
    assert not (table["95% CI (pp)"].str.contains("-0.0 ") | table["95% CI (pp)"].str.contains("None")).any()
