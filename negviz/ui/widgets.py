"""Small widgets the pages share: downloads, progress bars, error boxes."""

from __future__ import annotations

import pandas as pd
import streamlit as st


def csv_download(df: pd.DataFrame, file_name: str, label: str = "Download CSV", key: str | None = None) -> None:
    from negviz.charts.export import csv_bytes

    st.download_button(label, csv_bytes(df), file_name=file_name, mime="text/csv",
                       key=key or f"dl-{file_name}", icon=":material/download:")


def figure_downloads(fig, stem: str, key: str | None = None) -> None:
    """PNG and SVG download buttons; the file is rendered only when clicked."""
    from negviz.charts.export import figure_bytes

    key = key or stem
    left, right, _ = st.columns([1, 1, 4])
    left.download_button("PNG", data=lambda: figure_bytes(fig, "png"), file_name=f"{stem}.png", mime="image/png",
                         key=f"png-{key}", icon=":material/image:")
    right.download_button("SVG", data=lambda: figure_bytes(fig, "svg"), file_name=f"{stem}.svg",
                          mime="image/svg+xml", key=f"svg-{key}", icon=":material/image:")


class ProgressBar:
    """The library's progress(done, total, desc) callback drawn as a bar with counts."""

    def __init__(self, label: str):
        self.label = label
        self.bar = st.progress(0.0, text=f"{label}: starting")

    def __call__(self, done: int, total: int, desc: str) -> None:
        frac = done / total if total else 1.0
        self.bar.progress(min(frac, 1.0), text=f"{self.label}: {desc} {done:,}/{total:,}")

    def done(self) -> None:
        self.bar.empty()


def show_error(exc: Exception) -> None:
    """A user-facing error; the page keeps running."""
    st.error(f"{type(exc).__name__}: {exc}", icon=":material/error:")
