"""negviz.finetune.provenance: which fine-tuning runs made a model. A run whose checkpoint is exactly
the model (its name or catalog hub id), never one that merely ends like it, and a run whose recipe
equals the spec the model's shipped delta.json records."""

from __future__ import annotations

import json

import pandas as pd

from negviz.core.paths import DATA_DIR
from negviz.evaluation.catalog import load_catalog
from negviz.finetune.provenance import trained_runs


def runs(*rows) -> pd.DataFrame:
    return pd.DataFrame(
        [{"run_id": f"r{i}", "summary": summary, "options": options} for i, (summary, options) in enumerate(rows)]
    )


def test_a_run_made_a_model_when_its_checkpoint_is_exactly_the_model():
    frame = runs(
        ({"checkpoint": "ckpts/neg/"}, {}),  # a trailing slash is the same folder
        ({"checkpoint": "old/ckpts/neg"}, {}),  # ends like it: another model
        ({"checkpoint": None}, None),
    )
    catalog = pd.DataFrame({"name": [], "hub_id": []})
    assert trained_runs(frame, "ckpts/neg", catalog).tolist() == [True, False, False]
    assert trained_runs(frame.head(0), "ckpts/neg", catalog).empty


def test_a_shipped_model_is_made_by_the_run_with_its_recorded_recipe():
    spec = json.loads((DATA_DIR / "models/negminilm/delta.json").read_text())["spec"]
    frame = runs(
        ({}, {"finetune": {"lr": spec["lr"], "train": spec["train"], "seed": spec["seed"]}}),  # shared keys equal
        ({}, {"finetune": {**spec, "lr": spec["lr"] * 10}}),  # another learning rate
        ({"checkpoint": "negviz/negminilm"}, {}),  # the checkpoint is the catalog entry's hub id
    )
    assert trained_runs(frame, "negminilm", load_catalog()).tolist() == [True, False, True]
    assert trained_runs(frame, "all-MiniLM-L6-v2", load_catalog()).tolist() == [False, False, False]
