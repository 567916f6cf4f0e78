"""Cue influence over a dataset: every item's token attributions (negviz.analyses.attribution)
reduced to the cue's share, stored as a run of kind "attribution" so that it is computed once
and shared through the store, like an evaluation.

    result = negviz.results.explain.run_cue_influence("all-MiniLM-L6-v2", "nevir", store=store)  # stores it
    frame = influence_frame(ds.kind, store.scores_wide(result.record.run_id))
    by_group(frame, "category"); by_group(with_types(frame, types), "type")

A run's scores hold, per item, the slot scores the verdict rests on (``q1_d1``, ... as in an
evaluation, so negviz.core.outcomes gives the verdict under the one rule) and per comparison
(``margin1``, ``margin2``) ``<comparison>:cue_share``, ``:cue_attribution`` (signed, score units),
``:absolute`` (sum of |attribution| over all words) and, for integrated gradients, ``:gap``
(sum of attributions minus F(x) - F(x')).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from negviz.analyses import attribution as A
from negviz.core import metrics, outcomes
from negviz.core.kinds import DatasetKind
from negviz.scorers.base import Progress, no_progress

ANALYSIS = "cue influence"  # options["analysis"]; runs of kind "attribution" also hold layer curves
METHODS, GRADIENT_METHODS = A.METHODS, A.GRADIENT_METHODS  # declared once, in negviz.analyses.attribution
QUANTITIES = ("cue_share", "cue_attribution", "absolute", "gap")
ITEMS_PER_CALL = 8  # occlusion: the variants of this many items go to the scorer together
# The page's one unit for the cue's share, in its table, its bin list and its figure.
UNIT = "% of |attribution|"
SHARE = f"cue share ({UNIT})"
NET = f"cue's net push ({UNIT})"  # signed: + towards the right document
# by_group's proportion columns -> their headers in percent (the stored summary keeps fractions)
PERCENT_HEADERS = {
    "median cue share": f"median cue share ({UNIT})",
    "ci_low": "95% CI low (%)",
    "ci_high": "95% CI high (%)",
    "mean cue share": f"mean cue share ({UNIT})",
    "cue under 5%": "comparisons with the cue under 5% (% of comparisons)",
}
# Families with no learned weights to attribute: why they have no cue-influence run.
NO_ATTRIBUTION = {
    "bm25": "no learned weights: a word's pull is its BM25 term weight (IDF x saturated frequency); "
    "the Error preference page's lexical confound shows where BM25 leans",
    "tfidf": "no learned weights: a word's pull is its TF-IDF term weight; the Error preference page's "
    "lexical confound shows where the word overlap leans",
}
# Shipped models without a shipped run, and why (measured on the 2-core CPU that made the runs):
# occlusion re-scores a NevIR pair about 600 times (300 distinct texts), once per word left out.
# A run over more than about 15 minutes on that CPU is not shipped; its estimate is the reason.
NOT_EXPLAINED = {
    "smollm2-135m": "too slow to ship: occlusion re-scores about 600 prompts per NevIR pair, at 4.9 s a "
    "prompt on a CPU (its shipped run) about 49 min a pair; no gradients through llama.cpp",
    "maxsim-all-mpnet-base-v2": "too slow to ship: occlusion encodes about 300 texts per NevIR pair, at "
    "0.26 s a text on a CPU (its shipped run) about 78 s a pair, 26 min for the first 20; MaxSim has "
    "no gradient method here",
    "minilm-excluir-split": "its weights are not shipped: a checkpoint fine-tuned on a lent GPU "
    "(`negviz finetune --train excluir-split`, 88 MB); attributions need the model itself",
    "ms-marco-MiniLM-L-12-v2-int8": "too slow to ship: INT8 ONNX has no gradients, and occlusion scores "
    "about 600 (query, document) pairs per NevIR pair, about 65 s a pair on a CPU, 22 min for the first 20",
}


def check_method(method: str) -> None:
    if method not in METHODS:
        raise ValueError(f"unknown attribution method {method!r}; use one of {', '.join(METHODS)}")


def attribute_items(
    scorer,
    kind: DatasetKind,
    frame: pd.DataFrame,
    method: str,
    steps: int | None = None,
    progress: Progress = no_progress,
) -> pd.DataFrame:
    """Long scores (item_id, slot, score) of every item: the quantities of each comparison."""

    check_method(method)
    if method in GRADIENT_METHODS and not A.supports_gradients(scorer):
        raise ValueError(
            f"{scorer.name!r} ({scorer.family}) has no PyTorch encoder to take gradients of; "
            "use --method occlusion, which works for every model"
        )
    ids = kind.item_ids(frame).tolist()
    rows: list[tuple[str, str, float]] = []
    records = frame.to_dict("records")
    # Items of similar length share a chunk: a padded batch then wastes little on short texts.
    order = sorted(range(len(records)), key=lambda i: -sum(len(str(v)) for v in records[i].values()))
    ids, records = [ids[i] for i in order], [records[i] for i in order]
    for start in range(0, len(records), ITEMS_PER_CALL):
        chunk = list(zip(ids[start : start + ITEMS_PER_CALL], records[start : start + ITEMS_PER_CALL]))
        plans = [(item_id, c) for item_id, row in chunk for c in A.contrasts(kind, row)]
        if method == "occlusion":
            done = A.occlusion_many(scorer, [c for _, c in plans])
        elif method == "gradient-x-input":  # the chunk's comparisons in one batched pass
            done = A.gradient_x_input_many(scorer, [c for _, c in plans])
        else:
            done = [A.integrated_gradients(scorer, c, steps) for _, c in plans]
        for (item_id, contrast), att in zip(plans, done):
            t = att.tokens
            values = {
                "cue_share": att.cue_share,
                "cue_attribution": float(t.loc[t["is_cue"], "attribution"].sum()),
                "absolute": float(t["attribution"].abs().sum()),
            }
            if "gap" in att.completeness:
                values["gap"] = float(att.completeness["gap"])
            # a share with nothing to share (no word moved the score) is left out: NaN is not stored
            rows += [(item_id, f"{contrast.name}:{q}", v) for q, v in values.items() if np.isfinite(v)]
        progress(min(start + ITEMS_PER_CALL, len(records)), len(records), f"attributing ({method})")
    return pd.DataFrame(rows, columns=["item_id", "slot", "score"])


def influence_frame(kind: DatasetKind, wide: pd.DataFrame) -> pd.DataFrame:
    """One row per item and comparison of a stored attribution run (``Store.scores_wide``): the
    item's verdict (negviz.core.outcomes) and the comparison's quantities."""
    slots = list(kind.slots)
    verdicts = outcomes.item_outcomes(kind, wide[slots]) if set(slots) <= set(wide.columns) else None
    parts = []
    for name in ("margin1", "margin2")[: len(kind.margin_slots)]:
        cols = {f"{name}:{q}": q for q in QUANTITIES if f"{name}:{q}" in wide.columns}
        wanted = [q for q in QUANTITIES if q != "gap" or q in cols.values()]  # a share may be missing: NaN
        part = wide[list(cols)].rename(columns=cols).reindex(columns=wanted)
        part = part.reset_index(names="item_id").assign(comparison=name)
        if verdicts is not None:
            v = verdicts.set_index("item_id")
            part["category"] = part["item_id"].map(v["category"])
            part["correct"] = part["item_id"].map(v["correct"])
            part["margin"] = part["item_id"].map(v[name])
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def run_label(model: str, method: str, n: int) -> str:
    """How the page names a cue-influence run: model · attribution method · pairs."""
    return f"{model} · {method} · n={n}"


def opening_runs(runs: pd.DataFrame, n_items: int) -> list[str]:
    """The runs the page opens on: its best evidence, in one attribution method. The runs over all
    ``n_items`` pairs (else the largest), of the method most of them use, largest first; samples of
    20 or 5 pairs only when nothing larger is stored. ``runs``: rows with label, n and options."""
    if runs.empty:
        return []
    method = runs["options"].map(lambda o: (o or {}).get("method"))
    full = runs["n"] >= min(n_items, int(runs["n"].max()))
    common = method[full].mode().iloc[0]
    chosen = runs[full & (method == common)]
    return chosen.sort_values(["n", "label"], ascending=[False, True], kind="stable")["label"].tolist()


def labelled_frame(kind: DatasetKind, runs: dict[str, pd.DataFrame], types: pd.DataFrame | None) -> pd.DataFrame:
    """influence_frame of several stored runs (label -> Store.scores_wide), stacked with ``label``
    and each item's negation type."""
    parts = [influence_frame(kind, wide).assign(label=label) for label, wide in runs.items()]
    return with_types(pd.concat(parts, ignore_index=True), types)


def with_types(frame: pd.DataFrame, types: pd.DataFrame | None) -> pd.DataFrame:
    """``frame`` with each item's negation type (``types``: item_id, type), "unknown" where none."""
    if types is None:
        return frame.assign(type="unknown")
    return frame.merge(types[["item_id", "type"]], on="item_id", how="left").fillna({"type": "unknown"})


def group_table(frame: pd.DataFrame, group: str) -> pd.DataFrame:
    """by_group per run label (``labelled_frame``): one row per run and group."""
    parts = [by_group(part, group).assign(run=label) for label, part in frame.groupby("label", sort=False)]
    out = pd.concat(parts, ignore_index=True)
    return out[["run", *[c for c in out.columns if c != "run"]]]


def by_group(frame: pd.DataFrame, column: str) -> pd.DataFrame:
    """The cue's share per group (verdict category or negation type): n, median with a bootstrap
    95% CI, mean, and the share of comparisons where the cue carries under 5% of the attribution."""
    rows = []
    frame = frame.dropna(subset=["cue_share"])
    if column == "category":  # success first, then the failure categories in outcomes' order
        order = {c: i for kind in outcomes.CATEGORIES.values() for i, c in enumerate(kind)}
        frame = frame.sort_values(column, key=lambda s: s.map(order).fillna(len(order)), kind="stable")
    for key, part in frame.groupby(column, sort=False):
        share = part["cue_share"].to_numpy(dtype=np.float64)
        low, high = metrics.bootstrap_ci(share, statistic=np.median)
        rows.append(
            {
                column: key,
                "comparisons": len(share),
                "median cue share": float(np.median(share)),
                "ci_low": low,
                "ci_high": high,
                "mean cue share": float(share.mean()),
                "cue under 5%": float((share < 0.05).mean()),
            }
        )
    return pd.DataFrame(
        rows, columns=[column, "comparisons", "median cue share", "ci_low", "ci_high", "mean cue share", "cue under 5%"]
    )


def summarize(
    kind: DatasetKind, scores: pd.DataFrame, method: str, steps: int | None, types: pd.DataFrame | None
) -> dict:
    wide = scores.pivot(index="item_id", columns="slot", values="score")
    frame = influence_frame(kind, wide)
    share = frame["cue_share"].dropna()
    summary: dict[str, Any] = {
        "metric": "median_cue_share",
        "method": method,
        "n": int(wide.shape[0]),
        "n_comparisons": int(len(frame)),
        "median_cue_share": float(share.median()) if len(share) else float("nan"),
        "ci95": list(metrics.bootstrap_ci(share.to_numpy(), statistic=np.median)) if len(share) else [None, None],
        "no_attribution": int(frame["cue_share"].isna().sum()),  # nothing moved the score
    }
    if steps:
        summary["steps"] = int(steps)
    if "gap" in frame:
        rel = (frame["gap"].abs() / frame["absolute"].replace(0, np.nan)).dropna()
        summary["completeness_gap_median_abs"] = float(frame["gap"].abs().median())
        summary["completeness_gap_relative_p95"] = float(rel.quantile(0.95)) if len(rel) else None
    if "category" in frame:
        summary["by_verdict"] = by_group(frame, "category").to_dict("records")
    if types is not None and len(types):
        summary["by_type"] = by_group(with_types(frame, types), "type").to_dict("records")
    return summary


# ---------------------------------------------------------------- in the page's unit
def as_percent(share):
    """A share (0 to 1; a number, array or Series) in percent: the one conversion to UNIT."""
    return share * 100.0


def in_percent(table: pd.DataFrame) -> pd.DataFrame:
    """A by_group / group_table frame with its proportions in percent, under headers that say so."""
    out = table.copy()
    for column in PERCENT_HEADERS:
        if column in out:
            out[column] = as_percent(out[column])
    return out.rename(columns=PERCENT_HEADERS)


def bin_items(frame: pd.DataFrame) -> pd.DataFrame:
    """The comparisons of one bin (rows of ``labelled_frame``) in percent of their |attribution|:
    the cue's share and its signed sum (+: towards the right document), lowest share first; rows
    where no word moved the score (no share) are left out."""
    part = frame.dropna(subset=["cue_share"])
    mass = part["absolute"].where(part["absolute"] > 0)
    out = pd.DataFrame(
        {
            "item_id": part["item_id"],
            "comparison": part["comparison"],
            SHARE: as_percent(part["cue_share"]),
            NET: as_percent(part["cue_attribution"] / mass),
        }
    )
    for column in ("category", "type"):
        if column in part:
            out[column] = part[column]
    return out.sort_values(SHARE, kind="stable").reset_index(drop=True)


# ---------------------------------------------------------------- which models have a run
FASTEST = "gradient-x-input"  # one batched pass (PyTorch encoders): the method a first run is told to use


def explain_command(model: str, dataset: str, method: str = FASTEST, limit: int | None = None) -> str:
    """The `negviz explain` command that stores ``model``'s cue-influence run on ``dataset``: the
    one hint the Why page, its coverage table and the report give."""
    command = f"negviz explain --model {model} --dataset {dataset} --method {method}"
    return f"{command} --limit {limit}" if limit else command


COVERAGE_COLUMNS = ("model", "family", "method", "items", f"median cue share ({UNIT})", "why not")


def coverage(
    models: pd.DataFrame, runs: pd.DataFrame, dataset: str, total: int, reasons: dict[str, str] | None = None
) -> pd.DataFrame:
    """One row per cue-influence run of a model and one per model without any, with the reason.

    ``models``: model_name, family (the models evaluated on the dataset); ``runs``: the dataset's
    cue-influence runs (Store.runs rows: model_name, family, n, options, dataset_spec, summary);
    ``total``: the dataset's items; ``reasons``: model name -> why it has no run, beside
    NOT_EXPLAINED's; families without learned weights have NO_ATTRIBUTION's."""
    reasons = {**NOT_EXPLAINED, **(reasons or {})}
    rows = []
    for r in runs.itertuples():
        limit = (r.dataset_spec or {}).get("limit")
        items = f"first {r.n:,} of {total:,}" if limit and r.n < total else f"all {r.n:,}"
        median = (r.summary or {}).get("median_cue_share")
        rows.append((r.model_name, r.family, (r.options or {}).get("method", "?"), items, _percent(median), ""))
    have = set(runs["model_name"]) if len(runs) else set()
    missing = models[~models["model_name"].isin(have)].drop_duplicates("model_name")
    for r in missing.itertuples():
        why = (
            reasons.get(r.model_name)
            or NO_ATTRIBUTION.get(r.family)
            or (
                f"no run on this dataset yet: `{explain_command(r.model_name, dataset, A.OCCLUSION, 100)}` "
                "(occlusion works for every model)"
            )
        )
        rows.append((r.model_name, r.family, "", "", float("nan"), why))
    out = pd.DataFrame(rows, columns=list(COVERAGE_COLUMNS))
    return out.sort_values(["model", "method"], key=lambda s: s.str.lower(), kind="stable").reset_index(drop=True)


def without_run_line(table: pd.DataFrame) -> str:
    """One line naming the models of a coverage table that have no run, grouped by the short
    reason (a reason's words before its first colon): "No cue-influence run: bm25, tfidf (no
    learned weights); ...". Empty when every model has a run."""
    missing = table[table["why not"].fillna("").str.len() > 0]
    if missing.empty:
        return ""
    groups: dict[str, list[str]] = {}
    for model, why in zip(missing["model"], missing["why not"]):
        groups.setdefault(why.split(":")[0].strip(), []).append(model)
    parts = [f"{', '.join(models)} ({reason})" for reason, models in groups.items()]
    return "No cue-influence run: " + "; ".join(parts) + ". Each one's reason, with its cost, is below."


def _percent(value) -> float:
    return as_percent(float(value)) if value is not None and np.isfinite(value) else float("nan")
