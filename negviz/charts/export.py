"""Figures and tables as files: PNG/SVG for papers (readable fonts), CSV for tables."""

from __future__ import annotations

import copy
import os
import shutil

import plotly.graph_objects as go

from negviz.charts.style import FONT

PAPER_FONT = dict(FONT, size=16, color="#111111")  # the one figure font, larger for print


def _point_kaleido_at_chromium() -> None:
    # kaleido drives a Chromium; on machines without Chrome, Debian's chromium serves.
    if "BROWSER_PATH" not in os.environ:
        found = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
        if found:
            os.environ["BROWSER_PATH"] = found


def figure_bytes(fig: go.Figure, fmt: str = "png", scale: float = 2.0, width: int | None = None,
                 height: int | None = None) -> bytes:
    """The figure as PNG or SVG, with larger fonts and a white background for print."""
    if fmt not in ("png", "svg"):
        raise ValueError(f"unknown figure format {fmt!r}; use png or svg")
    _point_kaleido_at_chromium()
    printable = go.Figure(copy.deepcopy(fig))
    printable.update_layout(font=PAPER_FONT, paper_bgcolor="white", plot_bgcolor="white")
    return printable.to_image(format=fmt, scale=scale if fmt == "png" else 1.0,
                              width=width or fig.layout.width or 1000, height=height or fig.layout.height or 500)
