"""negviz.analyses.fixes: the pairs a fix repaired and broke against its base, their summary and
where the repairs concentrate by negation type, on hand-computed runs."""

import pandas as pd
import pytest

from negviz.analyses.fixes import by_type, repairs, summary
from negviz.core.kinds import PAIRS_KIND


def test_repairs_concentrate_by_type():
    wide = lambda rows: pd.DataFrame(rows, columns=["q1_d1", "q1_d2", "q2_d1", "q2_d2"], index=["a", "b", "c", "d"])  # noqa: E731
    right, wrong = [2, 1, 1, 2], [1, 2, 1, 2]
    base = wide([wrong, wrong, right, right])
    model = wide([right, right, wrong, right])
    items = repairs(PAIRS_KIND, model, "strict", base, "strict")
    assert list(items["change"]) == ["repaired", "repaired", "broken", ""]
    s = summary(items)
    assert (s["repaired"], s["broken"], s["difference"]) == (2, 1, 0.25)
    assert s["test"].startswith("exact") and s["p_value"] == 1.0  # 3 discordant pairs: 2 vs 1
    types = by_type(
        items, pd.DataFrame({"item_id": ["a", "b", "c", "d"], "type": ["affixal", "affixal", "implicit", "implicit"]})
    )
    assert types.iloc[0].to_dict() == {
        "type": "affixal",
        "items": 2,
        "repaired": 2,
        "broken": 0,
        "share_of_repairs": 1.0,
        "share_of_items": 0.5,
    }


def test_repairs_judge_each_run_under_its_own_tie_rule_on_shared_items():
    # pair t: q1 ranks d1 first, q2 ties (s(q2,d1) = s(q2,d2)): wrong under "strict", right under
    # "mteb" (MTEB breaks q2's tie in d2's favour); pair x is scored by the base only
    cols = ["q1_d1", "q1_d2", "q2_d1", "q2_d2"]
    base = pd.DataFrame([[2, 1, 1, 1], [2, 1, 1, 2]], columns=cols, index=["t", "x"])
    model = pd.DataFrame([[2, 1, 1, 1]], columns=cols, index=["t"])
    same_rule = repairs(PAIRS_KIND, model, "strict", base, "strict")
    assert same_rule["item_id"].tolist() == ["t"] and same_rule["change"].tolist() == [""]
    own_rule = repairs(PAIRS_KIND, model, "mteb", base, "strict")
    assert own_rule["change"].tolist() == ["repaired"]


def test_summary_refuses_runs_without_shared_items():
    with pytest.raises(ValueError, match="share no items"):
        summary(pd.DataFrame(columns=["item_id", "base_correct", "model_correct", "change"]))
