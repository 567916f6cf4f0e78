"""Cached data of the drift page: the stored fine-tuning runs and their per-epoch frames.

A complete run never changes, so its frames are cached by run id; a running run's are re-read on
every visit (a new epoch may have landed). The run list has a short TTL, as jobs start and end
while the page is open."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from negviz import finetune as ft
from negviz.errors import NegvizError
from negviz.finetune import views
from negviz.ui import resources


def finetune_runs() -> pd.DataFrame:
    """Stored fine-tuning runs, every status, newest first, with their labels."""
    return _finetune_runs(resources.db_url())


@st.cache_data(show_spinner=False, ttl=2)
def _finetune_runs(url: str) -> pd.DataFrame:
    return ft.finetune_runs(resources.store(), status=None)


@st.cache_data(show_spinner=False, max_entries=64)
def _complete_frames(url: str, run_id: str, label: str):
    runs = pd.DataFrame([{"run_id": run_id, "label": label}])
    return views.drift_frames(resources.store(), runs)


def drift_frames(picked: pd.DataFrame):
    """views.drift_frames of the picked runs (epochs, pair cosines, per-run tables), complete runs
    from the cache."""
    parts = []
    for run in picked.itertuples(index=False):
        one = pd.DataFrame([{"run_id": run.run_id, "label": run.label}])
        parts.append(
            _complete_frames(resources.db_url(), run.run_id, run.label)
            if run.status == "complete"
            else views.drift_frames(resources.store(), one)
        )
    epochs = [p[0] for p in parts if len(p[0])]
    cosines = [p[1] for p in parts if len(p[1])]
    wide = {k: v for p in parts for k, v in p[2].items()}
    empty = views.drift_frames(resources.store(), picked.iloc[:0])
    return (
        pd.concat(epochs, ignore_index=True) if epochs else empty[0],
        pd.concat(cosines, ignore_index=True) if cosines else empty[1],
        wide,
    )


def pair_texts(dataset_spec: dict, pair: str) -> pd.Series | None:
    """The texts of one training pair, or None when its dataset cannot be read here (a user file
    that stayed on another machine, a pair the dataset no longer has)."""
    from negviz.datasets import facts, load
    from negviz.schema import DatasetSpec

    try:
        spec = DatasetSpec.from_dict(dataset_spec)
        return load(spec).frame.set_index(facts(spec.name).id_column).loc[pair]
    except (NegvizError, OSError, KeyError, ValueError):
        return None
