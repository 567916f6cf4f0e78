"""BM25 over the whole offline corpus for the per-epoch retrieval figure without negation
(negviz.finetune.general): the shipped pools equal BM25's live top 30 with their gold passages,
and BM25 re-ranking its own pool gives back its own recall. Recall@10 by hand:
tests/finetune/test_general.py."""

from __future__ import annotations

import pandas as pd
import pytest

from negviz.finetune import general


def test_shipped_pools_are_bm25s_top_30_and_hold_the_gold_passages():
    pool = general.general_pool(5)
    live = general.bm25_pools(pool.questions)
    frame = pd.read_parquet(general.POOL_FILE)
    for qid, ids in zip(pool.question_ids, live):
        shipped = frame[frame["query_id"] == qid].sort_values("rank")["doc_id"].tolist()
        assert shipped == ids and len(ids) == general.POOL_DEPTH
    assert 0 < pool.bm25_recall <= pool.pool_recall <= 1
    assert all(len(c) == general.POOL_DEPTH for c in pool.candidates)


def test_measure_general_with_bm25_reproduces_bm25s_own_recall():
    """Re-ranking the pool with BM25 itself keeps BM25's order, so R@10 equals BM25's."""
    from negviz.datasets import load
    from negviz.evaluation.catalog import load_scorer
    from negviz.evaluation.retrieval.corpus import offline_corpus
    from negviz.evaluation.retrieval.index import BM25Retriever

    pool = general.general_pool(5)
    corpus = offline_corpus()
    retriever = BM25Retriever(load_scorer("bm25"), corpus)
    per_question = [
        retriever.score_all(q)[[corpus.row_of[d] for d in ids]]
        for q, ids in zip(pool.questions, general.bm25_pools(pool.questions))
    ]
    assert general.recall_at(per_question, pool.relevant).mean() == pytest.approx(pool.bm25_recall)
    assert load("excluir").frame["question0"].iloc[0] == pool.questions[0]
