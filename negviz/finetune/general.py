"""A retrieval figure with no negation in it, measured per epoch beside the negation figures.

Does training for negation cost ordinary retrieval? (The NevIR reproduction, van den Elsen et
al. 2025, reports that it does.) The figure: HotpotQA's own questions, as ExcluIR keeps them
(``question0``, the question before it was rewritten with an exclusion), against the offline
corpus. Both of a question's supporting passages (ExcluIR's d+ and d-) are relevant to it, and
no negation or exclusion is involved.

Protocol (fixed, so epochs and runs differ only by the model): the first ``n`` questions of the
shipped ExcluIR sample; each question's candidates are BM25's top ``POOL_DEPTH`` over the offline
corpus (model-independent, so computed once by scripts/build_general_pool.py and shipped as
data/corpus/general_pool.parquet); the checkpoint re-ranks them. Recall@10 = the share of
the two supporting passages in the re-ranked top 10, averaged over questions (a passage BM25 did
not retrieve counts as missed, so ``general_pool_recall`` is the ceiling), with a seeded bootstrap
95% CI. BM25's own Recall@10 on the same questions is the reference.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

from negviz.core.paths import DATA_DIR
from negviz.scorers.base import Progress, no_progress

POOL_FILE = DATA_DIR / "corpus" / "general_pool.parquet"

POOL_DEPTH = 30
CUTOFF = 10
DEFINITION = (
    f"Recall@{CUTOFF} of HotpotQA's two supporting passages for ExcluIR's original questions (question0, "
    f"no exclusion), re-ranking BM25's top {POOL_DEPTH} over the offline corpus"
)


@dataclass(frozen=True)
class GeneralPool:
    """Questions, their candidate passages (BM25 order) and which candidates are relevant."""

    question_ids: list[str]
    questions: list[str]
    candidates: list[list[str]]  # passage texts per question, BM25's order
    relevant: list[list[bool]]  # per candidate
    pool_recall: float  # share of the supporting passages inside the pools (the ceiling)
    bm25_recall: float  # BM25's own Recall@CUTOFF


def bm25_pools(questions: list[str]) -> list[list[str]]:
    """BM25's top POOL_DEPTH doc ids over the offline corpus per question (what the file holds)."""
    from negviz.evaluation.catalog import load_scorer
    from negviz.evaluation.retrieval.corpus import offline_corpus
    from negviz.evaluation.retrieval.index import BM25Retriever

    corpus = offline_corpus()
    rows, _ = BM25Retriever(load_scorer("bm25"), corpus).search(questions, POOL_DEPTH)
    return [[corpus.ids[i] for i in r] for r in rows]


@functools.lru_cache(maxsize=4)
def general_pool(n: int) -> GeneralPool | None:
    """The fixed pools of the first ``n`` questions (None for n = 0), from the shipped file."""
    if not n:
        return None
    import pandas as pd

    from negviz.core.errors import DatasetUnavailableError
    from negviz.datasets import load
    from negviz.evaluation.retrieval.corpus import offline_corpus

    if not POOL_FILE.is_file():
        raise DatasetUnavailableError(f"{POOL_FILE} is missing; build it with `python scripts/build_general_pool.py`")
    sample = load("excluir").frame
    if n > len(sample):
        raise ValueError(f"general={n}, but the ExcluIR sample has {len(sample)} questions")
    sample = sample.iloc[: int(n)]
    pools = pd.read_parquet(POOL_FILE).sort_values(["query_id", "rank"]).groupby("query_id")["doc_id"].apply(list)
    text_of = dict(zip(*(offline_corpus().frame[c] for c in ("doc_id", "text"))))
    candidates, relevant, found, bm25_hits = [], [], [], []
    for item in sample.itertuples(index=False):
        gold = {str(item.pos_corpus_index), str(item.neg_corpus_index)}
        ids = pools[item.query_id]
        is_gold = [d in gold for d in ids]
        candidates.append([text_of[d] for d in ids])
        relevant.append(is_gold)
        found.append(sum(is_gold) / 2)
        bm25_hits.append(sum(is_gold[:CUTOFF]) / 2)
    return GeneralPool(
        sample["query_id"].astype(str).tolist(),
        sample["question0"].tolist(),
        candidates,
        relevant,
        float(np.mean(found)),
        float(np.mean(bm25_hits)),
    )


def recall_at(scores: list[np.ndarray], relevant: list[list[bool]], k: int = CUTOFF) -> np.ndarray:
    """Per question: share of its 2 supporting passages in the top k by score (ties: pool order)."""
    out = []
    for s, rel in zip(scores, relevant):
        order = np.lexsort((np.arange(len(s)), -np.asarray(s)))[:k]
        out.append(sum(rel[i] for i in order) / 2)
    return np.asarray(out, dtype=np.float64)


def measure_general(scorer, pool: GeneralPool, progress: Progress = no_progress) -> dict[str, Any]:
    """The epoch's figures (``general_*`` keys) for one checkpoint."""
    from negviz.core.metrics import bootstrap_ci

    queries = [q for q, c in zip(pool.questions, pool.candidates) for _ in c]
    docs = [d for c in pool.candidates for d in c]
    flat = scorer.score(queries, docs, progress)
    bounds = np.cumsum([0] + [len(c) for c in pool.candidates])
    per_question = recall_at([flat[a:b] for a, b in zip(bounds[:-1], bounds[1:])], pool.relevant)
    low, high = bootstrap_ci(per_question)
    return {
        "general_recall10": float(per_question.mean()),
        "general_recall10_ci_low": low,
        "general_recall10_ci_high": high,
        "general_n": len(per_question),
        "general_pool_recall": pool.pool_recall,
        "general_bm25_recall10": pool.bm25_recall,
    }
