"""Cohen's and Fleiss' kappa against hand computations and scikit-learn; agreement from labels."""

import math

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

from negviz.analyses.agreement import (
    COHEN,
    FLEISS,
    agreement_table,
    category_counts,
    cohen_kappa,
    disagreements,
    fleiss_kappa,
    pairwise_cohen,
    ratings,
)


def test_cohen_by_hand():
    # 50 items: both yes 20, A yes / B no 5, A no / B yes 10, both no 15.
    a = ["y"] * 20 + ["y"] * 5 + ["n"] * 10 + ["n"] * 15
    b = ["y"] * 20 + ["n"] * 5 + ["y"] * 10 + ["n"] * 15
    # p_o = 35/50 = 0.7; p_e = 0.5 * 0.6 + 0.5 * 0.4 = 0.5; kappa = (0.7 - 0.5) / 0.5 = 0.4
    assert cohen_kappa(a, b) == pytest.approx(0.4)
    assert cohen_kappa(a, a) == 1.0


def test_cohen_matches_sklearn():
    rng = np.random.default_rng(7)
    cats = np.array(["sentential", "affixal", "implicit", "other"])
    a = cats[rng.integers(0, 4, 200)]
    b = np.where(rng.random(200) < 0.6, a, cats[rng.integers(0, 4, 200)])
    assert cohen_kappa(a, b) == pytest.approx(cohen_kappa_score(a, b), abs=1e-12)
    c = cats[rng.integers(0, 2, 30)]  # B uses categories A never does
    d = cats[rng.integers(1, 4, 30)]
    assert cohen_kappa(c, d) == pytest.approx(cohen_kappa_score(c, d), abs=1e-12)


def test_cohen_undefined_and_errors():
    assert math.isnan(cohen_kappa(["x"] * 5, ["x"] * 5))  # p_e = 1; sklearn gives NaN as well
    assert math.isnan(cohen_kappa([], []))
    with pytest.raises(ValueError, match="same items"):
        cohen_kappa(["a"], ["a", "b"])


def test_fleiss_wikipedia_example():
    # Fleiss (1971) as worked on Wikipedia: 10 items, 14 raters, 5 categories: P = 0.378, Pe = 0.213.
    table = [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ]
    assert fleiss_kappa(table) == pytest.approx(0.20993, abs=1e-5)


def test_fleiss_small_by_hand():
    # 3 raters; items (3,0), (0,3), (2,1): p = (5/9, 4/9); P_i = 1, 1, 1/3 -> P = 7/9;
    # Pe = 41/81; kappa = (63/81 - 41/81) / (40/81) = 22/40
    assert fleiss_kappa([[3, 0], [0, 3], [2, 1]]) == pytest.approx(0.55)
    assert math.isnan(fleiss_kappa([[3, 0], [3, 0]]))
    with pytest.raises(ValueError, match="same number"):
        fleiss_kappa([[3, 0], [1, 1]])


def latest_frame(rows):
    return pd.DataFrame(rows, columns=["item_id", "annotator", "negation_type", "validity", "query_ambiguous"])


LATEST = latest_frame(
    [
        ("1", "ana", "sentential", "valid", False),
        ("1", "bo", "sentential", "valid", False),
        ("1", "cy", "affixal", "valid", True),
        ("2", "ana", "affixal", "valid", False),
        ("2", "bo", "affixal", "invalid", False),
        ("2", "cy", "affixal", "valid", False),
        ("3", "ana", "implicit", "unsure", True),
        ("3", "bo", "sentential", "unsure", True),
        ("3", "cy", "implicit", "unsure", True),
        ("4", "ana", "implicit", "valid", False),  # only ana: not shared
        ("10", "ana", "other", "valid", False),
        ("10", "bo", "other", "valid", False),
    ]
)


def test_ratings_keep_shared_pairs_only():
    r = ratings(LATEST, ["ana", "bo"], "query_ambiguous")
    assert list(r.index) == ["1", "10", "2", "3"] and list(r.columns) == ["ana", "bo"]
    assert r.loc["3", "ana"] == "True"
    counts = category_counts(ratings(LATEST, ["ana", "bo", "cy"], "negation_type"))
    assert counts.loc["1"].to_dict() == {"affixal": 1, "implicit": 0, "sentential": 2}


def test_agreement_table_two_and_three_annotators():
    two = agreement_table(LATEST, ["ana", "bo"]).set_index("label")
    assert set(two["statistic"]) == {COHEN} and set(two["shared_pairs"]) == {4}
    types = ratings(LATEST, ["ana", "bo"], "negation_type")
    assert two.loc["negation_type", "kappa"] == pytest.approx(cohen_kappa_score(types["ana"], types["bo"]))
    assert two.loc["negation_type", "observed_agreement"] == 0.75
    three = agreement_table(LATEST, ["ana", "bo", "cy"]).set_index("label")
    assert set(three["statistic"]) == {FLEISS} and set(three["shared_pairs"]) == {3}
    # negation_type on items 1,2,3: counts (aff, imp, sent) = (1,0,2), (3,0,0), (0,2,1)
    assert three.loc["negation_type", "kappa"] == pytest.approx(fleiss_kappa([[1, 0, 2], [3, 0, 0], [0, 2, 1]]))
    with pytest.raises(ValueError, match="two annotators"):
        agreement_table(LATEST, ["ana"])


def test_pairwise_cohen_and_disagreements():
    m = pairwise_cohen(LATEST, ["ana", "bo", "cy"], "validity")
    assert m.loc["ana", "bo"] == m.loc["bo", "ana"] and math.isnan(m.loc["ana", "ana"])
    diff = disagreements(LATEST, ["ana", "bo"])
    assert diff[["item_id", "label"]].values.tolist() == [["2", "validity"], ["3", "negation_type"]]
    assert diff.loc[1, "ana"] == "implicit" and diff.loc[1, "bo"] == "sentential"
    assert disagreements(LATEST[LATEST["item_id"] == "10"], ["ana", "bo"]).empty


def test_krippendorffs_alpha_equals_hand_computations():
    import numpy as np
    import pandas as pd

    from negviz.analyses.agreement import alpha_ci, krippendorff_alpha

    # two coders, three pairable units: o_aa = 2, o_ab = o_ba = 1, o_bb = 2; n_a = n_b = 3, n = 6;
    # alpha = 1 - (n - 1) * 2 / (2 * 3 * 3) = 4/9. A unit with one value is not pairable.
    units = pd.DataFrame({"x": ["a", "a", "b", "b"], "y": ["a", "b", "b", np.nan]})
    assert krippendorff_alpha(units) == pytest.approx(4 / 9)
    # Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", the 4 coders x 12 units example
    n = np.nan
    table = pd.DataFrame(
        {
            "A": [1, 2, 3, 3, 2, 1, 4, 1, 2, n, n, n],
            "B": [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, n, 3],
            "C": [n, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, n],
            "D": [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, n],
        }
    )
    assert round(krippendorff_alpha(table), 3) == 0.743
    low, high = alpha_ci(table)
    assert low < 0.743 < high
    assert np.isnan(krippendorff_alpha(pd.DataFrame({"x": ["a", "a"], "y": ["a", "a"]})))  # one category: undefined


def test_alpha_table_per_label_and_per_negation_type_with_missing_labels():
    import pandas as pd

    from negviz.analyses.agreement import alpha_table

    latest = pd.DataFrame(
        {
            "item_id": ["1", "1", "2", "2", "3", "3", "4"],
            "annotator": ["ann", "bob", "ann", "bob", "ann", "bob", "ann"],
            "negation_type": ["affixal", "affixal", "affixal", "implicit", "implicit", "implicit", "affixal"],
            "validity": ["valid"] * 7,
            "query_ambiguous": [False] * 7,
        }
    )
    groups = pd.Series({"1": "affixal", "2": "affixal", "3": "sentential", "4": "sentential"})
    out = alpha_table(latest, ["ann", "bob"], labels=("negation_type", "validity"), groups=groups, n_boot=50)
    row = out[(out["label"] == "negation_type") & (out["items"] == "all")].iloc[0]
    assert row["pairable_items"] == 3 and row["alpha"] == pytest.approx(4 / 9)  # item 4: one label only
    assert out[(out["label"] == "negation_type") & (out["items"] == "sentential")].iloc[0]["pairable_items"] == 1
    assert pd.isna(out[(out["label"] == "validity") & (out["items"] == "all")].iloc[0]["alpha"])  # one category


def test_alpha_on_fewer_than_ten_pairs_comes_with_a_warning():
    from negviz.analyses.agreement import MIN_ITEMS, alpha_table, few_items_warning

    def latest(n_items: int) -> pd.DataFrame:
        rows = []
        for i in range(n_items):
            for who, kind in (("ana", "affixal"), ("ben", "affixal" if i % 3 else "implicit")):
                rows.append({"item_id": f"p{i}", "annotator": who, "negation_type": kind, "validity": "valid",
                             "query_ambiguous": False})  # fmt: skip
        return pd.DataFrame(rows)

    few = alpha_table(latest(2), ["ana", "ben"], labels=("negation_type",), n_boot=50)
    text = few_items_warning(few)
    assert text and f"fewer than {MIN_ITEMS} pairs" in text and "as few as 2" in text
    assert few_items_warning(alpha_table(latest(30), ["ana", "ben"], labels=("negation_type",), n_boot=50)) is None


def test_kappa_on_fewer_pairs_than_the_minimum_comes_with_the_same_warning():
    """Cohen's kappa on 3 shared pairs was shown as plainly as on 300: the one minimum n applies."""
    from negviz.analyses.agreement import agreement_table, few_items_warning
    from negviz.core.sample_size import MIN_N

    rows = [
        {"item_id": f"p{i}", "annotator": who, "negation_type": kind, "validity": "valid", "query_ambiguous": False}
        for i in range(3)
        for who, kind in (("ana", "affixal"), ("ben", "affixal" if i else "implicit"))
    ]
    table = agreement_table(pd.DataFrame(rows), ["ana", "ben"], labels=("negation_type",))
    assert table["shared_pairs"].tolist() == [3] and table["kappa"].notna().all()
    assert few_items_warning(table, "shared_pairs", "kappa", "all of them labelled") == (
        f"1 of these kappas rest on fewer than {MIN_N} pairs all of them labelled (as few as 3): one label "
        "more or less moves them a lot. Label more pairs before reading agreement from them."
    )
