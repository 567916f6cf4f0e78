"""Tables the drift page shows, from stored runs (pure pandas; no streamlit, no torch)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from negviz.core.kinds import EXCLUSION, PAIRS, SENTENCE_PAIRS
from negviz.finetune import history


@dataclass(frozen=True)
class Measure:
    """What a run measured on its held-out data each epoch, and how the drift page draws it."""

    column: str  # the epochs frame's column
    ci_low: str
    ci_high: str
    label: str  # axis title
    percent: bool  # drawn as a percentage
    cosine: str  # what the held-out cosine is between
    title: str  # the drift figure's title


PAIRED = Measure(
    "paired_accuracy",
    "ci_low",
    "ci_high",
    "held-out paired accuracy (%)",
    True,
    "cos(E(d1), E(d2)) of a held-out pair",
    "Pair cosine and paired accuracy across fine-tuning",
)
DEMETR = Measure(
    "demetr_ratio",
    "demetr_ratio_ci_low",
    "demetr_ratio_ci_high",
    "DEMETR negation sensitivity ratio (fixed sample)",
    False,
    "cos(E(sentence), E(its negation)) of a held-out sentence",
    "Sentence/negation cosine and DEMETR negation sensitivity across fine-tuning",
)


def measure(epochs: pd.DataFrame) -> Measure:
    """NevIR-pair runs measure paired accuracy; sentence/negation and triplet runs (CANNOT, triplet
    files) have none, and measure the DEMETR negation sensitivity ratio on a fixed sample."""
    has = lambda col: col in epochs.columns and epochs[col].notna().any()  # noqa: E731
    return DEMETR if not has(PAIRED.column) and has(DEMETR.column) else PAIRED


EPOCH_COLUMNS = (
    "run",
    "epoch",
    "paired_accuracy",
    "ci_low",
    "ci_high",
    "n",
    "cos_mean",
    "cos_std",
    "cos_median",
    "mean_margin",
    "per_query_accuracy",
    "train_loss",
    "train_seconds",
    "eval_seconds",
    "right_rank",
)


def drift_frames(store, runs: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, pd.DataFrame]]:
    """For the runs (rows of finetune_runs, with ``label``): epoch metrics with a ``run`` column,
    pair cosines (run, epoch, item_id, cos), and each run's per-pair table (items_wide)."""
    return combined_frames([run_frames(store, run.run_id, run.label) for run in runs.itertuples(index=False)])


RunFrames = tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame] | None


def run_frames(store, run_id: str, label: str) -> RunFrames:
    """One run's (epochs, cosines, per-pair table), labelled ``label``; None before its first epoch."""
    ep = history.epochs(store, run_id)
    if ep.empty:
        return None
    w = history.items_wide(history.items(store, run_id))
    return ep.assign(run=label), w[["epoch", "item_id", "cos"]].assign(run=label), w


def combined_frames(parts: list[RunFrames]) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, pd.DataFrame]]:
    """drift_frames' three results from each run's run_frames, in order."""
    parts = [p for p in parts if p is not None]
    epochs, cosines = [p[0] for p in parts], [p[1] for p in parts]
    wide = {str(p[0]["run"].iloc[0]): p[2] for p in parts}
    ep = pd.concat(epochs, ignore_index=True) if epochs else pd.DataFrame(columns=list(EPOCH_COLUMNS))
    ep = ep[[c for c in EPOCH_COLUMNS if c in ep.columns] + [c for c in ep.columns if c not in EPOCH_COLUMNS]]
    cos = pd.concat(cosines, ignore_index=True) if cosines else pd.DataFrame(columns=["run", "epoch", "item_id", "cos"])
    return ep, cos[["run", "epoch", "item_id", "cos"]], wide


def comparison(runs: pd.DataFrame, epochs: pd.DataFrame) -> pd.DataFrame:
    """One row per run: epoch 0 against the last measured epoch, and time per epoch."""
    rows = []
    for run in runs.itertuples(index=False):
        ep = epochs[epochs["run"] == run.label].sort_values("epoch")
        if ep.empty:
            continue
        first, last = ep.iloc[0], ep.iloc[-1]
        trained = ep[ep["epoch"] > 0]
        m = measure(ep)
        shown = (lambda v: f"{v:.1%}") if m.percent else (lambda v: f"{v:.3f}")
        rows.append(
            {
                "run": run.label,
                "status": run.status,
                "epochs": int(last["epoch"]),
                "n_heldout": int(last["n"]),
                "held-out measure": m.label,
                "acc_epoch0": first["paired_accuracy"],
                "acc_final": last["paired_accuracy"],
                "final_ci": f"{shown(last[m.ci_low])}-{shown(last[m.ci_high])}" if pd.notna(last[m.ci_low]) else "",
                **(
                    {"demetr_ratio_epoch0": first["demetr_ratio"], "demetr_ratio_final": last["demetr_ratio"]}
                    if m is DEMETR
                    else {}
                ),
                "cos_mean_epoch0": first["cos_mean"],
                "cos_mean_final": last["cos_mean"],
                "cos_std_epoch0": first["cos_std"],
                "cos_std_final": last["cos_std"],
                "train_s_per_epoch": trained["train_seconds"].mean() if len(trained) else None,
                "eval_s_per_epoch": ep["eval_seconds"].mean(),
                "device": run.device,
                **(
                    {"right_rank_epoch0": first["right_rank"], "right_rank_final": last["right_rank"]}
                    if "right_rank" in ep.columns and ep["right_rank"].notna().all()
                    else {}
                ),
                **(
                    {"general_r10_epoch0": first[GENERAL], "general_r10_final": last[GENERAL]}
                    if has_general(ep)
                    else {}
                ),
            }
        )
    return pd.DataFrame(rows)


GENERAL = "general_recall10"  # negviz.finetune.general: retrieval without negation


def has_general(epochs: pd.DataFrame) -> bool:
    return GENERAL in epochs.columns and epochs[GENERAL].notna().any()


def tradeoff(epochs: pd.DataFrame) -> pd.DataFrame:
    """Per run and epoch: the negation measure and the retrieval figure without negation, each
    with its change since epoch 0 (gain on negation against loss elsewhere)."""
    rows = []
    for run, ep in epochs.groupby("run", sort=False):
        if not has_general(ep):
            continue
        ep = ep.sort_values("epoch")
        m = measure(ep)
        first = ep.iloc[0]
        for r in ep.itertuples(index=False):
            neg, gen = getattr(r, m.column), getattr(r, GENERAL)
            rows.append(
                {
                    "run": run,
                    "epoch": int(r.epoch),
                    "negation measure": m.label,
                    "negation": neg,
                    "negation_change": neg - first[m.column],
                    "general_recall10": gen,
                    "general_ci_low": getattr(r, "general_recall10_ci_low"),
                    "general_ci_high": getattr(r, "general_recall10_ci_high"),
                    "general_change": gen - first[GENERAL],
                    "general_n": getattr(r, "general_n"),
                    "bm25_recall10": getattr(r, "general_bm25_recall10"),
                    "pool_ceiling": getattr(r, "general_pool_recall"),
                }
            )
    return pd.DataFrame(rows)


def pair_order(wide: pd.DataFrame) -> list[str]:
    """Held-out pair ids, most telling first: wrong before and right at the end, then by how far
    the pair's cosine fell."""
    if wide.empty:
        return []
    first = wide[wide["epoch"] == wide["epoch"].min()].set_index("item_id")
    last = wide[wide["epoch"] == wide["epoch"].max()].set_index("item_id")
    if "correct" not in wide.columns:  # sentence/negation items: by how far the cosine fell
        first = first.assign(correct=1.0)
        last = last.assign(correct=1.0)
    flipped = (first["correct"] < 0.5) & (last.reindex(first.index)["correct"] > 0.5)
    drop = first["cos"] - last.reindex(first.index)["cos"]
    order = pd.DataFrame({"flipped": flipped, "drop": drop}).sort_values(["flipped", "drop"], ascending=False)
    return order.index.astype(str).tolist()


def _first(margin: float, own: str, other: str) -> str:
    return own if margin > 0 else other if margin < 0 else "tie"


def pair_card(wide: pd.DataFrame, pair_id: str, epoch: int) -> dict[str, Any]:
    """One pair at one epoch: the 2x2 score table, margins, verdict and cosine (with epoch 0's)."""
    rows = wide[wide["item_id"].astype(str) == str(pair_id)].set_index("epoch")
    if rows.empty or epoch not in rows.index:
        raise KeyError(f"pair {pair_id} has no measurement at epoch {epoch}")
    r, r0 = rows.loc[epoch], rows.loc[rows.index.min()]
    if "margin1" not in rows.columns:  # a sentence and its negation: the cosine is the measure
        return {
            "table": None,
            "correct": None,
            "correct_epoch0": None,
            "cos": float(r["cos"]),
            "cos_epoch0": float(r0["cos"]),
            "trajectory": rows.reset_index()[["epoch", "cos"]],
        }
    table = pd.DataFrame(
        {
            "query": ["q1", "q2"],
            "s(q, d1)": [r["q1_d1"], r["q2_d1"]],
            "s(q, d2)": [r["q1_d2"], r["q2_d2"]],
            "margin (own − other)": [r["margin1"], r["margin2"]],
            "ranked first": [_first(r["margin1"], "d1", "d2"), _first(r["margin2"], "d2", "d1")],
        }
    )
    return {
        "table": table,
        "correct": bool(r["correct"] > 0.5),
        "cos": float(r["cos"]),
        "cos_epoch0": float(r0["cos"]),
        "correct_epoch0": bool(r0["correct"] > 0.5),
        "trajectory": rows.reset_index()[["epoch", "margin1", "margin2", "cos", "correct"]],
    }


# What a held-out item of each training kind is called, and the cosine measured on it
# (negviz.finetune.measure: d1 with d2 of a pair; an anchor with its negative otherwise).
HELD_OUT = {
    PAIRS: ("pair", "cos(E(d1), E(d2))"),
    EXCLUSION: ("query", "cos(E(query), E(excluded document))"),
    SENTENCE_PAIRS: ("sentence", "cos(E(sentence), E(negation))"),
}
UNKNOWN_ITEM = ("held-out item", "cos(E(anchor), E(negative))")  # a triplet file no longer here


def held_out_item(dataset_spec: dict | None) -> tuple[str, str]:
    """(what a held-out item is called, the cosine measured on it) for a fine-tuning run's held-out
    dataset spec: a NevIR run's item is a pair, an ExcluIR run's a query with its documents."""
    from negviz.core.errors import NegvizError
    from negviz.datasets import facts

    try:
        return HELD_OUT.get(facts(str((dataset_spec or {}).get("name"))).kind.name, UNKNOWN_ITEM)
    except (NegvizError, OSError, KeyError, ValueError):
        return UNKNOWN_ITEM


def opening_runs(runs: pd.DataFrame) -> list[str]:
    """The run the drift page opens on: its best evidence. A complete run that measured held-out
    paired accuracy (NevIR pairs, what the page's text describes) with the largest rise over
    epoch 0; else the newest complete run; else the newest run. ``runs``: finetune_runs rows."""
    if runs.empty:
        return []
    complete = runs[runs["status"] == "complete"]
    measured = complete.assign(rise=[_accuracy_rise(s) for s in complete["summary"]]).dropna(subset=["rise"])
    if len(measured):
        return [measured.sort_values("rise", ascending=False, kind="stable")["label"].iloc[0]]
    return (complete if len(complete) else runs)["label"].head(1).tolist()


def _accuracy_rise(summary: dict | None) -> float | None:
    """Final held-out paired accuracy minus epoch 0's (None: the run measured none)."""
    final, first = (summary or {}).get("paired_accuracy"), (summary or {}).get("epoch0_paired_accuracy")
    return None if final is None or first is None else final - first
