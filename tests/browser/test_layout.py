"""The layout measures of tests/support/layout.py (what is clipped or overlapping), checked on
hand-made boxes; tests/browser/test_pages.py runs them on every page at 1,400 and 1,000 px."""

from tests.support.layout import boxes_overlap, layout_problems, turned_overlap


def _tick(text: str, box: list[float], angle: float = 0.0) -> dict:
    """A tick label's box and its corners, turned by ``angle`` degrees about its right end (as
    plotly anchors a rotated x tick label)."""
    import math

    left, top, right, bottom = box
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    turn = lambda x, y: [right + (x - right) * c - (y - bottom) * s, bottom + (x - right) * s + (y - bottom) * c]  # noqa: E731
    return {
        "text": text,
        "box": box,
        "corners": [turn(left, top), turn(right, top), turn(right, bottom), turn(left, bottom)],
    }


def test_rotated_tick_labels_overlap_only_when_their_glyph_boxes_do():
    """Labels turned 45° next to each other have overlapping screen rectangles but not overlapping
    text when their anchors are further apart than the text is high."""
    apart = [_tick("reasonably", [0, 0, 70, 12], -45), _tick("well", [30, 0, 100, 12], -45)]
    assert boxes_overlap(apart[0]["box"], apart[1]["box"])  # the axis-aligned boxes would say so
    assert not turned_overlap(apart[0]["corners"], apart[1]["corners"])
    close = [_tick("reasonably", [0, 0, 70, 12], -45), _tick("well", [6, 0, 76, 12], -45)]
    assert turned_overlap(close[0]["corners"], close[1]["corners"])


def test_layout_measures_see_a_cut_label_and_an_overlap():
    """The checks themselves, on hand-made boxes: a label past the figure's right edge, two tick
    labels on top of each other, a legend over the x title, an input wider than its column."""
    fig = {
        "kind": "plotly",
        "title": "t",
        "box": [0, 0, 500, 300],
        "all": [
            {"text": "inside", "box": [10, 10, 60, 20]},
            {"text": "bge-small-en-v1.5-int8", "box": [470, 280, 540, 292]},
        ],
        "x": [[_tick("a", [100, 280, 140, 292]), _tick("b", [130, 280, 170, 292])]],
        "y": [],
        "legend": [[300, 250, 420, 299]],
        "titles": [{"text": "model", "box": [320, 285, 360, 298]}],
    }
    found = layout_problems(
        {"figures": [fig], "inputs": [{"label": "q1", "box": [0, 0, 700, 30], "column": [0, 0, 600, 400]}]}
    )
    assert len(found) == 4, found
    assert "'bge-small-en-v1.5-int8' is cut" in found[0] and "'a' and 'b' overlap" in found[1]
    assert "legend covers 'model'" in found[2] and "'q1' reaches out" in found[3]
    fig["all"], fig["x"], fig["legend"] = fig["all"][:1], [fig["x"][0][:1]], []
    assert layout_problems({"figures": [fig], "inputs": []}) == []
