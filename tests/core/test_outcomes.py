"""Per-item verdicts by hand, under both tie rules and for every dataset kind."""

import pandas as pd

from negviz.core import outcomes
from negviz.core.kinds import EXCLUSION_KIND, PAIRS_KIND, PERTURBATION_KIND, SENTENCE_PAIRS_KIND


def test_a_tie_on_q2_fails_strictly_and_passes_under_mteb():
    wide = pd.DataFrame(
        {"q1_d1": [0.9, 0.5], "q1_d2": [0.1, 0.5], "q2_d1": [0.4, 0.1], "q2_d2": [0.4, 0.9]}, index=["tie_q2", "tie_q1"]
    )
    strict = outcomes.item_outcomes(PAIRS_KIND, wide, "strict").set_index("item_id")
    mteb = outcomes.item_outcomes(PAIRS_KIND, wide, outcomes.tie_rule({"tie_rule": "mteb"})).set_index("item_id")
    assert strict.loc["tie_q2", "category"] == "tie" and not strict.loc["tie_q2", "correct"]
    assert mteb.loc["tie_q2", "category"] == "correct" and mteb.loc["tie_q2", "correct"]
    assert not mteb.loc["tie_q1", "correct"]  # MTEB breaks ties on q2 only
    assert strict.loc["tie_q2", "margin"] == 0.0 and strict.loc["tie_q1", "margin"] == 0.0


def test_single_margin_kinds_and_sentence_pairs():
    wide = pd.DataFrame({"candidate": [0.9, 0.5], "perturbed": [0.2, 0.7], "empty": [0.0, 0.0]}, index=["a", "b"])
    out = outcomes.item_outcomes(PERTURBATION_KIND, wide)
    assert out["category"].tolist() == ["correct", "wrong"] and out["margin"].round(6).tolist() == [0.7, -0.2]
    sims = outcomes.item_outcomes(SENTENCE_PAIRS_KIND, pd.DataFrame({"sim": [0.3]}, index=["s"]))
    assert sims["correct"].isna().all() and not SENTENCE_PAIRS_KIND.has_verdicts
    assert outcomes.tie_rule(None) == "strict" and EXCLUSION_KIND.failure_categories == ("wrong", "tie")
