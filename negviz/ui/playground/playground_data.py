"""Cached data of the explore pages: the models that run here and the playground's demo presets
picked from stored runs (keyed by store URL and run ids; a stored run never changes)."""

from __future__ import annotations

from typing import Sequence

import pandas as pd
import streamlit as st

from negviz.analyses import playground as pg
from negviz.core import outcomes
from negviz.ui import resources
from negviz.ui.dataset_cache import dataset_view


def models(families: Sequence[str] | None = None) -> pd.DataFrame:
    """Catalog models (optionally of some families) with an ``available`` column (offline here)."""
    return pg.model_table(resources.catalog(), families, resources.available_offline)


def presets(models_: Sequence[str] = pg.PRESET_MODELS, added: tuple[str, str] | None = None) -> list[pg.Preset]:
    """Demo presets from the run that stands for each preset model (negviz.evaluation.run_choice) on NevIR and
    ExcluIR, and on ``added`` (name, kind: the sidebar's added dataset) where it has runs (the
    preset models' runs there, else any two models')."""
    datasets = list(pg.PRESET_PICKERS) + ([added[0]] if added and added[0] not in pg.PRESET_PICKERS else [])
    chosen = []
    for dataset in datasets:
        runs = dataset_view(dataset).chosen()
        mine = runs[runs["model_name"].isin(models_)]
        if dataset not in pg.PRESET_PICKERS and mine.empty:
            mine = runs.head(2)
        rules = [outcomes.tie_rule(o) for o in mine["options"]]
        chosen.append((dataset, tuple(zip(mine["model_name"], mine["run_id"], rules))))
    extra = added if added and added[0] not in pg.PRESET_PICKERS else None
    return _presets(resources.db_url(), tuple(chosen), extra)


@st.cache_data(show_spinner=False, max_entries=8)
def _presets(
    url: str, chosen: tuple[tuple[str, tuple[tuple[str, str, str], ...]], ...], added: tuple[str, str] | None
) -> list[pg.Preset]:
    frames = {d: dataset_view(d).dataset.frame for d, ids in chosen if ids}
    wide = {d: {m: dataset_view(d).scores(r) for m, r, _ in ids} for d, ids in chosen}
    rules = {d: {m: rule for m, _, rule in ids} for d, ids in chosen}
    return pg.stored_presets(frames, wide, added=added, rules=rules)
