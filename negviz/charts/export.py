"""Figures and tables as files: PNG/SVG for papers (readable fonts), CSV for tables
(``csv_bytes``, whose rule lives in negviz.language.text.csv_cells)."""

from __future__ import annotations

import copy
import os
import shutil
import signal
import threading
from pathlib import Path

import plotly.graph_objects as go

from negviz.charts.style import FONT
from negviz.language.text.csv_cells import csv_bytes  # noqa: F401  (the tables' CSV, beside the figures')

PAPER_FONT = dict(FONT, size=16, color="#111111")  # the one figure font, larger for print


def _point_kaleido_at_chromium() -> None:
    # kaleido drives a Chromium; on machines without Chrome, Debian's chromium serves.
    if "BROWSER_PATH" not in os.environ:
        found = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
        if found:
            os.environ["BROWSER_PATH"] = found


def figure_bytes(
    fig: go.Figure, fmt: str = "png", scale: float = 2.0, width: int | None = None, height: int | None = None
) -> bytes:
    """The figure as PNG or SVG, with larger fonts and a white background for print."""
    if fmt not in ("png", "svg"):
        raise ValueError(f"unknown figure format {fmt!r}; use png or svg")
    _point_kaleido_at_chromium()
    printable = go.Figure(copy.deepcopy(fig))
    printable.update_layout(font=PAPER_FONT, paper_bgcolor="white", plot_bgcolor="white")
    return with_deadline(
        lambda: printable.to_image(
            format=fmt,
            scale=scale if fmt == "png" else 1.0,
            width=width or fig.layout.width or 1000,
            height=height or fig.layout.height or 500,
        ),
        on_timeout=_kill_kaleido_browsers,
    )


EXPORT_SECONDS = 90.0  # kaleido's own render timeout; the start of its Chromium has none


class FigureExportError(RuntimeError):
    pass


def with_deadline(call, seconds: float | None = None, attempts: int = 2, on_timeout=lambda: None):
    """``call()`` in a worker thread, given ``seconds``; past them ``on_timeout()`` runs (it must
    end the stuck call) and the call is tried again. kaleido's Chromium has been seen to hang at
    start on a loaded machine, and a download must not hang the page or the report with it."""
    seconds = EXPORT_SECONDS if seconds is None else seconds
    for _ in range(attempts):
        box: dict = {}

        def work(box: dict = box) -> None:  # this attempt's box: an ended call reports into its own
            try:
                box["out"] = call()
            except BaseException as exc:  # handed to the caller's thread
                box["error"] = exc

        worker = threading.Thread(target=work, name="figure-export", daemon=True)
        worker.start()
        worker.join(seconds)
        if not worker.is_alive():
            if "error" in box:
                raise box["error"]
            return box["out"]
        on_timeout()
    raise FigureExportError(
        f"exporting the figure did not finish in {seconds:.0f} s ({attempts} tries): its "
        "renderer (kaleido's Chromium) hung; try the download again"
    )


def _kill_kaleido_browsers() -> None:
    """End the Chromium that kaleido started from this process (its wrapper leads its own process
    group), which makes the stuck export call fail instead of waiting forever. Linux /proc only."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            pid, ppid = int(stat.parent.name), int(stat.read_text().rsplit(")", 1)[1].split()[1])
            wrapped = ppid == os.getpid() and b"choreographer" in (stat.parent / "cmdline").read_bytes()
            if wrapped:
                os.killpg(pid, signal.SIGKILL)
        except (OSError, ValueError, IndexError):
            continue
