"""Cached data of the heatmap and error-preference pages: dataset, type labels, run outcomes.

Stored runs never change, so their outcomes are cached by run id; type labels get a short TTL
because annotators may relabel pairs while the app runs.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import streamlit as st

from negviz import links, outcomes
from negviz.analyses import per_type as at
from negviz.datasets import DatasetFacts, facts
from negviz.schema import PERTURBATION
from negviz.ui import pickers, resources


def dataset(name: str):
    """The one cached loader of every page: shipped datasets and those added to the store (keyed
    by their sha256, so a dataset removed and added again with other content is reloaded)."""
    return _dataset(resources.db_url(), name, content_key(name))


def content_key(name: str) -> str:
    """What identifies a dataset's content (an added dataset's sha256; "" for shipped data): part
    of the key of every cache derived from its items."""
    table = resources.datasets_table()
    sha = table.loc[table["name"] == name, "sha256"]
    return str(sha.iloc[0]) if len(sha) else ""


@st.cache_resource(show_spinner=False, max_entries=6)
def _dataset(url: str, name: str, sha256: str):
    from negviz.datasets import load

    return load(name, store=resources.store())


@st.cache_data(show_spinner=False, ttl=30)
def labels(name: str, source: str = "auto") -> pd.DataFrame:
    from negviz.taxonomy import label_pairs

    return label_pairs(dataset(name), source, store=resources.store())


# Room for every model of a big store (80+ per dataset): with fewer entries than models, a page
# drawing them all evicts each run before its next use and every render re-reads all runs.
@st.cache_data(show_spinner=False, max_entries=512)
def _outcomes(url: str, kind: str, run_id: str, model: str, tie_rule: str) -> pd.DataFrame:
    wide = resources.store().scores_wide(run_id)
    return outcomes.run_outcomes(kind, {model: (run_id, wide, tie_rule)})


@dataclass
class TypesContext:
    name: str
    kind: str
    title: str
    split: str
    facts: DatasetFacts
    runs: pd.DataFrame  # the run shown per model (negviz.run_choice)
    outcomes: pd.DataFrame  # negviz.outcomes.run_outcomes
    meta: pd.DataFrame  # per_type.item_meta

    @property
    def metric(self) -> str:
        return self.facts.item_metric_label

    @property
    def baseline(self) -> float | None:
        return self.facts.random_baseline

    @property
    def label_source(self) -> str:
        if "label_source" not in self.meta:
            return "none"
        return ", ".join(f"{k} ({v:,})" for k, v in self.meta["label_source"].value_counts().items())


def context(name: str) -> TypesContext | None:
    """Everything both pages need for a dataset (the runs shown come from the page's run picker),
    or None when items of its kind have no verdicts."""
    ds = dataset(name)
    if not outcomes.has_verdicts(ds.kind):
        return None
    runs = pickers.shown_runs(name)
    parts = [
        _outcomes(resources.db_url(), ds.kind, r.run_id, r.model_name, outcomes.tie_rule(r.options))
        for r in runs.itertuples()
    ]
    empty = pd.DataFrame(columns=["model", "run_id", *outcomes.COLUMNS])
    done = pd.concat(parts, ignore_index=True) if parts else empty
    # DEMETR: 35k items take ~13 s to type by detection; its column axis is the perturbation.
    meta = at.item_meta(ds.kind, ds.frame, None if ds.kind == PERTURBATION else labels(name))
    return TypesContext(name, ds.kind, ds.title, ds.spec.split, facts(ds, store=resources.store()), runs, done, meta)


def apply_click(chart_key: str, targets: dict[str, int], options: dict[str, list]) -> None:
    """Copy a new plotly click (customdata fields) into the cell pickers, before they are drawn.

    ``targets`` maps a picker key to the customdata index it takes; a value outside the picker's
    ``options`` is ignored. Each click is applied once, so the pickers stay usable."""
    state = st.session_state.get(chart_key)
    points = (state or {}).get("selection", {}).get("points", []) if state else []
    if not points:
        return
    custom = points[0].get("customdata")
    seen_key = f"_{chart_key}_seen"
    if not custom or st.session_state.get(seen_key) == custom:
        return
    st.session_state[seen_key] = custom
    for key, index in targets.items():
        if index < len(custom) and custom[index] in options.get(key, []):
            st.session_state[key] = custom[index]


def items_table(items: pd.DataFrame, name: str, key: str, file_stem: str, model: str | None = None) -> None:
    """The items behind a cell or segment, each linking to the pair inspector (with ``model``: its
    verdict and its attributions turned on), with a CSV download."""
    from negviz.ui.widgets import csv_download

    extra = {"model": model, "why_on": "true"} if model else {}
    shown = items.assign(link=[links.inspector(name, i, **extra) for i in items["item_id"]])
    shown = shown[["link"] + [c for c in shown.columns if c != "link"]]
    st.dataframe(
        shown,
        hide_index=True,
        key=key,
        column_config={
            "link": st.column_config.LinkColumn(
                "pair", display_text=r"pair=([^&]+)", help="open in the pair inspector"
            ),
            "margin1": st.column_config.NumberColumn("margin 1", format="%.4f"),
            "margin2": st.column_config.NumberColumn("margin 2", format="%.4f"),
        },
    )
    csv_download(shown, f"{file_stem}.csv", label="Download these items (CSV)", key=f"dl-{key}")
