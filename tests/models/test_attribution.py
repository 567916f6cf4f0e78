"""Attributions with the real MiniLM and NegMiniLM weights: integrated gradients' completeness, the
batched gradient x input, and the shipped cue-influence runs under the current cue rule."""

from __future__ import annotations

import numpy as np
import pytest

from negviz.analyses import attribution as A
from negviz.datasets import load
from negviz.evaluation.catalog import load_scorer
from tests.analyses.test_attribution import _nevir_row
from negviz.core.kinds import PAIRS_KIND


def test_integrated_gradients_on_minilm_sum_to_the_score_difference():
    """Completeness: sum of attributions = F(x) - F(x') within 1% of the total |attribution|
    (32 midpoint steps); F(x) is the margin the scorer itself computes."""
    scorer = load_scorer("all-MiniLM-L6-v2")
    contrast = A.contrasts(PAIRS_KIND, _nevir_row())[0]
    att = A.integrated_gradients(scorer, contrast, steps=32)
    c = att.completeness
    assert abs(c["gap"]) <= 0.01 * att.tokens["attribution"].abs().sum()
    assert c["sum"] == pytest.approx(att.tokens["attribution"].sum())
    q, good, bad = (contrast.texts[r] for r in A.ROLES)
    s = scorer.score([q, q], [good, bad])
    assert att.margin == pytest.approx(s[0] - s[1], abs=1e-5)
    assert att.tokens["attribution"].abs().sum() > 0 and 0 <= att.cue_share <= 1
    fast = A.integrated_gradients(scorer, contrast, at_input=True)
    assert fast.forward_passes == 3 and "gap" not in fast.completeness


def test_batched_gradient_x_input_equals_one_comparison_at_a_time():
    scorer = load_scorer("all-MiniLM-L6-v2")
    rows = load("nevir").frame.iloc[:2].to_dict("records")
    contrasts = [c for r in rows for c in A.contrasts(PAIRS_KIND, r)]
    batched = A.gradient_x_input_many(scorer, contrasts)
    for c, b in zip(contrasts, batched):
        one = A.integrated_gradients(scorer, c, at_input=True)
        np.testing.assert_allclose(b.tokens["attribution"], one.tokens["attribution"], atol=1e-6)
        assert b.margin == pytest.approx(one.margin, abs=1e-6)


@pytest.mark.parametrize("model", ["all-MiniLM-L6-v2", "negminilm"])
def test_the_shipped_cue_influence_runs_follow_the_current_cue_rule(model):
    """The shipped runs were made under today's cue rule (it is part of their spec), and their stored
    shares equal a live gradient x input on three pairs, 1230-2 (a cue the edit moved) among them."""
    from negviz.core.paths import DATA_DIR
    from negviz.store.portable import read_record, read_scores

    path = DATA_DIR / "runs" / f"nevir-attribution-gradient-x-input__{model}.parquet"
    record, scores = read_record(path), read_scores(path)
    assert record.options["cue_rule"] == A.CUE_RULE and record.n == 1383
    stored = scores.set_index(["item_id", "slot"])["score"]
    frame = load("nevir").frame.set_index("pair_id")
    scorer = load_scorer(model, device="cpu")
    for pair in ("1230-2", "726-3", "1283-3"):
        row = frame.loc[pair].to_dict() | {"pair_id": pair}
        for contrast, att in zip(
            A.contrasts(PAIRS_KIND, row), A.gradient_x_input_many(scorer, A.contrasts(PAIRS_KIND, row))
        ):
            assert att.cue_share == pytest.approx(stored[(pair, f"{contrast.name}:cue_share")], abs=1e-4), pair
