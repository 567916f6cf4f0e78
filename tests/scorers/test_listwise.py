"""RankGPT permutations to scores, by hand-built answers: readable, partial, repeated, out of
range, unreadable (a tie); what each means for a NevIR pair under the strict and MTEB rules;
and the sliding window's slices."""

from __future__ import annotations

import pytest

from negviz.core.metrics import CORRECT, MTEB, PREFERS_ORIGINAL, STRICT, TIE, pair_verdicts
from negviz.scorers.llm.listwise import completed, messages, parse_permutation, permutation_scores, windows


@pytest.mark.parametrize(
    "answer, n, order",
    [
        ("[2] > [1]", 2, [1, 0]),
        ("[1] > [2]", 2, [0, 1]),
        ("[2]", 2, [1]),  # one named: it ranks first, the other is unnamed
        ("[2] > [2] > [1]", 2, [1, 0]),  # a repeat counts once
        ("[3] > [1] > [0]", 2, [0]),  # numbers outside 1..n are dropped
        ("Passage 2 is more relevant", 2, []),  # no identifier at all
        ("[4] > [2] > [3] > [1]", 4, [3, 1, 2, 0]),
    ],
)
def test_parse_permutation(answer, n, order):
    assert parse_permutation(answer, n) == order


@pytest.mark.parametrize(
    "order, n, scores",
    [
        ([1, 0], 2, [1.0, 2.0]),
        ([0, 1], 2, [2.0, 1.0]),
        ([1], 2, [0.0, 2.0]),
        ([], 2, [0.0, 0.0]),  # unreadable: an exact tie
        ([2, 0], 3, [2.0, 0.0, 3.0]),  # the unnamed one ties at the bottom
    ],
)
def test_permutation_scores(order, n, scores):
    assert permutation_scores(order, n) == scores


def nevir(q1_answer: str, q2_answer: str, tie_rule: str = STRICT) -> str:
    """The verdict of a NevIR pair whose lists are [d1, d2] for both queries."""
    s11, s12 = permutation_scores(parse_permutation(q1_answer, 2), 2)
    s21, s22 = permutation_scores(parse_permutation(q2_answer, 2), 2)
    return pair_verdicts([s11], [s12], [s21], [s22], tie_rule=tie_rule)["category"].iloc[0]


def test_nevir_outcomes_of_hand_built_answers():
    assert nevir("[1] > [2]", "[2] > [1]") == CORRECT
    assert nevir("[1]", "[2]") == CORRECT  # naming the winner alone is enough
    assert nevir("[1] > [2]", "[1] > [2]") == PREFERS_ORIGINAL  # d1 first for both queries
    assert nevir("[1] > [2]", "no idea") == TIE  # q2's answer unreadable: both documents tie
    assert nevir("no idea", "no idea") == TIE
    # MTEB's rule breaks a tie on q2 by document id (d2 wins): the same answers count as correct.
    assert nevir("[1] > [2]", "no idea", tie_rule=MTEB) == CORRECT


def test_completion_keeps_unnamed_candidates_in_input_order():
    assert completed([2], 4) == [2, 0, 1, 3]
    assert completed([], 3) == [0, 1, 2]


def test_sliding_windows_back_to_front():
    assert windows(2, 20, 10) == [(0, 2)]
    assert windows(20, 20, 10) == [(0, 20)]
    assert windows(30, 20, 10) == [(10, 30), (0, 20)]
    assert windows(100, 20, 10)[0] == (80, 100) and windows(100, 20, 10)[-1] == (0, 20)
    assert len(windows(100, 20, 10)) == 9


def test_the_prompt_numbers_every_passage_once():
    chat = messages("who did not win?", ["A won.", "B did not win."])
    text = "\n".join(m["content"] for m in chat)
    assert "[1] A won." in text and "[2] B did not win." in text and "2 passages" in text
    assert chat[0]["role"] == "system" and chat[-1]["role"] == "user"
