"""negviz.evaluation.summaries: a run's summary per dataset kind, its headline number and the per-pair
verdict table, on hand-made scores."""

import pandas as pd
import pytest

from negviz.evaluation.summaries import headline, pair_verdict_table, summarize
from negviz.core.kinds import EXCLUSION_KIND, PAIRS_KIND, PERTURBATION_KIND, SENTENCE_PAIRS_KIND

# Two NevIR pairs. p1: q1 prefers d1 (.9 > .1) and q2 prefers d2 (.8 > .2): correct.
# p2: q1 prefers d1 (.6 > .4), q2 ties (.5 = .5): wrong under the strict rule, right under MTEB's.
PAIR_FRAME = pd.DataFrame(
    {
        "pair_id": ["p1", "p2"],
        "q1": ["a", "b"],
        "d1": ["c", "d"],
        "q2": ["e", "f"],
        "d2": ["g", "h"],
        "topic": ["x", "y"],
    }
)
PAIR_SCORES = pd.DataFrame(
    [
        (item, slot, score)
        for item, values in {"p1": (0.9, 0.1, 0.2, 0.8), "p2": (0.6, 0.4, 0.5, 0.5)}.items()
        for slot, score in zip(("q1_d1", "q1_d2", "q2_d1", "q2_d2"), values)
    ],
    columns=["item_id", "slot", "score"],
)


def test_summarize_pairs_counts_a_tie_as_wrong_under_the_strict_rule():
    summary = summarize(PAIRS_KIND, PAIR_FRAME, PAIR_SCORES)
    assert (summary["metric"], summary["n"], summary["paired_accuracy"]) == ("paired_accuracy", 2, 0.5)
    assert summary["paired_accuracy_other_tie_rule"] == 1.0 and summary["ties"]["q2"] == 1
    assert headline(summary) == ("paired_accuracy", 0.5)


def test_pair_verdict_table_keeps_metadata_and_adds_scores_and_verdicts():
    table = pair_verdict_table(PAIR_FRAME, PAIR_SCORES)
    assert table["pair_id"].tolist() == ["p1", "p2"] and table["topic"].tolist() == ["x", "y"]
    assert "q1" not in table.columns  # texts left out, scores in
    assert table["q2_d2"].tolist() == [0.8, 0.5] and table["correct"].tolist() == [True, False]
    assert table["margin1"].tolist() == pytest.approx([0.8, 0.2])


def test_summarize_exclusion_is_right_rank():
    frame = pd.DataFrame({"query_id": ["a", "b"], "query": ["q"] * 2, "pos_doc": ["p"] * 2, "neg_doc": ["n"] * 2})
    scores = pd.DataFrame({"item_id": ["a", "a", "b", "b"], "slot": ["pos", "neg"] * 2, "score": [0.7, 0.2, 0.1, 0.3]})
    summary = summarize(EXCLUSION_KIND, frame, scores)
    assert (summary["metric"], summary["right_rank"], summary["ties"]) == ("right_rank", 0.5, 0)


def test_perturbation_summary_orders_by_severity_and_headlines_negation():
    # t = m(ref, candidate), h = m(ref, perturbed), e = m(ref, "."): ratio (t - h) / (t - e).
    frame = pd.DataFrame(
        {
            "item_id": [1, 1],
            "perturbation": ["minor_id14_word_swap", "critical_id8_negation"],
            "severity": ["minor", "critical"],
            "reference": ["r", "r"],
            "candidate": ["c", "c"],
            "perturbed": ["x", "y"],
            "checked": [True, True],
        }
    )
    values = {"minor_id14_word_swap:1": (0.9, 0.8, 0.1), "critical_id8_negation:1": (0.9, 0.5, 0.1)}
    scores = pd.DataFrame(
        [(i, s, v) for i, vs in values.items() for s, v in zip(("candidate", "perturbed", "empty"), vs)],
        columns=["item_id", "slot", "score"],
    )
    summary = summarize(PERTURBATION_KIND, frame, scores)
    assert [p["perturbation"] for p in summary["perturbations"]] == ["critical_id8_negation", "minor_id14_word_swap"]
    assert summary["perturbations"][1]["sensitivity_ratio"] == pytest.approx(0.1 / 0.8)
    name, value = headline(summary)
    assert name == "sensitivity_ratio (negation)" and value == pytest.approx(0.4 / 0.8)


def test_sentence_pairs_summary_gives_the_mean_similarity_overall_and_per_source():
    # CANNOT's label 1 = a negation, 0 = a paraphrase; a negation-aware model gives negations less.
    frame = pd.DataFrame(
        {
            "pair_id": ["a", "b", "c"],
            "sentence1": ["s"] * 3,
            "sentence2": ["t"] * 3,
            "label": [1, 0, 1],
            "source": ["wiki", "wiki", "news"],
        }
    )
    scores = pd.DataFrame({"item_id": ["a", "b", "c"], "slot": ["sim"] * 3, "score": [0.2, 0.8, 0.5]})
    summary = summarize(SENTENCE_PAIRS_KIND, frame, scores)
    assert summary["metric"] == "mean_similarity" and summary["mean_similarity"] == pytest.approx(0.5)
    assert (summary["n_negated"], summary["n_paraphrase"]) == (2, 1)
    # Ranks of the similarities (1, 3, 2) against "is a paraphrase" (0, 1, 0 ranked 1.5, 3, 1.5):
    # deviations (-1, 1, 0) and (-.5, 1, -.5), so rho = 1.5 / (sqrt(2) * sqrt(1.5)) = sqrt(3) / 2.
    assert summary["spearman_paraphrase"] == pytest.approx(3**0.5 / 2)
    by_source = {s["source"]: s for s in summary["sources"]}
    assert list(by_source) == ["news", "wiki"]
    assert by_source["wiki"]["mean_similarity"] == pytest.approx(0.5) and by_source["news"]["n"] == 1


def test_items_of_is_the_whole_datasets_size_for_a_run_over_its_first_items():
    """The N of "n of N": an import records it; a run limited to its first items (the shipped
    SmolLM2 run over NevIR's first 100 pairs) is measured against the dataset it was cut from,
    per group for a kind limited by group (DEMETR: the first 2 items of each of 35 perturbations)."""
    from negviz.evaluation.summaries import items_of

    nevir = {"name": "nevir", "split": "test", "limit": 100, "options": {}}
    assert items_of({}, nevir) == 1383
    assert items_of({"items_of": 50}, {"name": "nevir"}) == 50  # an import says it itself
    assert items_of({}, {**nevir, "limit": None}) is None and items_of(None, None) is None
    assert items_of({}, {"name": "demetr", "split": "test", "limit": 2}) == 35000
    assert items_of({}, {"name": "no-such-dataset-here", "limit": 3}) is None  # unknown: no N claimed
