"""negviz.evaluation.retrieval.rank_metrics: top-k with ties, ranks, and every retrieval metric (recall, MRR,
ExcluIR's right rank) against hand-computed values and the published list rule."""

import numpy as np
import pytest

from negviz.evaluation.retrieval import rank_metrics as rm

# q1: d+ 1st, d- 2nd. q2: d+ 3rd, d- outside the top k. q3: both absent. q4: d+ 12th, d- 4th.
# q5: d+ 11th (in the top k = 100, outside the top 10), d- absent.
POS, NEG = [1, 3, 0, 12, 11], [2, 0, 0, 4, 0]


def test_top_k_breaks_ties_by_corpus_position():
    scores = np.array([1.0, 3.0, 3.0, 2.0, 3.0])
    assert rm.top_k_indices(scores, 2).tolist() == [1, 2]  # three docs tie at 3.0: the first two
    assert rm.top_k_indices(scores, 4).tolist() == [1, 2, 4, 3]
    assert rm.top_k_indices(scores, 9).tolist() == [1, 2, 4, 3, 0]
    two = rm.top_k_indices(np.array([[0.0, 0.0, 1.0], [5.0, 5.0, 5.0]]), 2)
    assert two.tolist() == [[2, 0], [0, 1]]


def test_rank_in_list():
    assert rm.rank_in(["a", "b", "c"], "b") == 2
    assert rm.rank_in(["a", "b", "c"], "z") == 0


def test_every_metric_by_hand():
    s = rm.retrieval_summary(POS, NEG, top_k=100)
    assert s["n"] == 5 and s["top_k"] == 100
    expected = {
        "r1_pos": 1 / 5, "r5_pos": 2 / 5, "r10_pos": 2 / 5, "mrr10_pos": (1 + 1 / 3) / 5,
        "r1_neg": 0.0, "r5_neg": 2 / 5, "r10_neg": 2 / 5, "mrr10_neg": (1 / 2 + 1 / 4) / 5,
        "delta_r1": 1 / 5, "delta_mrr10": (1 + 1 / 3 - 1 / 2 - 1 / 4) / 5,
        # Top 10: q1 (both, d+ above), q2 (only d+) right; q3 (neither), q4 (only d-), q5 (neither) wrong.
        "right_rank": 2 / 5,
        # Whole list: q5 now has only d+ in it (right); q4 has both, d- above (wrong).
        "right_rank_at_k": 3 / 5,
    }  # fmt: skip
    for name, value in expected.items():
        assert s[name] == pytest.approx(value), name
        lo, hi = s["ci95"][name]
        assert lo <= s[name] + 1e-12 and s[name] <= hi + 1e-12, name
    assert set(rm.METRICS) == set(expected)
    assert s["pos_in_top_k"] == 4 and s["neg_in_top_k"] == 2 and s["both_absent_top10"] == 2  # q3 and q5


def test_both_absent_counts_as_wrong_in_the_denominator():
    assert rm.right_rank_items([0], [0]).tolist() == [False]
    s = rm.retrieval_summary([0, 1], [0, 0], top_k=10)
    assert s["right_rank"] == 0.5  # not 1.0: the query that found neither is not dropped


def _published_rule(result: list, neg: str, pos: str) -> bool:
    """ExcluIR's compute_right_rank for one query, written from its description."""
    if pos in result and neg in result:
        return result.index(pos) < result.index(neg)
    return pos in result


def test_right_rank_matches_the_list_rule_on_random_lists():
    rng = np.random.default_rng(0)
    pos, neg, want = [], [], []
    for _ in range(300):
        result = [str(x) for x in rng.permutation(30)[:10]]
        p, n = "1", "2"
        pos.append(rm.rank_in(result, p))
        neg.append(rm.rank_in(result, n))
        want.append(_published_rule(result, n, p))
    assert rm.right_rank_items(pos, neg).tolist() == want
