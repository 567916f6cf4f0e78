"""The per-type heatmap readable at a glance: sized to its content, labels wrapped (not cut),
the min-n text inside its cell, a mark where a difference's CI spans 0, and a warning where the
shown models' n differ a lot. Pure: figure layouts and tables, no browser."""

import numpy as np
import pandas as pd

from negviz.analyses import per_type as at
from negviz.charts.per_type import (
    CELL_CHARS,
    CELL_FONT,
    NS,
    _wrap,
    accuracy_heatmap,
    char_px,
    ci_spans_zero,
    heatmap_size,
)

MODELS = ["negmpnet-lora", "ms-marco-MiniLM-L-12-v2-int8", "maxsim-all-mpnet-base-v2", "tfidf"]
LABELS = ["Sentential", "Exclusion: exceptor", "Affixal", "Implicit", "Contrasting antonyms"]


def cells_for(rows, columns, n=440, value=0.3, ci=(0.25, 0.35), enough=True):
    return pd.DataFrame([(m, c, n, value, *ci, enough) for m in rows for c in columns], columns=list(at.CELL_COLUMNS))


def lines(label: str) -> list[str]:
    return label.split("<br>")


# ---------------------------------------------------------------- layout
def test_height_grows_with_rows_and_width_with_columns():
    small = heatmap_size(MODELS[:2], LABELS[:2], "t")
    taller = heatmap_size(MODELS, LABELS[:2], "t")
    wider = heatmap_size(MODELS[:2], LABELS, "t")
    assert taller.height - small.height >= 2 * 56 and taller.width == small.width
    assert wider.width > small.width and wider.height >= small.height
    assert wider.width >= wider.left + len(LABELS) * wider.col_px  # every column its full width
    assert heatmap_size(MODELS, LABELS, "t", n_notes=3).height > heatmap_size(MODELS, LABELS, "t").height
    assert taller.row_px >= 56


def test_column_labels_are_wrapped_within_the_column_budget_and_keep_every_word():
    size = heatmap_size(MODELS, LABELS + ["Quantifier: subcontradiction", "No negation found"], "t")
    for label, wrapped in zip(LABELS, size.x_labels):
        assert all(len(line) <= size.col_chars for line in lines(wrapped)), wrapped
        assert len(lines(wrapped)) <= 3
        assert "".join(lines(wrapped)).replace(" ", "") == label.replace(" ", "")  # wrapped, not cut
    assert size.x_labels[4] == "Contrasting<br>antonyms" and size.x_labels[1] == "Exclusion:<br>exceptor"
    assert size.col_chars * char_px(CELL_FONT) <= size.col_px  # a full line fits its column
    assert all(len(line) <= size.col_chars for line in lines(size.x_labels[5]))  # a long word hyphenated


def test_model_names_are_wrapped_at_hyphens_and_fit_the_left_margin():
    size = heatmap_size(MODELS, LABELS, "t")
    assert size.y_labels[1] == "ms-marco-MiniLM-<br>L-12-v2-int8"
    longest = max(len(line) for y in size.y_labels for line in lines(y))
    assert longest * char_px(CELL_FONT) <= size.left
    assert _wrap("all-MiniLM-L6-v2", 16) == "all-MiniLM-L6-v2"  # short names stay whole


def test_figure_carries_its_size_and_the_min_n_text_fits_its_cell():
    cells = pd.concat([cells_for(MODELS[:3], ["x", "y"]), cells_for(MODELS[3:], ["x", "y"], n=2, enough=False)])
    fig = accuracy_heatmap(cells, MODELS, ["x", "y"], metric="acc", baseline=0.25, title="t", min_n=20)
    note = fig.layout.annotations[0].text  # what grey means, wrapped to the figure
    size = heatmap_size(MODELS, ["x", "y"], "t", len(lines(note)))
    assert (fig.layout.width, fig.layout.height) == (size.width, size.height)
    assert fig.layout.margin.l == size.left and fig.layout.margin.b == size.bottom
    main = fig.data[1]
    assert main.text[3][0] == "n=2"  # short: the reason is in the hover and the note
    widest = max(len(line) for row in main.text for t in row for line in lines(t))
    assert widest <= CELL_CHARS and CELL_CHARS * char_px(CELL_FONT) <= size.col_px
    assert "below min n 20" in fig.data[2].customdata[6][6]
    assert any("grey cell: fewer than 20 items" in a.text for a in fig.layout.annotations)
    assert main.colorbar.title.text == "acc (%)" and main.colorbar.orientation == "h"


def test_a_long_title_is_wrapped_to_the_figure():
    size = heatmap_size(MODELS, LABELS[:2], "paired accuracy by negation type · nevir test · ▾ below random (25%)")
    assert "<br>" in size.title
    assert all(len(line) * char_px(15) <= size.width for line in lines(size.title))


# ---------------------------------------------------------------- difference mode
def test_ci_spans_zero():
    assert ci_spans_zero(-0.02, 0.05) and ci_spans_zero(0.0, 0.1)
    assert not ci_spans_zero(0.01, 0.2) and not ci_spans_zero(-0.3, -0.1)
    assert not ci_spans_zero(np.nan, np.nan)


def test_difference_cells_mark_a_ci_spanning_zero_in_percentage_points():
    cells = pd.DataFrame(
        [
            ("A", "x", 440, 0.10, 0.05, 0.15, True),  # clear
            ("A", "y", 66, 0.03, -0.02, 0.08, True),  # CI spans 0
            ("B", "x", 440, 0.0, 0.0, 0.0, True),  # the reference itself
            ("B", "y", 66, 0.0, 0.0, 0.0, True),
        ],
        columns=list(at.CELL_COLUMNS),
    )
    fig = accuracy_heatmap(cells, ["A", "B"], ["x", "y"], metric="acc", baseline=0.25, title="t", reference="B")
    main, points = fig.data[1], fig.data[2]
    assert main.text[0][0] == "+10.0 pp<br>n=440" and NS not in main.text[0][0]
    assert main.text[0][1] == f"+3.0 pp<sup>{NS}</sup><br>n=66"
    assert main.text[1][0].startswith("reference")
    assert "percentage points" in main.colorbar.title.text and main.colorbar.ticksuffix == " pp"
    assert "95% CI" in points.hovertemplate and "spans 0" in points.customdata[1][6]
    note = " ".join(a.text for a in fig.layout.annotations)
    assert f"{NS}: the 95% CI of the difference spans 0" in note
    clear = accuracy_heatmap(cells[cells["column"] == "x"], ["A", "B"], ["x"], metric="acc", baseline=0.25,
                             title="t", reference="B")  # fmt: skip
    assert not any(f"{NS}:" in a.text for a in clear.layout.annotations)  # no mark, no note


# ---------------------------------------------------------------- very different n
def test_n_warning_names_the_model_with_far_fewer_items_and_its_n():
    cells = pd.concat(
        [
            cells_for(["big", "other"], ["sentential", "affixal"], n=440),
            cells_for(["smollm2-135m"], ["sentential"], n=25),
            cells_for(["smollm2-135m"], ["affixal"], n=200),  # under half, not under a quarter
        ]
    )
    few = at.n_imbalance(cells)
    assert few[["model", "column", "n", "max_n"]].values.tolist() == [["smollm2-135m", "sentential", 25, 440]]
    text = at.n_warning(cells, ["big", "other", "smollm2-135m"], {"sentential": "Sentential"})
    assert "smollm2-135m" in text and "n = 25 (Sentential)" in text and "440" in text
    assert "big is scored" not in text
    assert at.n_warning(cells, ["big", "other"]) is None  # the small run not shown: no warning
    assert at.n_warning(cells_for(["a", "b"], ["x"])) is None


def test_heatmap_prints_the_n_warning_under_the_figure():
    cells = pd.concat([cells_for(["big"], ["x"], n=440), cells_for(["small"], ["x"], n=25)])
    warning = at.n_warning(cells, ["big", "small"])
    fig = accuracy_heatmap(cells, ["big", "small"], ["x"], metric="acc", baseline=0.25, title="t", n_warning=warning)
    assert any("⚠ Very different n: small" in a.text.replace("<br>", " ") for a in fig.layout.annotations)
    assert fig.layout.height > accuracy_heatmap(cells, ["big", "small"], ["x"], metric="acc", baseline=0.25,
                                                title="t").layout.height  # fmt: skip
