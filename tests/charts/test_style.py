"""negviz.charts.style: a long plotly label broken into lines between its parts."""

from negviz.charts.style import wrap_segments


def test_wrap_segments_breaks_between_parts_counting_visible_characters_only():
    assert wrap_segments("aaaa · bbbb · cccc", width=11) == "aaaa · bbbb<br>cccc"
    # markup does not count: "<b>aaaa</b>" is 4 characters wide, and is never split
    assert wrap_segments("<b>aaaa</b> · bbbb", width=11) == "<b>aaaa</b> · bbbb"
    assert wrap_segments("a part longer than the width", width=5) == "a part longer than the width"
    assert wrap_segments("", width=5) == ""
