"""ExcluIR's corpus metrics as pure functions of ranks (Zhang et al., Sec. 3; src/utils.py).

A rank is 1-based within a query's retrieved list; 0 means "not in the list". Every rate
below is a mean over queries, so each comes with n and a seeded bootstrap CI from
``negviz.core.metrics.bootstrap_ci`` (for the deltas: the bootstrap of the per-query differences,
whose mean is the difference of the two means).

- ``r{k}_pos`` / ``r{k}_neg``: share of queries whose d+ (d−) is within the top k (k = 1, 5, 10).
  With one relevant document per query this is ExcluIR's ``compute_recall``.
- ``mrr10_pos`` / ``mrr10_neg``: mean of 1/rank within the top 10, 0 outside (``compute_MRR``).
- ``delta_r1 = r1_pos - r1_neg``, ``delta_mrr10 = mrr10_pos - mrr10_neg`` (the paper's ΔR@1, ΔMRR).
- ``right_rank`` exactly as the published ``compute_right_rank`` scores the top-10 list
  (``index.search(q, 10)`` in bi_eval.py; the top 10 of the re-ranked list in cross_eval.py):
  both d+ and d− in the list -> right iff d+ is above d−; only d+ in the list -> right;
  only d− in the list -> wrong; **neither in the list -> wrong**, and the query still counts in
  the denominator. So RR over a corpus is not the pairwise RR of the 1,000-query sample:
  a model that finds neither document loses the query.
- ``right_rank_at_k``: the same rule over the whole retrieved list (top_k), for reference.

Order within a list: descending score, ties broken by corpus position (``top_k_indices``), so
runs are deterministic and a tie never favours a document for its id.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from negviz.core.metrics import SEED, bootstrap_ci

CUTOFFS = (1, 5, 10)
MRR_CUTOFF = 10
RR_CUTOFF = 10  # the published evaluation retrieves 10 documents per query


def top_k_indices(scores: np.ndarray, k: int) -> np.ndarray:
    """Row-wise indices of the k best scores, best first; ties go to the lower index.

    Exact under ties at the k-th place: every document scoring at least the k-th best value is
    a candidate, then (−score, index) orders them. ``scores``: (n,) or (m, n).
    """
    scores = np.asarray(scores)
    single = scores.ndim == 1
    scores = np.atleast_2d(scores)
    n = scores.shape[1]
    k = max(0, min(int(k), n))
    out = np.empty((scores.shape[0], k), dtype=np.int64)
    if k == 0:
        return out[0] if single else out
    for r, row in enumerate(scores):
        if k < n:
            kth = np.partition(row, n - k)[n - k]  # the k-th largest value
            cand = np.flatnonzero(row >= kth)
        else:
            cand = np.arange(n)
        order = np.lexsort((cand, -row[cand]))  # primary: score desc; secondary: index asc
        out[r] = cand[order[:k]]
    return out[0] if single else out


def rank_in(top_ids: Sequence[str], doc_id: str) -> int:
    """1-based rank of ``doc_id`` in a retrieved list, 0 when absent."""
    for i, d in enumerate(top_ids, 1):
        if d == doc_id:
            return i
    return 0


def hits_at(ranks, k: int) -> np.ndarray:
    ranks = np.asarray(ranks, dtype=np.int64)
    return (ranks >= 1) & (ranks <= k)


def reciprocal_rank_at(ranks, k: int = MRR_CUTOFF) -> np.ndarray:
    ranks = np.asarray(ranks, dtype=np.int64)
    return np.where(hits_at(ranks, k), 1.0 / np.maximum(ranks, 1), 0.0)


def right_rank_items(pos_rank, neg_rank, cutoff: int | None = RR_CUTOFF) -> np.ndarray:
    """Per query, ExcluIR's compute_right_rank over the top-``cutoff`` list (None: whole list)."""
    pos, neg = np.asarray(pos_rank, dtype=np.int64), np.asarray(neg_rank, dtype=np.int64)
    if cutoff is not None:
        pos = np.where(hits_at(pos, cutoff), pos, 0)
        neg = np.where(hits_at(neg, cutoff), neg, 0)
    pos_in, neg_in = pos > 0, neg > 0
    return (pos_in & neg_in & (pos < neg)) | (pos_in & ~neg_in)


def retrieval_items(pos_rank, neg_rank) -> dict[str, np.ndarray]:
    """Per-query values of every metric (floats), keyed by metric name."""
    pos, neg = np.asarray(pos_rank, dtype=np.int64), np.asarray(neg_rank, dtype=np.int64)
    items: dict[str, np.ndarray] = {}
    for role, ranks in (("pos", pos), ("neg", neg)):
        for k in CUTOFFS:
            items[f"r{k}_{role}"] = hits_at(ranks, k).astype(float)
        items[f"mrr10_{role}"] = reciprocal_rank_at(ranks, MRR_CUTOFF)
    items["delta_r1"] = items["r1_pos"] - items["r1_neg"]
    items["delta_mrr10"] = items["mrr10_pos"] - items["mrr10_neg"]
    items["right_rank"] = right_rank_items(pos, neg, RR_CUTOFF).astype(float)
    items["right_rank_at_k"] = right_rank_items(pos, neg, None).astype(float)
    return items


METRICS = tuple(retrieval_items([1], [1]))  # names in report order


def retrieval_summary(pos_rank, neg_rank, top_k: int, seed: int = SEED) -> dict:
    """Every metric with n and a 95% bootstrap CI; counts of documents outside the list."""
    pos, neg = np.asarray(pos_rank, dtype=np.int64), np.asarray(neg_rank, dtype=np.int64)
    if len(pos) != len(neg):
        raise ValueError(f"{len(pos)} positive ranks but {len(neg)} excluded ranks")
    n = len(pos)
    items = retrieval_items(pos, neg)
    out: dict = {"metric": "right_rank", "protocol": "corpus retrieval (ExcluIR Sec. 3)", "n": n, "top_k": int(top_k)}
    for name, values in items.items():
        out[name] = float(values.mean()) if n else float("nan")
    out["ci95"] = {name: list(bootstrap_ci(values, seed=seed)) for name, values in items.items()}
    out["right_rank_cutoff"] = RR_CUTOFF
    out["pos_in_top_k"] = int((pos > 0).sum())
    out["neg_in_top_k"] = int((neg > 0).sum())
    out["both_absent_top10"] = int((~hits_at(pos, 10) & ~hits_at(neg, 10)).sum())
    out["random_baseline"] = None  # over a corpus there is no 50%: absent documents count as wrong
    return out
