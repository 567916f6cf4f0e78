"""Cached data of the explore pages: the models that run here and the playground's demo presets
picked from stored runs (keyed by store URL and run ids; a stored run never changes)."""

from __future__ import annotations

from typing import Sequence

import pandas as pd
import streamlit as st

from negviz.analyses import playground as pg
from negviz.ui import resources
from negviz.ui import types_data as td


def models(families: Sequence[str] | None = None) -> pd.DataFrame:
    """Catalog models (optionally of some families) with an ``available`` column (offline here)."""
    return pg.model_table(resources.catalog(), families, resources.available_offline)


def presets(models_: Sequence[str] = pg.PRESET_MODELS) -> list[pg.Preset]:
    """Demo presets from the newest stored run of each preset model per dataset."""
    chosen = []
    for dataset in pg.PRESET_PICKERS:
        runs = resources.runs(dataset)  # newest first  # lead: run choice
        ids = tuple((m, runs.loc[runs["model_name"] == m, "run_id"].iloc[0])
                    for m in models_ if (runs["model_name"] == m).any())
        chosen.append((dataset, ids))
    return _presets(resources.db_url(), tuple(chosen))


@st.cache_data(show_spinner=False, max_entries=8)
def _presets(url: str, chosen: tuple[tuple[str, tuple[tuple[str, str], ...]], ...]) -> list[pg.Preset]:
    frames = {d: td.dataset(d).frame for d, ids in chosen if ids}
    wide = {d: {m: resources.run_scores(r) for m, r in ids} for d, ids in chosen}
    return pg.stored_presets(frames, wide)
