"""The report's figures as inline markup: SVG through kaleido (charts.export.figure_bytes, the
same export the pages' download buttons use), or, when kaleido cannot run (no Chromium),
embedded plotly JSON drawn by plotly.js inlined once in the file.

SVG is the default: no script, small, sharp when printed, and it opens in any browser offline.
"""

from __future__ import annotations

import contextlib
import html
import re
from typing import Any, Iterator, Mapping

from negviz.core import json_values
from negviz.core.heavy import heavy_import

SVG, PLOTLY = "svg", "plotly"
_SCRIPT = re.compile(r"<script\b.*?</script\s*>", re.I | re.S)
_ON_ATTR = re.compile(r"""\s on[a-z]+ \s*=\s* ("[^"]*"|'[^']*')""", re.I | re.X)
_JS_HREF = re.compile(r"""(href\s*=\s*["'])\s*javascript:[^"']*""", re.I)


def clean_svg(svg: str) -> str:
    """An SVG safe to inline: no scripts, event handlers or javascript: links (figure text is
    escaped by the SVG serializer already; this is a second guard), scalable by CSS."""
    svg = _SCRIPT.sub("", svg)
    svg = _ON_ATTR.sub("", svg)
    svg = _JS_HREF.sub(r"\1#", svg)
    svg = re.sub(r"<\?xml[^>]*\?>", "", svg).strip()
    if "viewBox" not in svg[:400]:
        m = re.match(r'<svg[^>]*\bwidth="([\d.]+)"[^>]*\bheight="([\d.]+)"', svg)
        if m:
            svg = svg.replace("<svg", f'<svg viewBox="0 0 {m.group(1)} {m.group(2)}"', 1)
    return svg


@contextlib.contextmanager
def _kaleido_server() -> Iterator[None]:
    """One Chromium for all figures (about 0.4 s a figure instead of 3-4 s)."""
    try:
        kaleido = heavy_import("kaleido")

        from negviz.charts.export import _point_kaleido_at_chromium

        _point_kaleido_at_chromium()
        kaleido.start_sync_server(silence_warnings=True)
        started = True
    except Exception:  # an older kaleido: each figure starts its own browser
        started = False
    try:
        yield
    finally:
        if started:
            with contextlib.suppress(Exception):
                kaleido.stop_sync_server(silence_warnings=True)


def render_figures(figures: Mapping[str, Any], fmt: str = "auto") -> tuple[str, dict[str, str], str | None]:
    """(format used, figure id -> markup, why SVG was not used). ``fmt``: svg, plotly or auto
    (SVG, falling back to plotly JSON if kaleido fails)."""
    if fmt not in ("auto", SVG, PLOTLY):
        raise ValueError(f"unknown figure format {fmt!r}; use auto, svg or plotly")
    if fmt in ("auto", SVG) and figures:
        import warnings

        from negviz.charts.export import figure_bytes

        try:
            with _kaleido_server(), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return SVG, {k: clean_svg(figure_bytes(f, "svg").decode("utf-8")) for k, f in figures.items()}, None
        except Exception as exc:
            if fmt == SVG:
                raise
            why = f"SVG export failed ({type(exc).__name__}: {str(exc).splitlines()[0][:160] if str(exc) else ''})"
    else:
        why = None if fmt == PLOTLY else None
    return PLOTLY, {k: plotly_div(k, f) for k, f in figures.items()}, why


def plotly_div(fig_id: str, fig: Any) -> str:
    """A div and the figure's JSON in a non-executable script tag (``</`` escaped)."""
    data = fig.to_json().replace("<", "\\u003c")  # JSON strings only: no tag can start inside
    safe = html.escape(fig_id, quote=True)
    return (
        f'<div class="plotly-fig" id="fig-{safe}"></div>'
        f'<script type="application/json" class="plotly-data" data-target="fig-{safe}">{data}</script>'
    )


def plotly_runtime() -> str:
    """plotly.js once, and the few lines that draw every embedded figure (no network: no MathJax,
    no topojson, no mode bar links)."""
    from plotly.offline import get_plotlyjs

    js = get_plotlyjs().replace("</script", "<\\/script")
    boot = (
        "document.querySelectorAll('script.plotly-data').forEach(function(s){var f=JSON.parse(s.textContent);"
        "Plotly.newPlot(s.dataset.target,f.data,f.layout,{displaylogo:false,responsive:true,"
        "typesetMath:false,showLink:false,showSendToCloud:false});});"
    )
    return f"<script>{js}</script><script>{boot}</script>"


def dumps(data: Any) -> str:
    return json_values.dumps(data, indent=2, ensure_ascii=False)  # the one JSON cleaner
