"""Which fine-tuning runs made a model: one rule, for the report's drift section and the board's
general-retrieval cell of a trained model."""

from __future__ import annotations

import pandas as pd


def trained_runs(runs: pd.DataFrame, model: str, catalog: pd.DataFrame) -> pd.Series:
    """Fine-tuning runs that made ``model``: its checkpoint is exactly the model (its name or catalog
    hub id / path), the model's checkpoint folder records the run (negviz_finetune.json), or its
    recipe (``options["finetune"]``) equals the spec that the model's shipped delta.json records,
    on the keys both have (the checkpoint may have been anywhere)."""
    from negviz.core.paths import DATA_DIR, looks_like_path
    from negviz.evaluation.catalog import checkpoint_training
    from negviz.scorers.delta import META_FILE, read_meta
    from negviz.scorers.loading import DELTAS

    if runs.empty:
        return pd.Series(dtype=bool)
    names = {model}
    row = catalog[catalog["name"] == model]
    hub = row["hub_id"].iloc[0] if not row.empty else None
    if hub:
        names.add(hub)
    names |= {n.rstrip("/") for n in names}
    delta = DATA_DIR / DELTAS[hub][0] if hub in DELTAS else None
    spec = read_meta(delta).get("spec") or {} if delta and (delta / META_FILE).is_file() else {}

    # a `negviz finetune` checkpoint folder names the run that made it (catalog.checkpoint_training)
    recorded = (checkpoint_training(model) or {}).get("finetune_run_id") if looks_like_path(model) else None

    def made(r) -> bool:
        ckpt = str((r["summary"] or {}).get("checkpoint") or "").rstrip("/")
        recipe = (r["options"] or {}).get("finetune") or {}
        shared = set(spec) & set(recipe)
        # exact matches only: a name that merely ends like the checkpoint is another model
        by_checkpoint = bool(ckpt) and ckpt in names or r["run_id"] == recorded
        return by_checkpoint or bool(shared) and all(spec[k] == recipe[k] for k in shared)

    return runs.apply(made, axis=1)
