"""Small widgets the pages share: downloads, progress bars, error boxes, and the two guards
for what a visitor types: ``safe_md`` (user or URL text inside markdown shows as itself, never
as a link, image or tag) and ``user_path`` (the server-side path policy)."""

from __future__ import annotations

import logging

import pandas as pd
import streamlit as st

from negviz.analyses.paircard import md_escape as safe_md  # the one escaping rule, also used by the library
from negviz.evaluation.catalog import eval_command

__all__ = ["csv_download", "figure_downloads", "ProgressBar", "show_error", "safe_md", "user_path", "no_runs_yet"]

STARTER_MODEL = "all-MiniLM-L6-v2"  # what an empty page suggests running: small, shipped, offline


def no_runs_yet(dataset: str, title: str | None = None) -> str:
    """What an empty page says (markdown): no stored run on ``dataset`` yet (shown as ``title``,
    escaped; default its name), and the Evaluate page or the `negviz eval` command that stores one."""
    return (
        f"No stored runs on {safe_md(title or dataset)} yet. Run one on the Evaluate page or with "
        f"`{eval_command(STARTER_MODEL, dataset)}`."
    )


def headed(frame: pd.DataFrame, config: dict | None = None) -> dict:
    """``config`` (st.dataframe's column_config) with a readable header (metric_text.heading) for
    each of ``frame``'s columns it gives no label: no snake_case key shown to a person."""
    from negviz.core.metric_text import heading

    out = dict(config or {})
    for c in frame.columns:
        given = out.get(c)
        if c not in out:
            out[c] = heading(c)
        elif isinstance(given, dict) and not given.get("label"):  # a column_config object with no label
            out[c] = {**given, "label": heading(c)}
    return out


def csv_download(df: pd.DataFrame, file_name: str, label: str = "Download CSV", key: str | None = None) -> None:
    from negviz.language.text.csv_cells import csv_bytes

    st.download_button(
        label,
        csv_bytes(df),
        file_name=file_name,
        mime="text/csv",
        key=key or f"dl-{file_name}",
        icon=":material/download:",
        on_click="ignore",
    )


def figure_downloads(fig, stem: str, key: str | None = None) -> None:
    """PNG and SVG download buttons; the file is rendered only when clicked."""
    from negviz.charts.export import figure_bytes

    key = key or stem
    left, right, _ = st.columns([1, 1, 4])
    left.download_button(
        "PNG",
        data=lambda: figure_bytes(fig, "png"),
        file_name=f"{stem}.png",
        mime="image/png",
        key=f"png-{key}",
        icon=":material/image:",
        on_click="ignore",
    )
    right.download_button(
        "SVG",
        data=lambda: figure_bytes(fig, "svg"),
        file_name=f"{stem}.svg",
        mime="image/svg+xml",
        key=f"svg-{key}",
        icon=":material/image:",
        on_click="ignore",
    )


class ProgressBar:
    """The library's progress(done, total, desc) callback drawn as a bar with counts and the
    time left (negviz.core.progress)."""

    def __init__(self, label: str):
        from negviz.core.progress import Eta

        self.label = label
        self.eta = Eta()
        self.bar = st.progress(0.0, text=f"{label}: starting")

    def __call__(self, done: int, total: int, desc: str) -> None:
        frac = done / total if total else 1.0
        self.bar.progress(min(frac, 1.0), text=f"{self.label}: {self.eta.text(desc, done, total)}")

    def done(self) -> None:
        self.bar.empty()


UNEXPLAINED_ERROR = "an unexpected error stopped this step; the server log has the details"


def show_error(exc: Exception) -> None:
    """A user-facing error in words (its message; the class name, for whoever debugs, goes to the
    server log, not to the person reading the page); the page keeps running."""
    logging.getLogger("negviz.ui").warning("shown to the user: %s: %s", type(exc).__name__, exc)
    message = str(exc).strip()
    st.error(safe_md(message) if message else UNEXPLAINED_ERROR, icon=":material/error:")


def user_path(value: str) -> str:
    """``value`` when the server may read it for a browser user (negviz.core.paths.check_user_path;
    the default for an unset NEGVIZ_DATA_DIRS follows the address the server listens on)."""
    from negviz.core.paths import check_user_path, is_local_address

    return check_user_path(value, local_server=is_local_address(st.get_option("server.address")))
