"""negviz.charts.alignment figure builders called directly: the MaxSim heatmaps (choices, cues,
escaped tokens) over the hand-built alignment of tests/analyses/test_alignment.py, the per-token
delta bars and the margin bars."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from negviz.analyses import alignment as al
from negviz.charts.alignment import alignment_heatmaps, delta_bars, margin_bars
from tests.analyses.test_alignment import hand_matrix


def test_delta_bars_and_margin_bars():
    deltas = pd.DataFrame(
        {
            "token": ["who", "not", "<x>"],
            "kind": ["word"] * 3,
            "cue": [False, True, False],
            "part": [True] * 3,
            "max_d1": [0.5, 0.9, 0.3],
            "max_d2": [0.5, 0.6, 0.4],
            "delta": [0.0, 0.3, -0.1],
            "best_d1": ["a", "not", "b"],
            "best_d2": ["a", "no", "b"],
        }
    )
    fig = delta_bars(deltas)
    colours = list(fig.data[0].marker.color)
    assert colours[0] == "#a1a1aa" and colours[1] != colours[2]  # unmoved grey; the signs differ
    assert "+0.200" in fig.layout.title.subtitle.text and "&lt;x&gt;" in " ".join(fig.layout.xaxis.ticktext)
    table = pd.DataFrame(
        {
            "model": ["m", "m"],
            "query": ["q1", "q2"],
            "margin": [0.2, -0.1],
            "correct": [True, False],
            "version": ["edited", "original"],
        }
    )
    bars = [t for t in margin_bars(table).data if t.x[0] is not None]  # the rest: legend keys
    assert len(bars) == 2


def test_heatmaps_mark_choices_cues_and_escape_tokens():
    tm = hand_matrix()
    tm.query.tokens[1] = "<b>in"
    cue = [al.CueSpan(0, 2, "in", "sentential")]
    spans_text = "<b>instill"
    v1 = al.build_view(tm, spans_text, "", merge=False, query_marks=cue)
    v2 = al.build_view(tm, spans_text, "", merge=False)
    fig = alignment_heatmaps([v1, v2], ["q vs d1", "q vs <i>d2</i>"], "model <x>")
    assert isinstance(fig, go.Figure)
    heat = [t for t in fig.data if t.type == "heatmap"]
    assert len(heat) == 2 and heat[0].zmin == heat[1].zmin and heat[0].zmax == heat[1].zmax
    boxes = [t for t in fig.data if t.type == "scatter"]
    assert sum(len(t.x) for t in boxes) == 2 * len(v1.marks)
    ticks = " ".join(fig.layout.yaxis.ticktext)
    assert "&lt;b&gt;in" in ticks and "<b>in" not in ticks.replace("<b><span", "")
    assert "&lt;i&gt;d2&lt;/i&gt;" in " ".join(a.text for a in fig.layout.annotations)
    assert "model &lt;x&gt;" in fig.layout.title.text
    assert any(s.line.color for s in fig.layout.shapes)  # the cue row is outlined
