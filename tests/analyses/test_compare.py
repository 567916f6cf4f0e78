"""negviz.analyses.compare: McNemar's test between two stored runs on the items they share, and the
items two models disagree on, ranked by their margins' percentiles (hand-computed cases)."""

from types import SimpleNamespace

import pandas as pd
import pytest

from negviz.analyses.compare import compare, item_correctness, verdict_disagreements
from negviz.core.kinds import EXCLUSION_KIND, SENTENCE_PAIRS_KIND


def run(run_id: str, model: str, dataset: str = "excluir", options: dict | None = None) -> SimpleNamespace:
    # the fields of a RunRecord that compare() reads
    return SimpleNamespace(
        run_id=run_id, model_name=model, dataset_kind="exclusion", dataset_name=dataset, options=options or {}
    )


def exclusion_wide(pos: list[float], neg: list[float], ids: list[str]) -> pd.DataFrame:
    return pd.DataFrame({"pos": pos, "neg": neg}, index=pd.Index(ids, name="item_id"))


def test_item_correctness_is_each_items_verdict_and_refuses_kinds_without_one():
    wide = exclusion_wide([2.0, 1.0, 1.0], [1.0, 2.0, 1.0], ["a", "b", "c"])
    assert item_correctness(EXCLUSION_KIND, wide).to_dict() == {"a": True, "b": False, "c": False}  # a tie is wrong
    with pytest.raises(ValueError, match="no"):
        item_correctness(SENTENCE_PAIRS_KIND, pd.DataFrame())


def test_compare_tests_only_the_shared_items():
    # a: i1 right, i2 right, i3 wrong, i4 right; b: i2 wrong, i3 wrong, i4 wrong, i5 right
    wide_a = exclusion_wide([2, 2, 1, 2], [1, 1, 2, 1], ["i1", "i2", "i3", "i4"])
    wide_b = exclusion_wide([1, 1, 1, 2], [2, 2, 2, 1], ["i2", "i3", "i4", "i5"])
    got = compare(run("ra", "A"), wide_a, run("rb", "B"), wide_b)
    # shared i2, i3, i4: a [T, F, T], b [F, F, F]: b = 2 discordant for a, c = 0;
    # exact two-sided p = 2 * C(2, 0) / 2^2 = 0.5
    assert (got["n_shared"], got["b"], got["c"]) == (3, 2, 0)
    assert got["accuracy_a"] == pytest.approx(2 / 3) and got["accuracy_b"] == 0.0
    assert got["p_value"] == pytest.approx(0.5)
    assert (got["model_a"], got["model_b"], got["tie_rule_a"]) == ("A", "B", "strict")


def test_compare_refuses_runs_on_other_datasets_or_without_shared_items():
    wide = exclusion_wide([2], [1], ["i1"])
    with pytest.raises(ValueError, match="different datasets"):
        compare(run("ra", "A"), wide, run("rb", "B", dataset="other"), wide)
    with pytest.raises(ValueError, match="share no items"):
        compare(run("ra", "A"), wide, run("rb", "B"), exclusion_wide([2], [1], ["i2"]))


def test_verdict_disagreements_rank_by_the_difference_of_margin_percentiles():
    outs = pd.DataFrame(
        {
            "model": ["A"] * 4 + ["B"] * 4,
            "item_id": ["a", "b", "c", "d"] * 2,
            "correct": [True, False, True, True, False, True, False, True],
            "margin": [0.4, -0.2, 0.1, 0.3, -1.0, 5.0, -3.0, 2.0],
        }
    )
    # percentiles A: a 1, b .25, c .5, d .75; B: a .5, b 1, c .25, d .75
    # differences: a .5, b -.75, c .25, d 0; A right & B wrong: a, c; A wrong & B right: b
    got = verdict_disagreements(outs, "A", "B", per_side=2)
    assert got["item_id"].tolist() == ["a", "c", "b"]
    assert got["percentile_difference"].tolist() == pytest.approx([0.5, 0.25, -0.75])
    assert got["side"].tolist() == ["A right, B wrong"] * 2 + ["A wrong, B right"]
    assert verdict_disagreements(outs, "A", "B", per_side=1)["item_id"].tolist() == ["a", "b"]
