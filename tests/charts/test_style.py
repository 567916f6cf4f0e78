"""negviz.charts.style: a long plotly label broken into lines between its parts; the rows a horizontal legend takes and the margin that holds it."""

from negviz.charts.style import wrap_segments


def test_wrap_segments_breaks_between_parts_counting_visible_characters_only():
    assert wrap_segments("aaaa · bbbb · cccc", width=11) == "aaaa · bbbb<br>cccc"
    # markup does not count: "<b>aaaa</b>" is 4 characters wide, and is never split
    assert wrap_segments("<b>aaaa</b> · bbbb", width=11) == "<b>aaaa</b> · bbbb"
    assert wrap_segments("a part longer than the width", width=5) == "a part longer than the width"
    assert wrap_segments("", width=5) == ""


def test_a_legend_takes_one_row_when_it_fits_else_plotlys_grid_of_its_widest_entry():
    from negviz.charts.style import legend_rows

    assert legend_rows(["a", "b"], 500) == 1  # 53 + 53 px
    names = ["correct", "prefers original (d1) for both", "prefers edited (d2) for both", "tie"]  # 101, 285, 269, 69 px
    assert legend_rows(names, 800) == 1
    assert legend_rows(names, 600) == 2  # two columns of 285 px
    assert legend_rows(names, 340) == 4  # one column


def test_a_legend_below_the_axis_sits_in_a_margin_that_holds_it_at_the_narrowest_plot():
    from negviz.charts.style import NARROWEST_PLOT, legend_below, legend_rows

    names = ["correct", "prefers original (d1) for both", "prefers edited (d2) for both", "tie"]
    legend, bottom = legend_below(names, plot_h=400, below_axis=62)
    assert legend["y"] * 400 == -62 and legend["yanchor"] == "top"  # 62 px under the plot, at any height
    assert bottom == 62 + 32 * legend_rows(names, NARROWEST_PLOT) + 10 == 62 + 32 * 4 + 10
