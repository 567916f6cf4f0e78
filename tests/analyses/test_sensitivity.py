"""DEMETR sensitivity and CANNOT distributions: hand-computed items and tables, the runner's cosine
default, the own-sentence perturbations. The figure builders: tests/charts/test_sensitivity.py."""

import numpy as np
import pandas as pd
import pytest

from negviz.analyses import sensitivity as sv
from negviz.core import metrics
from negviz.core.kinds import PERTURBATION, kind_of
from negviz.core.schema import DatasetSpec, ModelSpec
from negviz.evaluation.published import load_reference
from negviz.language.text import perturb
from negviz.core.kinds import PAIRS_KIND, PERTURBATION_KIND, SENTENCE_PAIRS_KIND

# Two perturbations x 3 items. Scores t = m(ref, mt), h = m(ref, pert), e = m(ref, ".") by hand:
#   negation:1  t .9 h .5 e .1 -> ratio .4/.8 = .5, detected
#   negation:2  t .6 h .7 e .2 -> ratio -.1/.4 = -.25, missed (not checked)
#   negation:3  t .5 h .4 e .4995 -> |t - e| = .0005 tiny: ratio .1/.0005 = 200, detected
#   antonym:1   t .8 h .8 e .3 -> ratio 0, missed (tie)
#   antonym:2   t .4 h .2 e .4 -> t == e: zero denominator, ratio undefined, detected
#   antonym:3   t .7 h .1 e .1 -> ratio .6/.6 = 1, detected
FRAME = pd.DataFrame(
    {
        "item_id": [1, 2, 3, 1, 2, 3],
        "perturbation": ["critical_id8_negation"] * 3 + ["critical_id7_antonym"] * 3,
        "severity": ["critical"] * 6,
        "reference": ["r1", "r2", "r3", "r1", "r2", "r3"],
        "candidate": ["c1", "c2", "c3", "c1", "c2", "c3"],
        "perturbed": ["n1", "n2", "n3", "a1", "a2", "a3"],
        "checked": [True, False, True, True, True, True],
    }
)
T = [0.9, 0.6, 0.5, 0.8, 0.4, 0.7]
H = [0.5, 0.7, 0.4, 0.8, 0.2, 0.1]
E = [0.1, 0.2, 0.4995, 0.3, 0.4, 0.1]
IDS = [f"{p}:{i}" for p, i in zip(FRAME["perturbation"], FRAME["item_id"])]
WIDE = pd.DataFrame({"candidate": T, "perturbed": H, "empty": E}, index=pd.Index(IDS, name="item_id"))


def test_item_table_by_hand_with_tiny_and_zero_denominators():
    items = sv.item_table(FRAME, WIDE)
    assert list(items.columns) == list(sv.ITEM_COLUMNS)
    assert items["item_id"].tolist() == IDS
    np.testing.assert_allclose(items["ratio"].to_numpy(), [0.5, -0.25, 200.0, 0.0, np.nan, 1.0], rtol=1e-9)
    assert items["detected"].tolist() == [True, False, True, False, True, True]
    assert items["tiny_denominator"].tolist() == [False, False, True, False, True, False]
    assert items["zero_denominator"].tolist() == [False, False, False, False, True, False]
    assert items["margin"].round(9).tolist() == [0.4, -0.1, 0.1, 0.0, 0.2, 0.6]


def test_perturbation_table_by_hand_and_checked_only():
    table = sv.perturbation_table(sv.item_table(FRAME, WIDE)).set_index("perturbation")
    neg, ant = table.loc["critical_id8_negation"], table.loc["critical_id7_antonym"]
    assert neg["n"] == 3 and neg["checked"] == 2 and neg["tiny_denominators"] == 1
    assert neg["detection_accuracy"] == pytest.approx(2 / 3)
    assert neg["sensitivity_ratio"] == pytest.approx((0.5 - 0.25 + 200) / 3)
    assert ant["n_ratio"] == 2 and ant["zero_denominators"] == 1
    assert ant["sensitivity_ratio"] == pytest.approx((0.0 + 1.0) / 2)
    only = sv.perturbation_table(sv.item_table(FRAME, WIDE), checked_only=True).set_index("perturbation")
    assert only.loc["critical_id8_negation", "n"] == 2
    assert only.loc["critical_id8_negation", "sensitivity_ratio"] == pytest.approx((0.5 + 200) / 2)
    # the same numbers as the run summary the CLI prints
    summary = kind_of(PERTURBATION).summarize(FRAME, WIDE.reset_index(), "strict", checked_only=False)
    stored = sv.summary_table(summary).set_index("perturbation")
    for col in ("n", "checked", "detection_accuracy", "sensitivity_ratio", "tiny_denominators"):
        assert stored[col].tolist() == table.loc[stored.index, col].tolist()


def test_cell_items_filters_and_sorts_most_sensitive_first():
    items = sv.item_table(FRAME, WIDE)
    neg = sv.cell_items(items, "critical_id8_negation")
    assert neg["id"].tolist() == [3, 1, 2]  # ratios 200, .5, -.25
    assert sv.cell_items(items, "critical_id8_negation", show="missed")["id"].tolist() == [2]
    assert sv.cell_items(items, "critical_id8_negation", show="tiny denominator")["id"].tolist() == [3]
    assert sv.cell_items(items, "critical_id8_negation", show="not checked")["id"].tolist() == [2]
    assert sv.cell_items(items, "critical_id8_negation", checked_only=True)["id"].tolist() == [3, 1]
    assert sv.cell_items(items, "critical_id7_antonym")["id"].tolist()[-1] == 2  # undefined ratio last
    with pytest.raises(ValueError, match="unknown item filter"):
        sv.cell_items(items, "critical_id8_negation", show="wrong")


def test_labels_and_order_follow_severity_then_demetr_id():
    assert sv.short_label("critical_id8_negation") == "negation"
    assert sv.short_label("base_id33_shuffle_trans") == "shuffle translation"
    assert sv.short_label("minor_id22_adj_adv_removed") == "adjective / adverb removed"
    stems = [
        "minor_id15_case",
        "base_id33_empty",
        "critical_id10_numbers_replaced",
        "major_id3_hypernym",
        "critical_id8_negation",
    ]
    assert sv.perturbation_order(stems) == [
        "critical_id8_negation",
        "critical_id10_numbers_replaced",
        "major_id3_hypernym",
        "minor_id15_case",
        "base_id33_empty",
    ]


def test_published_columns_and_matrix():
    pub = sv.published_columns(load_reference())
    assert len(pub) == 132 and pub["published"].all() and set(pub["model"]) == set(sv.PUBLISHED_MODELS)
    cell = pub.set_index(["model", "perturbation"])["value"]
    assert cell[("all-mpnet-base-v2", "critical_id8_negation")] == 0.14  # docs/REFERENCE.md
    assert cell[("NegMPNet", "critical_id8_negation")] == 0.65
    assert cell[("NegMPNet", "critical_id7_antonym")] == 0.24
    table = sv.perturbation_table(sv.item_table(FRAME, WIDE))
    ratio = sv.model_matrix({"toy": table}, pub, sv.RATIO)
    rows, cols = sv.matrix_axes(ratio)
    assert cols == [("toy", False)] + [(m, True) for m in sv.PUBLISHED_MODELS] and len(rows) == 33
    same = sv.model_matrix({"NegMPNet": table}, pub)  # a run named like a published model stays apart
    assert sv.matrix_axes(same)[1][0] == ("NegMPNet", False) and sv.matrix_axes(same)[1][-1] == ("NegMPNet", True)
    toy = ratio[ratio["model"] == "toy"].set_index("perturbation")
    assert toy.loc["critical_id7_antonym", "value"] == pytest.approx(0.5)
    assert toy.loc["critical_id7_antonym", "ci_low"] <= 0.5 <= toy.loc["critical_id7_antonym", "ci_high"]
    acc = sv.model_matrix({"toy": table}, pub, sv.ACCURACY)
    assert set(acc["model"]) == {"toy"}  # published ratios never mix with accuracies
    assert acc.set_index("perturbation").loc["critical_id7_antonym", "value"] == pytest.approx(2 / 3)
    with pytest.raises(ValueError):
        sv.model_matrix({"toy": table}, pub, "f1")


def test_critical_focus_ranks_negation_among_the_critical_files():
    pub = sv.published_columns(load_reference())
    focus = sv.critical_focus(sv.model_matrix({}, pub))
    summary = sv.focus_summary(focus).set_index("model")
    # NegBLEURT Fig. 4: NegMPNet's negation 0.65 is its most sensitive critical file, antonym 0.24 its second
    assert summary.loc["NegMPNet", "negation"] == 0.65 and summary.loc["NegMPNet", "negation_rank"] == "1 of 13"
    assert summary.loc["NegMPNet", "antonym_rank"] == "2 of 13"
    assert set(focus["group"]) == set(sv.FOCUS_GROUPS)
    assert (focus["perturbation"].str.startswith("critical_")).all()


def test_cannot_distribution_by_hand():
    items = pd.DataFrame(
        {
            "pair_id": list("abcdef"),
            "source": ["s1", "s1", "s1", "s2", "s2", "s2"],
            "label": [1, 1, 0, 1, 1, 1],
            "sentence1": "x",
            "sentence2": "y",
            "similarity": [0.2, 0.4, 0.9, 0.5, 0.5, 0.8],
        }
    )
    dist = sv.cannot_distribution({"m": items}).set_index("source")
    assert dist.loc["s1", "n"] == 2 and dist.loc["s1", "mean"] == pytest.approx(0.3)
    assert dist.loc["s2", "median"] == pytest.approx(0.5) and dist.loc["s2", "mean"] == pytest.approx(0.6)
    assert dist.loc["s1", "ci_low"] >= 0.2 and dist.loc["s1", "ci_high"] <= 0.4
    para = sv.cannot_distribution({"m": items}, "paraphrase")
    assert para["source"].tolist() == ["s1"] and para["mean"].tolist() == [0.9]


def test_metric_spec_gives_bi_encoders_cosine_on_similarity_datasets_only():
    from negviz.evaluation.runner import metric_spec

    mini = ModelSpec.parse("all-MiniLM-L6-v2")
    assert metric_spec(mini, PERTURBATION_KIND).opts == {"similarity": "cosine"}
    assert metric_spec(mini, SENTENCE_PAIRS_KIND).opts == {"similarity": "cosine"}
    assert metric_spec(mini, PAIRS_KIND) == mini  # NevIR keeps the dot product
    dot = ModelSpec.parse("all-MiniLM-L6-v2[similarity=dot]")
    assert metric_spec(dot, PERTURBATION_KIND) == dot  # the user's choice wins
    for name in ("tfidf", "bm25", "maxsim-all-MiniLM-L6-v2"):
        assert metric_spec(ModelSpec.parse(name), PERTURBATION_KIND) == ModelSpec.parse(name)


def test_demetr_run_records_cosine_and_matches_its_stored_summary(tmp_path, tiny_model_dir, score_cache):
    from negviz.datasets import load
    from negviz.evaluation.runner import run_eval
    from negviz.store import Store

    with Store(f"sqlite:///{tmp_path / 'r.sqlite'}") as store:
        model = ModelSpec.make(str(tiny_model_dir("bi-encoder")), "bi-encoder")
        res = run_eval(model, DatasetSpec.make("demetr", limit=2), store=store, cache=score_cache)
        assert res.record.model_spec["options"] == {"similarity": "cosine"}
        assert "similarity=cosine" in sv.spec_label(res.record.model_spec)
        run = store.runs(dataset="demetr").iloc[0].to_dict()
        frame = load("demetr").frame
        items = sv.item_table(frame, store.scores_wide(run["run_id"]))
        stored = sv.stored_table(run)
        fresh = sv.perturbation_table(items)
        assert len(stored) == len(fresh) == 35 and stored["perturbation"].tolist() == fresh["perturbation"].tolist()
        for col in ("n", "checked", "detection_accuracy", "sensitivity_ratio", "tiny_denominators"):
            np.testing.assert_allclose(stored[col].astype(float), fresh[col].astype(float), equal_nan=True)
        empty = fresh.set_index("perturbation").loc["base_id33_empty"]
        assert empty["sensitivity_ratio"] == pytest.approx(1.0)  # h == e: every ratio is 1
        assert sv.stored_table(run, checked_only=True) is None  # recomputed, not the stored summary
        checked = sv.perturbation_table(items, checked_only=True)
        assert (checked["n"] == checked["checked"]).all()


# ---------------------------------------------------------------- own sentence


def test_own_sentence_scores_with_tfidf_by_hand(score_cache):
    from negviz.evaluation.catalog import load_scorer

    scorer = load_scorer("tfidf", cache=score_cache)
    ref, cand = "The new bridge opened to traffic.", "The new bridge opened for traffic."
    edits = perturb.perturb_all(cand, ["antonym", "noun_removed"])
    table, errors = sv.own_sentence_table({"tfidf": scorer}, ref, cand, edits)
    assert errors == {} and table["perturbation"].tolist() == ["antonym", "noun_removed"]
    t = scorer.score([ref], [cand])[0]
    e = scorer.score([ref], ["."])[0]
    h = scorer.score([ref], [edits["antonym"].edited])[0]
    row = table.set_index("perturbation").loc["antonym"]
    assert e == 0.0 and row["score_empty"] == 0.0  # "." has no terms
    assert row["ratio"] == pytest.approx((t - h) / (t - e)) and row["detected"] == (t > h)


def test_own_sentence_table_reports_a_failing_model_and_keeps_the_others(score_cache):
    from negviz.evaluation.catalog import load_scorer

    class Broken:
        def score(self, queries, docs):
            raise RuntimeError("no weights here")

    edits = perturb.perturb_all("The new bridge opened.", ["antonym"])
    table, errors = sv.own_sentence_table(
        {"tfidf": load_scorer("tfidf", cache=score_cache), "broken": Broken()},
        "The new bridge opened.",
        "The new bridge opened.",
        edits,
    )
    assert set(table["model"]) == {"tfidf"} and "no weights here" in errors["broken"]


# ---------------------------------------------------------------- figures


def test_tiny_denominator_constant_is_the_metrics_one():
    assert metrics.TINY_DENOMINATOR == 1e-3  # the page's caption says |t - e| < 0.001


def test_the_own_sentence_table_reads_in_words(score_cache):
    from negviz.evaluation.catalog import load_scorer

    cand = "The New Bridge opened for traffic."
    edits = perturb.perturb_all(cand, ["antonym", "full_lower"])
    table, _ = sv.own_sentence_table(
        {"tfidf": load_scorer("tfidf", cache=score_cache)}, "The bridge opened.", cand, edits
    )
    shown = sv.own_sentence_shown(table)
    assert shown["perturbation"].tolist() == ["antonym", "full lower"]  # not the rule key full_lower
    assert set(shown["DEMETR severity"]) <= {"critical", "major", "minor", "base"}
    assert set(shown["detected (t > h)"]) <= {"yes", "no"}
    assert not [c for c in shown.columns if "_" in c]  # headers in words
