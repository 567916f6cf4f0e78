"""negviz.scorers.llm.prompts: what a template sends (chat messages or a raw prompt), which words answer
it, log P(true) over pooled answer variants by hand, and the reasoning part of Rank1's text."""

from __future__ import annotations

import math

import pytest

from negviz.scorers.llm.prompts import TEMPLATES, Template, answer_prefix, reasoning_of, true_log_prob


def test_messages_put_the_system_prompt_first_and_fill_the_user_prompt():
    plain = Template("t", "Q={query} D={doc}", "yes", "no")
    assert plain.messages("q1", "d1") == [{"role": "user", "content": "Q=q1 D=d1"}]
    told = Template("t", "Q={query} D={doc}", "yes", "no", system="Be brief.")
    assert told.messages("q1", "d1")[0] == {"role": "system", "content": "Be brief."}
    assert TEMPLATES["rank1"].raw("q", "d").endswith("Query: q\nPassage: d\n<think>")


def test_answer_words_are_the_word_and_its_capital_after_a_space_when_reasoning():
    assert TEMPLATES["yes-no"].answer_words() == (("yes", "Yes"), ("no", "No"))
    assert TEMPLATES["rank1"].answer_words() == ((" true", " True"), (" false", " False"))
    assert Template("t", "", "OK", "NO").answer_words() == (("OK", "Ok"), ("NO", "No"))


def test_true_log_prob_pools_variants_by_hand():
    # P(yes) + P(Yes) = 0.3 + 0.1 against P(no) = 0.2: log(0.4 / 0.6)
    got = true_log_prob([math.log(0.3), math.log(0.1)], [math.log(0.2)])
    assert got == pytest.approx(math.log(2 / 3), rel=1e-12)
    assert true_log_prob([0.0], [0.0]) == pytest.approx(math.log(0.5))
    assert true_log_prob([-1000.0], [0.0]) == pytest.approx(-1000.0)  # a log, not a probability rounded to 0


def test_reasoning_is_closed_before_the_answer_and_read_back_up_to_the_tag():
    rank1 = TEMPLATES["rank1"]
    assert answer_prefix(rank1, "It says no.  ") == "It says no.\n</think>"
    assert answer_prefix(TEMPLATES["yes-no"], "ignored") == ""
    assert reasoning_of(rank1, " It says no.\n</think> false") == "It says no."
    assert reasoning_of(rank1, "ran out of budget") == "ran out of budget"
