"""Which fine-tuning runs made a model: one rule, for the report's drift section and the board's
general-retrieval cell of a trained model."""

from __future__ import annotations

import pandas as pd


def trained_runs(runs: pd.DataFrame, model: str, catalog: pd.DataFrame) -> pd.Series:
    """Fine-tuning runs that made ``model``: its checkpoint is the model (by name, catalog hub id /
    path, or run id), or its recipe (``options["finetune"]``) equals the spec that the model's
    shipped delta.json records, on the keys both have (the checkpoint may have been anywhere)."""
    from negviz.scorers.delta import META_FILE, read_meta
    from negviz.paths import DATA_DIR
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

    def made(r) -> bool:
        ckpt = str((r["summary"] or {}).get("checkpoint") or "").rstrip("/")
        recipe = (r["options"] or {}).get("finetune") or {}
        shared = set(spec) & set(recipe)
        return (
            bool(ckpt)
            and (
                ckpt in names
                or any(n.endswith(ckpt) or ckpt.endswith(n) for n in names if "/" in n)
                or r["run_id"] in model
            )
            or bool(shared)
            and all(spec[k] == recipe[k] for k in shared)
        )

    return runs.apply(made, axis=1)
