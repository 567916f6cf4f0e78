"""negviz.analyses.inspector: the inspector's item list over four hand-made ExcluIR-style items:
per-model verdicts, the item table, every filter, the sort orders, previous / next and position."""

import pandas as pd
import pytest

from negviz.analyses import inspector as ins
from negviz.core.kinds import EXCLUSION_KIND, SENTENCE_PAIRS_KIND

IDS = ["10", "2", "3", "1"]  # dataset order; natural order is 1, 2, 3, 10
FRAME = pd.DataFrame({"query_id": IDS, "query": "q", "pos_doc": "p", "neg_doc": "n"})
# pos - neg margins: 10 -> 1 (correct), 2 -> -1 (wrong), 3 -> 0 (tie), 1 -> 2 (correct)
WIDE = pd.DataFrame({"pos": [2.0, 1.0, 1.0, 3.0], "neg": [1.0, 2.0, 1.0, 1.0]}, index=IDS)
TYPES = pd.DataFrame(
    {"item_id": IDS, "type": ["affixal", "implicit", "affixal", "affixal"], "cue": ["un", "never", "not", "no"]}
)
ANNOTATIONS = pd.DataFrame({"item_id": ["2", "2", "3"], "annotator": ["ana", "ben", "ben"]})


@pytest.fixture(scope="module")
def items():
    return ins.item_table(EXCLUSION_KIND, FRAME, TYPES, ANNOTATIONS, "ana")


@pytest.fixture(scope="module")
def verdicts():
    return ins.verdict_table(EXCLUSION_KIND, FRAME, {"A": (WIDE, "strict")})


def test_verdict_options_list_the_kinds_failures_or_only_any():
    assert ins.verdict_options(EXCLUSION_KIND) == ["any", "correct", "failed", "wrong", "tie"]
    assert ins.verdict_options(SENTENCE_PAIRS_KIND) == ["any"]  # a similarity, no right or wrong


def test_model_verdicts_keep_dataset_order_and_leave_out_unscored_items():
    got = ins.model_verdicts(EXCLUSION_KIND, FRAME, WIDE.loc[["1", "10"]])
    assert got["item_id"].tolist() == ["10", "1"]
    assert got["category"].tolist() == ["correct", "correct"] and got["margin"].tolist() == [1.0, 2.0]
    assert ins.stack_verdicts({}).empty


def test_item_table_counts_annotators_and_the_natural_order(items):
    assert items["item_id"].tolist() == IDS
    assert items["cue"].tolist() == ["un", "never", "not", "no"]
    assert items["annotators"].tolist() == [0, 2, 1, 0] and items["mine"].tolist() == [False, True, False, False]
    assert items["order"].tolist() == [3, 1, 2, 0]
    assert ins.options(items, "negation_type") == ["affixal", "implicit"]  # most frequent first


def test_natural_key_compares_digit_runs_as_numbers():
    assert sorted(["10-2", "2-3", "2-10", "b", "a1"], key=ins.natural_key) == ["2-3", "2-10", "10-2", "a1", "b"]


@pytest.mark.parametrize(
    "filters, expected",
    [
        (ins.Filters(), ["1", "2", "3", "10"]),
        (ins.Filters(negation_type="affixal"), ["1", "3", "10"]),
        (ins.Filters(cue="NEVER"), ["2"]),
        (ins.Filters(annotated="annotated"), ["2", "3"]),
        (ins.Filters(annotated="not annotated"), ["1", "10"]),
        (ins.Filters(annotated="not annotated by me"), ["1", "3", "10"]),
        (ins.Filters(model="A", verdict="failed"), ["2", "3"]),
        (ins.Filters(model="A", verdict="tie"), ["3"]),
        (ins.Filters(model="A", margin_min=0.0, margin_max=1.0), ["3", "10"]),
        (ins.Filters(model="A", sort="margin"), ["2", "3", "10", "1"]),
        (ins.Filters(model="A", sort="margin desc"), ["1", "10", "3", "2"]),
        (ins.Filters(sort="margin"), ["1", "2", "3", "10"]),  # no model: no margin to sort by
    ],
)
def test_filter_items_applies_each_filter_and_sort(items, verdicts, filters, expected):
    assert ins.filter_items(items, verdicts, filters) == expected


def test_listing_shows_the_filtered_items_with_one_models_verdict(items, verdicts):
    got = ins.listing(items, verdicts, ["3", "1"], "A")
    assert got["item_id"].tolist() == ["3", "1"] and got["category"].tolist() == ["tie", "correct"]  # in words
    assert "mine" not in got and "order" not in got
    assert got["negation_type"].tolist() == ["Affixal", "Affixal"]  # the type's label, not its key


def test_neighbours_and_position_in_a_filtered_list():
    ids = ["1", "3", "10"]
    assert ins.neighbours(ids, "3") == ("1", "10")
    assert ins.neighbours(ids, "1") == (None, "3") and ins.neighbours(ids, "10") == ("3", None)
    assert ins.neighbours(ids, "2") == (None, "1")  # not listed: "next" is the first
    assert ins.neighbours([], None) == (None, None)
    assert ins.position(ids, "10") == "3 of 3"
    assert ins.position(ids, "2") == "3 items, this one not among them"
