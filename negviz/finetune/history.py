"""Reading fine-tuning runs back: epoch metrics, per-pair items, labels and summaries.

A run's epochs live in the store's ``epochs``/``epoch_items`` tables. A portable run file
(``Store.export_run``) carries a run's item scores but not those tables, so a fine-tuning run
also writes its per-epoch items as item scores when it ends, one slot per measurement and
epoch (``cos@3``); ``epochs()`` and ``items()`` read them back for a run imported from a file
(e.g. the one shipped in data/runs/).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from negviz.core import times
from negviz.core.json_values import plain
from negviz.datasets import short_title
from negviz.finetune.data import readable_note

SEP = "@"  # slot = f"{name}{SEP}{epoch}"
EPOCH_KEY = "epochs"  # run summary: the per-epoch metrics, for runs read from a file


def items_as_scores(items: pd.DataFrame) -> pd.DataFrame:
    """(epoch, item_id, name, value) -> the store's long score frame (item_id, slot, score)."""
    return pd.DataFrame(
        {
            "item_id": items["item_id"].astype(str),
            "slot": items["name"].astype(str) + SEP + items["epoch"].astype(int).astype(str),
            "score": items["value"].astype(float),
        }
    )


def scores_as_items(scores: pd.DataFrame) -> pd.DataFrame:
    """Inverse of items_as_scores (slots without an epoch suffix are ignored)."""
    slot = scores["slot"].astype(str)
    keep = slot.str.contains(SEP, regex=False)
    name_epoch = slot[keep].str.rsplit(SEP, n=1, expand=True)
    out = pd.DataFrame(
        {
            "epoch": name_epoch[1].astype(int).to_numpy(),
            "item_id": scores.loc[keep, "item_id"].astype(str).to_numpy(),
            "name": name_epoch[0].to_numpy(),
            "value": scores.loc[keep, "score"].astype(float).to_numpy(),
        }
    )
    return out.sort_values(["epoch", "item_id", "name"], ignore_index=True)


def run_summary(rows: pd.DataFrame, note: str, checkpoint: str | None) -> dict[str, Any]:
    """The run's summary: final paired accuracy (the leaderboard's headline), epoch 0 beside
    it, cosine drift, time per epoch, and every epoch's metrics."""
    summary: dict[str, Any] = {
        "metric": "paired_accuracy",
        "note": note,
        "checkpoint": checkpoint,
        "epochs_done": 0,
        EPOCH_KEY: [],
    }
    if rows.empty:
        summary["paired_accuracy"] = None
        return summary
    rows = rows.sort_values("epoch")
    first, last = rows.iloc[0], rows.iloc[-1]
    trained = rows[rows["epoch"] > 0]

    def num(x):  # sentence data has no paired accuracy (None/NaN)
        return None if x is None or pd.isna(x) else float(x)

    summary.update(
        paired_accuracy=num(last["paired_accuracy"]),
        ci95=[num(last["ci_low"]), num(last["ci_high"])],
        n=int(last["n"]),
        epochs_done=int(last["epoch"]),
        epoch0_paired_accuracy=num(first["paired_accuracy"]),
        epoch0_ci95=[num(first["ci_low"]), num(first["ci_high"])],
        cos_mean_epoch0=float(first["cos_mean"]),
        cos_std_epoch0=float(first["cos_std"]),
        cos_mean_final=float(last["cos_mean"]),
        cos_std_final=float(last["cos_std"]),
        train_seconds_per_epoch=float(trained["train_seconds"].mean()) if len(trained) else None,
        eval_seconds_per_epoch=float(rows["eval_seconds"].mean()),
    )
    if "demetr_ratio" in rows.columns:  # sentence data: the DEMETR negation ratio before and after
        summary.update(
            metric="demetr_ratio",
            demetr_ratio_epoch0=num(first["demetr_ratio"]),
            demetr_ratio=num(last["demetr_ratio"]),
        )
    summary[EPOCH_KEY] = [plain(r) for r in rows.to_dict(orient="records")]
    return summary


# ---------------------------------------------------------------- reading
def epochs(store, run_id: str) -> pd.DataFrame:
    """One row per measured epoch (epoch, paired_accuracy, ci_low, ci_high, cos_mean, cos_std, ...)."""
    frame = store.epochs(run_id)
    if frame.empty:
        stored = store.get_run(run_id).summary.get(EPOCH_KEY) or []
        frame = pd.DataFrame(stored)
    if frame.empty:
        return pd.DataFrame(columns=["epoch", "paired_accuracy", "ci_low", "ci_high", "cos_mean", "cos_std"])
    frame = frame.drop(columns=[c for c in ("created_at",) if c in frame.columns])
    frame["epoch"] = frame["epoch"].astype(int)
    return frame.sort_values("epoch", ignore_index=True)


def items(store, run_id: str, epoch: int | None = None) -> pd.DataFrame:
    """Per-pair measurements (epoch, item_id, name, value) of one epoch or all."""
    frame = store.epoch_items(run_id, epoch)
    if frame.empty:
        frame = scores_as_items(store.scores(run_id))
        if epoch is not None:
            frame = frame[frame["epoch"] == int(epoch)].reset_index(drop=True)
    return frame


def items_wide(items_frame: pd.DataFrame) -> pd.DataFrame:
    """One row per (epoch, item_id), one column per measurement."""
    if items_frame.empty:
        return pd.DataFrame(columns=["epoch", "item_id"])
    wide = items_frame.pivot_table(index=["epoch", "item_id"], columns="name", values="value", aggfunc="first")
    wide.columns.name = None
    return wide.reset_index()


def training_run_label(run: Any) -> str:
    """A run in words, e.g. "all-MiniLM-L6-v2 · bi-encoder · 4 epochs · NevIR · 2 Dec 2026, 14:03":
    the model (a local folder by its last part), its family, its epochs, the dataset it is
    measured on (its short title) and when it was stored; short enough to stay on one
    line of a figure's notes. Two runs alike to the minute are told apart by finetune_runs
    (negviz.results.dataset_view)."""
    opts = (getattr(run, "options", None) or {}).get("finetune", {})
    name = run.model_name
    if name.startswith(("/", ".", "~")):  # a local folder: its last part
        name = name.rstrip("/").rsplit("/", 1)[-1]
    epochs = opts.get("epochs")
    parts = [name, run.family, f"{epochs} epoch{'s' if epochs != 1 else ''}" if epochs else None]
    held = (getattr(run, "dataset_spec", None) or {}).get("name")
    if held:
        parts.append(short_title(held))
    if getattr(run, "created_at", None) is not None:
        parts.append(times.readable(run.created_at))
    return " · ".join(str(p) for p in parts if p)


def run_note(run: Any) -> str:
    """The data line every figure carries, with the run's hyper-parameters."""
    opts = getattr(run, "options", None) or {}
    ft = opts.get("finetune", {})
    return f"{readable_note(opts.get('note', ''))}; lr {ft.get('lr')}, batch {ft.get('batch_size')}, seed {ft.get('seed')}, {run.device}"
