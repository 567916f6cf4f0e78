"""Data of the explore pages: the models that run here and the playground's demo presets picked
from stored runs (read through the store's view, kept by run ids: a stored run never changes)."""

from __future__ import annotations

from typing import Sequence

import pandas as pd

from negviz.analyses import playground as pg
from negviz.ui import resources
from negviz.ui.dataset_cache import dataset_view


def models(families: Sequence[str] | None = None) -> pd.DataFrame:
    """Catalog models (optionally of some families) with an ``available`` column (offline here)."""
    return pg.model_table(resources.catalog(), families, resources.available_offline)


def presets(models_: Sequence[str] = pg.PRESET_MODELS, added: tuple[str, str] | None = None) -> list[pg.Preset]:
    """Demo presets from the run that stands for each preset model (negviz.evaluation.run_choice) on NevIR and
    ExcluIR, and on ``added`` (name, kind: the sidebar's added dataset) where it has runs (the
    preset models' runs there, else any two models'): DatasetView.presets, kept by run ids."""
    return dataset_view().presets(models_, added)
