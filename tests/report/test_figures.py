"""negviz.report.figures' small parts, without kaleido: an SVG made safe to inline, a figure embedded
as data that no tag can break out of, and the report's JSON. The figures exported through kaleido:
tests/report/test_report.py."""

import json

import plotly.graph_objects as go

from negviz.report.figures import clean_svg, dumps, plotly_div


def test_clean_svg_removes_scripts_handlers_and_javascript_links_and_scales():
    svg = (
        '<?xml version="1.0"?><svg width="200" height="100"><script>alert(1)</script>'
        '<a href="javascript:alert(2)"><rect onclick="alert(3)" width="5"/></a></svg>'
    )
    out = clean_svg(svg)
    assert "<script" not in out and "onclick" not in out and "javascript:" not in out and "<?xml" not in out
    assert out.startswith('<svg viewBox="0 0 200 100" width="200"') and '<rect width="5"/>' in out


def test_plotly_div_embeds_the_figure_as_data_no_tag_can_close():
    fig = go.Figure(go.Bar(x=["</script><b>x"], y=[1]))
    div = plotly_div('a"b', fig)
    assert div.startswith('<div class="plotly-fig" id="fig-a&quot;b"></div>')
    data = div.split('data-target="fig-a&quot;b">', 1)[1].removesuffix("</script>")
    assert "<" not in data and json.loads(data)["data"][0]["x"] == ["</script><b>x"]


def test_dumps_writes_nan_as_null_and_keeps_non_ascii():
    assert json.loads(dumps({"v": float("nan"), "name": "ΔR@1"})) == {"v": None, "name": "ΔR@1"}
    assert "ΔR@1" in dumps({"name": "ΔR@1"})
