"""negviz.scorers.llm_pointwise: reading a verdict from an endpoint's top log-probabilities (which
token is the answer, log P(true) with a missing word at the floor), and the options checked before
anything runs. (Scores from a real tiny LM: tests/scorers/test_local.py, test_endpoint.py, test_reasoning.py.)"""

from __future__ import annotations

import math

import pytest

from negviz.core.errors import OptionError
from negviz.core.schema import ModelSpec
from negviz.evaluation.catalog import load_scorer
from negviz.scorers.llm.prompts import TEMPLATES
from negviz.scorers.llm_pointwise import answer_entry, answer_log_prob

YES, NO = ("yes",), ("no",)


def entry(token, logprob, *tops):
    return {"token": token, "logprob": logprob, "top_logprobs": [{"token": t, "logprob": lp} for t, lp in tops]}


def test_answer_entry_is_the_first_token_or_the_word_after_the_closing_tag():
    plain = [entry("Yes", -0.1), entry(".", -0.2)]
    assert answer_entry(plain, TEMPLATES["yes-no"], YES + NO) is plain[0]
    assert answer_entry([], TEMPLATES["yes-no"], YES + NO) is None
    rank1 = TEMPLATES["rank1"]
    # "true" inside the reasoning is not the answer; the one after "</think>" is
    tokens = [entry(t, -1.0) for t in ["It", " is", " true", "\n", "</think>", " false"]]
    assert answer_entry(tokens, rank1, ("true", "false")) is tokens[-1]
    assert answer_entry(tokens[:5], rank1, ("true", "false")) is None  # the budget ran out first


def test_answer_log_prob_pools_variants_and_floors_a_missing_word():
    both = entry("yes", math.log(0.6), ("yes", math.log(0.6)), ("Yes", math.log(0.2)), ("no", math.log(0.1)))
    # P(yes) pooled = 0.8 against P(no) = 0.1
    assert answer_log_prob(both, YES, NO) == pytest.approx(math.log(0.8 / 0.9), rel=1e-12)
    only_yes = entry("yes", math.log(0.7), ("yes", math.log(0.7)), ("maybe", math.log(0.05)))
    # "no" was not listed: it counts at the lowest listed log-probability, 0.05
    assert answer_log_prob(only_yes, YES, NO) == pytest.approx(math.log(0.7 / 0.75), rel=1e-12)
    bare = {"token": " No", "logprob": math.log(0.5)}  # no top list: the token itself
    assert answer_log_prob(bare, YES, NO) == pytest.approx(math.log(0.5), rel=1e-12)  # both at the floor


def test_a_base_url_with_a_key_in_it_is_refused_before_anything_runs():
    spec = ModelSpec.make("m", "llm-pointwise", backend="endpoint", base_url="http://user:secret@host/v1")
    with pytest.raises(OptionError, match="base_url") as raised:
        load_scorer(spec)
    assert "secret" not in str(raised.value)


def test_run_options_leave_the_score_cache_namespace_alone():
    def scorer(**options):
        return load_scorer(ModelSpec.make("m", "llm-pointwise", backend="endpoint", base_url="http://h/v1", **options))

    assert scorer(concurrency=8, retries=0).score_namespace == scorer().score_namespace
    assert scorer(template="true-false").score_namespace != scorer().score_namespace
    assert not scorer().half_precision  # an endpoint runs at its server's precision


def test_a_scorer_that_scored_nothing_states_no_pairs_and_no_endpoint_use():
    """The usage figures start at zero in every new scorer (state set in __init__, not guessed)."""
    scorer = load_scorer(ModelSpec.make("m", "llm-pointwise", backend="endpoint", base_url="http://h/v1"))
    assert scorer.run_provenance() == {"backend": "endpoint", "pairs": 0, "pairs_from_score_cache": 0}
    assert scorer.reasoning_for(["q"], ["d"]) is None  # yes-no keeps no text
