"""Per-epoch measurements on the held-out pairs, through the library's own scorers.

Each epoch's checkpoint is loaded exactly as ``negviz eval --model DIR`` would load it (the
same family, options and scoring path), so an epoch's paired accuracy is what any page would
report for that checkpoint. On top of the NevIR summary: cos(E(d1), E(d2)) per pair (for a
late-interaction model, E(d) is the mean of the token vectors that take part in MaxSim), and
optionally ExcluIR Right Rank as a transfer check.
"""

from __future__ import annotations

import time
from typing import Any, Callable

import numpy as np
import pandas as pd

from negviz.core import metrics
from negviz.core.kinds import EXCLUSION_KIND, NEGATION_PERTURBATION, PAIRS_KIND, PERTURBATION_KIND
from negviz.core.schema import DatasetSpec, ModelSpec
from negviz.evaluation.item_scoring import score_dataset, wide_scores
from negviz.scorers.base import Progress, no_progress

PAIR_SLOTS = tuple(PAIRS_KIND.slots)  # q1_d1, q1_d2, q2_d1, q2_d2
ITEM_NAMES = (*PAIR_SLOTS, "cos", "margin1", "margin2", "correct")
COSINE_DEFINITIONS = {
    "bi-encoder": "cos(E(d1), E(d2)) of the sentence embeddings",
    "maxsim": "cos of the mean MaxSim token vectors of d1 and d2",
}


def load_eval_scorer(path: str, family: str, options: dict[str, Any], device: str, cache=None, batch_size=None):
    from negviz.evaluation.catalog import load_scorer

    return load_scorer(ModelSpec.make(str(path), family, **options), device=device, cache=cache, batch_size=batch_size)


def pair_cosines(scorer, d1: list[str], d2: list[str], progress: Progress = no_progress) -> np.ndarray:
    """cos(E(d1_i), E(d2_i)) per pair."""
    if hasattr(scorer, "embed"):
        vecs = scorer.embed(list(d1) + list(d2), "document", progress)
        a, b = vecs[: len(d1)], vecs[len(d1) :]
    else:  # late interaction: the mean of the token vectors that take part in MaxSim
        toks = scorer.token_embeddings(list(d1) + list(d2), "document", progress)
        pooled = np.stack([t.vectors[t.mask].mean(axis=0) for t in toks])
        a, b = pooled[: len(d1)], pooled[len(d1) :]
    a, b = a.astype(np.float64), b.astype(np.float64)
    a /= np.maximum(np.linalg.norm(a, axis=1, keepdims=True), 1e-12)
    b /= np.maximum(np.linalg.norm(b, axis=1, keepdims=True), 1e-12)
    return np.clip(np.einsum("ij,ij->i", a, b), -1.0, 1.0)  # rounding can put near-identical pairs at 1 + 1e-16


SENTENCE_ITEM_NAMES = ("cos", "cos_positive")


def demetr_sample(n: int) -> pd.DataFrame | None:
    """The fixed DEMETR sample measured per epoch: the first ``n`` negation items."""
    if not n:
        return None
    from negviz.datasets import load

    return load(DatasetSpec.make("demetr", limit=int(n), perturbations=NEGATION_PERTURBATION)).frame


# Triplet columns as the exclusion kind's (query, document to retrieve, excluded document).
_EXCLUSION_COLUMNS = {"item_id": "query_id", "anchor": "query", "positive": "pos_doc", "negative": "neg_doc"}


def right_rank(scorer, frame: pd.DataFrame, progress=no_progress) -> dict[str, Any]:
    """ExcluIR Right Rank (with its CI and n) of exclusion rows (query_id, query, pos_doc,
    neg_doc) through the scorer's own exclusion path, as `negviz eval --dataset excluir` scores."""
    ex = score_dataset(EXCLUSION_KIND, frame, scorer, progress).pivot(index="item_id", columns="slot", values="score")
    rr = metrics.right_rank_summary(ex["pos"], ex["neg"])
    return {
        "right_rank": rr["right_rank"],
        "right_rank_ci_low": rr["ci95"][0],
        "right_rank_ci_high": rr["ci95"][1],
        "right_rank_n": rr["n"],
    }


def measure_sentences(
    scorer,
    heldout: pd.DataFrame,
    demetr: pd.DataFrame | None = None,
    progress: Callable[[int, int, str], None] = no_progress,
) -> tuple[dict[str, Any], pd.DataFrame]:
    """Sentence data (triplets): cos(E(anchor), E(negative)) per held-out item (for CANNOT the
    sentence and its negation; lower is more negation-aware), the share of triplets whose
    positive is closer than the negative, and the DEMETR negation sensitivity ratio on a fixed
    sample (metrics.demetr_summary over the ``demetr`` scorer path)."""
    start = time.perf_counter()
    cos = pair_cosines(scorer, heldout["anchor"].tolist(), heldout["negative"].tolist(), progress)
    self_positive = bool((heldout["anchor"] == heldout["positive"]).all())
    cos_pos = (
        np.ones(len(cos))
        if self_positive
        else pair_cosines(scorer, heldout["anchor"].tolist(), heldout["positive"].tolist(), progress)
    )
    nan = float("nan")
    out: dict[str, Any] = {
        "paired_accuracy": nan,
        "ci_low": nan,
        "ci_high": nan,
        "n": len(heldout),
        # With the sentence itself as positive (CANNOT) the share says nothing: left out.
        "triplet_accuracy": float(np.mean(cos_pos > cos)) if len(cos) and not self_positive else nan,
        "cos_mean": float(cos.mean()),
        "cos_std": float(cos.std(ddof=0)),
        "cos_median": float(np.median(cos)),
        "cos_q05": float(np.quantile(cos, 0.05)),
        "cos_q95": float(np.quantile(cos, 0.95)),
    }
    if not self_positive:  # query/document/excluded-document triplets (ExcluIR): its Right Rank too
        out.update(right_rank(scorer, heldout.rename(columns=_EXCLUSION_COLUMNS), progress))
    if demetr is not None and len(demetr):
        wide = wide_scores(PERTURBATION_KIND, demetr, score_dataset(PERTURBATION_KIND, demetr, scorer, progress))
        d = metrics.demetr_summary(wide["candidate"], wide["perturbed"], wide["empty"], demetr["checked"])
        out.update(
            demetr_ratio=d["sensitivity_ratio"],
            demetr_ratio_ci_low=d["ratio_ci95"][0],
            demetr_ratio_ci_high=d["ratio_ci95"][1],
            demetr_detection=d["detection_accuracy"],
            demetr_n=d["n"],
        )
    out["eval_seconds"] = time.perf_counter() - start
    ids = heldout["item_id"].astype(str).to_numpy()
    items = pd.DataFrame(
        {
            "item_id": np.tile(ids, 2),
            "name": np.repeat(SENTENCE_ITEM_NAMES, len(ids)),
            "value": np.concatenate([cos, cos_pos]).astype(np.float64),
        }
    )
    return out, items


def measure(
    scorer,
    heldout: pd.DataFrame,
    transfer: pd.DataFrame | None = None,
    progress: Callable[[int, int, str], None] = no_progress,
) -> tuple[dict[str, Any], pd.DataFrame]:
    """(epoch metrics, per-pair items as (item_id, name, value)) for one checkpoint."""
    start = time.perf_counter()
    scores = score_dataset(PAIRS_KIND, heldout, scorer, progress)
    wide = wide_scores(PAIRS_KIND, heldout, scores)
    s = [wide[slot].to_numpy() for slot in PAIR_SLOTS]
    summary = metrics.pairs_summary(*s)
    verdicts = metrics.pair_verdicts(*s)
    cos = pair_cosines(scorer, heldout["d1"].tolist(), heldout["d2"].tolist(), progress)
    margins = np.concatenate([verdicts["margin1"], verdicts["margin2"]])
    out: dict[str, Any] = {
        "paired_accuracy": summary["paired_accuracy"],
        "ci_low": summary["ci95"][0],
        "ci_high": summary["ci95"][1],
        "n": summary["n"],
        "per_query_accuracy": summary["per_query_accuracy"],
        "mean_margin": float(margins.mean()) if len(margins) else float("nan"),
        "mean_margin_q1": summary["mean_margin_q1"],
        "mean_margin_q2": summary["mean_margin_q2"],
        "pairs_with_tie": summary["ties"]["pairs_with_tie"],
        "cos_mean": float(cos.mean()),
        "cos_std": float(cos.std(ddof=0)),
        "cos_median": float(np.median(cos)),
        "cos_q05": float(np.quantile(cos, 0.05)),
        "cos_q95": float(np.quantile(cos, 0.95)),
    }
    if transfer is not None and len(transfer):
        out.update(right_rank(scorer, transfer, progress))
    out["eval_seconds"] = time.perf_counter() - start
    values = {
        **dict(zip(PAIR_SLOTS, s)),
        "cos": cos,
        "margin1": verdicts["margin1"].to_numpy(),
        "margin2": verdicts["margin2"].to_numpy(),
        "correct": verdicts["correct"].to_numpy().astype(float),
    }
    ids = wide["item_id"].astype(str).to_numpy()
    items = pd.DataFrame(
        {
            "item_id": np.tile(ids, len(ITEM_NAMES)),
            "name": np.repeat(ITEM_NAMES, len(ids)),
            "value": np.concatenate([np.asarray(values[n], dtype=np.float64) for n in ITEM_NAMES]),
        }
    )
    return out, items
