"""negviz.finetune.general: the per-epoch retrieval figure without negation: Recall@10 by hand.
The shipped pools against BM25 over the whole corpus: tests/models/test_general_pools.py."""

from __future__ import annotations

import numpy as np

from negviz.finetune import general


def test_recall_at_10_by_hand():
    # Two questions, 12 candidates each; relevant candidates marked.
    rel_a = [False] * 12
    rel_a[0] = rel_a[11] = True  # one relevant at the bottom of the pool
    rel_b = [False] * 12
    rel_b[3] = True  # only one of the two supporting passages is in the pool
    scores_a = np.arange(12, 0, -1, dtype=float)  # pool order: relevant at ranks 1 and 12
    scores_b = np.zeros(12)  # all tied: pool order decides, rank 4 is inside the top 10
    got = general.recall_at([scores_a, scores_b], [rel_a, rel_b])
    assert got.tolist() == [0.5, 0.5]
    scores_a[11] = 100.0  # the bottom passage moves to the top: both inside
    assert general.recall_at([scores_a], [rel_a]).tolist() == [1.0]
