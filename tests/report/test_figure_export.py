"""A figure exported to PNG and SVG bytes through kaleido and the local Chromium, with the paper's
fonts, the on-screen figure untouched (negviz.charts.export.figure_bytes; the report's SVGs come
from it). The export's deadline and the CSV rules: tests/charts/test_export.py."""

import shutil

import plotly.graph_objects as go
import pytest

from negviz.charts.export import figure_bytes

needs_chromium = pytest.mark.skipif(
    shutil.which("chromium") is None, reason="kaleido needs a Chromium (make test installs it)"
)


@needs_chromium
def test_png_and_svg_bytes_with_paper_fonts():
    fig = go.Figure(go.Bar(x=[1, 2], y=["a", "b"], orientation="h"))
    png = figure_bytes(fig, "png")
    svg = figure_bytes(fig, "svg").decode()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert svg.startswith("<svg") and "font-size: 16px" in svg
    assert fig.layout.font.size is None, "the on-screen figure is left untouched"
    with pytest.raises(ValueError, match="png or svg"):
        figure_bytes(fig, "gif")
