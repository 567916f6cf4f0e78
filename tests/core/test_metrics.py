"""Hand-computed cases for every metric, ties included."""

import math

import numpy as np
import pytest

from negviz.core import metrics as m

# Five hand-made pairs: (s11, s12, s21, s22)
#   p0: correct                      1.0 > 0.5 and 0.9 > 0.2
#   p1: prefers d1 for both          0.8 > 0.3 but s22 0.4 < s21 0.6
#   p2: prefers d2 for both          s11 0.2 < s12 0.7, s22 0.9 > s21 0.1
#   p3: both reversed                s11 0.1 < s12 0.9, s22 0.2 < s21 0.8
#   p4: tie on q2 only, q1 right     s11 0.6 > s12 0.5, s22 0.3 == s21 0.3
S = np.array(
    [
        [1.0, 0.5, 0.2, 0.9],
        [0.8, 0.3, 0.6, 0.4],
        [0.2, 0.7, 0.1, 0.9],
        [0.1, 0.9, 0.8, 0.2],
        [0.6, 0.5, 0.3, 0.3],
    ]
)


def verdicts(rule=m.STRICT):
    return m.pair_verdicts(S[:, 0], S[:, 1], S[:, 2], S[:, 3], rule)


def test_verdicts_and_categories_by_hand():
    v = verdicts()
    assert v["correct"].tolist() == [True, False, False, False, False]
    assert v["category"].tolist() == ["correct", "prefers_original", "prefers_edited", "reversed", "tie"]
    assert v["margin1"].round(6).tolist() == [0.5, 0.5, -0.5, -0.8, 0.1]
    assert v["margin2"].round(6).tolist() == [0.7, -0.2, 0.8, -0.6, 0.0]
    assert v["pref2"].tolist() == ["d2", "d1", "d2", "d1", "tie"]


def test_strict_tie_fails_and_mteb_tie_on_q2_succeeds():
    assert m.paired_accuracy(*S.T) == pytest.approx(1 / 5)
    assert m.paired_accuracy(*S.T, tie_rule=m.MTEB) == pytest.approx(2 / 5)
    # A tie on q1 fails under both rules.
    assert m.paired_accuracy([0.5], [0.5], [0.1], [0.9], m.MTEB) == 0.0
    assert m.paired_accuracy([0.5], [0.5], [0.1], [0.9], m.STRICT) == 0.0


def test_pairs_summary_by_hand():
    s = m.pairs_summary(*S.T)
    assert s["n"] == 5
    assert s["paired_accuracy"] == pytest.approx(0.2)
    # c1 = [T, T, F, F, T], c2 = [T, F, T, F, F]: 5 of 10 queries right
    assert s["per_query_accuracy"] == pytest.approx(0.5)
    # exactly one of c1, c2: p1, p2, p4
    assert s["half_correct"] == pytest.approx(3 / 5)
    assert s["ties"] == {"q1": 0, "q2": 1, "pairs_with_tie": 1}
    assert s["paired_accuracy_other_tie_rule"] == pytest.approx(0.4)
    assert s["verdicts_differing_by_tie_rule"] == 1
    assert s["failures"] == 4
    assert s["error_counts"] == {"prefers_original": 1, "prefers_edited": 1, "reversed": 1, "tie": 1}
    assert s["error_preference"]["reversed"] == pytest.approx(0.25)
    assert s["mean_margin_q1"] == pytest.approx((0.5 + 0.5 - 0.5 - 0.8 + 0.1) / 5)
    lo, hi = s["ci95"]
    assert 0 <= lo <= 0.2 <= hi <= 1


def test_all_ties_is_zero_percent_like_tfidf():
    s = m.pairs_summary([0.0] * 4, [0.0] * 4, [0.0] * 4, [0.0] * 4)
    assert s["paired_accuracy"] == 0.0
    assert s["error_counts"]["tie"] == 4
    assert s["ties"]["pairs_with_tie"] == 4


def test_bootstrap_is_seeded_and_brackets_the_mean():
    x = np.r_[np.ones(30), np.zeros(70)]
    a, b = m.bootstrap_ci(x, seed=3), m.bootstrap_ci(x, seed=3)
    assert a == b
    assert a[0] < 0.3 < a[1]
    assert m.bootstrap_ci(np.ones(10)) == (1.0, 1.0)
    assert all(math.isnan(v) for v in m.bootstrap_ci([]))


def test_right_rank_by_hand():
    s = m.right_rank_summary([0.9, 0.5, 0.2, 0.4], [0.1, 0.5, 0.3, 0.3])
    assert s["right_rank"] == pytest.approx(0.5)  # the tie counts as wrong
    assert s["ties"] == 1
    assert s["n"] == 4
    assert s["mean_margin"] == pytest.approx((0.8 + 0 - 0.1 + 0.1) / 4)


def test_demetr_ratio_by_hand_with_zero_and_tiny_denominators():
    t = np.array([0.9, 0.8, 0.5, 0.6])
    h = np.array([0.7, 0.9, 0.5, 0.5])
    e = np.array([0.1, 0.4, 0.5, 0.5995])
    # ratios: (0.2/0.8)=0.25, (-0.1/0.4)=-0.25, undefined (t == e), (0.1/0.0005)=200 (tiny)
    s = m.demetr_summary(t, h, e)
    assert s["detection_accuracy"] == pytest.approx(2 / 4)
    assert s["n_ratio"] == 3
    assert s["zero_denominators"] == 1
    assert s["tiny_denominators"] == 2  # the zero one and the 0.0005 one
    assert s["sensitivity_ratio"] == pytest.approx((0.25 - 0.25 + 200) / 3)


def test_demetr_checked_only_filter():
    t, h, e = [0.9, 0.9], [0.5, 0.9], [0.1, 0.1]
    all_items = m.demetr_summary(t, h, e, checked=[True, False])
    only = m.demetr_summary(t, h, e, checked=[True, False], checked_only=True)
    assert all_items["n"] == 2 and all_items["checked"] == 1
    assert all_items["sensitivity_ratio"] == pytest.approx((0.5 + 0.0) / 2)
    assert only["n"] == 1 and only["sensitivity_ratio"] == pytest.approx(0.5)
    assert only["detection_accuracy"] == 1.0


def test_sentence_pairs_spearman_sign():
    # Paraphrases (label 0) more similar than negations (label 1): positive correlation.
    s = m.sentence_pairs_summary([0.9, 0.8, 0.3, 0.2], [0, 0, 1, 1])
    # ranks of similarity [4, 3, 2, 1] against ranks of is_paraphrase [3.5, 3.5, 1.5, 1.5]
    assert s["spearman_paraphrase"] == pytest.approx(np.corrcoef([4, 3, 2, 1], [3.5, 3.5, 1.5, 1.5])[0, 1])
    assert s["spearman_paraphrase"] == pytest.approx(0.894427191)
    assert s["n_negated"] == 2 and s["n_paraphrase"] == 2
    only_neg = m.sentence_pairs_summary([0.9, 0.8], [1, 1])
    assert math.isnan(only_neg["spearman_paraphrase"]) and only_neg["spearman_note"]
    assert only_neg["mean_similarity"] == pytest.approx(0.85)


def test_mcnemar_by_hand():
    a = [1, 1, 1, 0, 0, 1]
    b = [0, 0, 1, 0, 1, 1]
    r = m.mcnemar(a, b)
    assert (r["b"], r["c"]) == (2, 1)
    assert r["method"] == "exact binomial"
    assert r["p_value"] == pytest.approx(1.0)  # two-sided exact: P(X<=1 or X>=2 | n=3) = 1
    big_a = [1] * 40 + [0] * 10
    big_b = [0] * 40 + [1] * 10
    r = m.mcnemar(big_a, big_b)
    assert r["statistic"] == pytest.approx((abs(40 - 10) - 1) ** 2 / 50)
    assert r["method"].startswith("chi2")
    assert m.mcnemar([1, 0], [1, 0])["p_value"] == 1.0


def test_shared_resamples_give_the_same_cis_and_draw_once_per_size():
    rng = np.random.default_rng(3)
    samples = [rng.random(50), rng.random(50), (rng.random(80) > 0.5).astype(float)]
    shared = m.Resamples()
    assert [m.bootstrap_ci(s, resamples=shared) for s in samples] == [m.bootstrap_ci(s) for s in samples]
    assert sorted(shared._drawn) == [50, 80]  # one draw per number of items
    other_seed = m.Resamples(seed=1)  # a draw of another seed is not used for seed 0
    assert m.bootstrap_ci(samples[0], resamples=other_seed) == m.bootstrap_ci(samples[0])
