"""negviz.charts.layers: the layer curves figure, one line per label in each of its two panels."""

import pandas as pd

from negviz.charts.layers import MEASURES, layer_curves


def test_layer_curves_draw_each_label_in_both_panels_with_one_legend_entry():
    curves = pd.DataFrame(
        {
            "label": ["m1", "m1", "m2", "m2"],
            "layer": [0, 1, 0, 1],
            "pooled_distance": [0.1, 0.2, 0.3, 0.4],
            "cue_distance": [0.5, 0.6, 0.7, 0.8],
        }
    )
    fig = layer_curves(curves, "curves")
    assert [(t.name, t.xaxis) for t in fig.data] == [("m1", "x"), ("m1", "x2"), ("m2", "x"), ("m2", "x2")]
    # the first panel is the distance at the cue, the second the pooled one (MEASURES' order)
    assert list(fig.data[0].y) == [0.5, 0.6] and list(fig.data[3].y) == [0.3, 0.4]
    assert [t.showlegend for t in fig.data] == [True, False, True, False]
    assert fig.data[0].line.color == fig.data[1].line.color != fig.data[2].line.color
    assert [a.text for a in fig.layout.annotations] == list(MEASURES.values())
    assert fig.layout.xaxis.title.text == "layer (0 = embedding output)" and fig.layout.title.text == "curves"
