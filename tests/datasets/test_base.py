"""negviz.datasets.base: the option, split and name checks every loader shares, and the limit (the
first items in file order; per perturbation for DEMETR-style sets)."""

import pandas as pd
import pytest

from negviz.core.errors import NegvizError
from negviz.core.schema import PAIRS, PERTURBATION, DatasetSpec
from negviz.datasets.base import apply_limit, check_split, choose, list_option


def test_list_option_takes_a_comma_list_or_a_sequence():
    assert list_option(" a, b ,,c ") == ["a", "b", "c"]
    assert list_option(("x", " y", "")) == ["x", "y"]


def test_choose_answers_an_unknown_name_with_the_close_ones():
    assert choose("source", ["glue"], ["glue", "sem"]) == ["glue"]
    with pytest.raises(NegvizError, match="unknown source 'glu'. Did you mean 'glue'\\? Known: glue, sem."):
        choose("source", ["glue", "glu"], ["glue", "sem"])


def test_check_split_lists_the_datasets_splits():
    check_split(DatasetSpec.make("nevir", split="test"), ["test", "train"])
    with pytest.raises(NegvizError, match="has no split 'dev'; its splits: test, train"):
        check_split(DatasetSpec.make("nevir", split="dev"), ["test", "train"])


def test_apply_limit_keeps_the_first_items_of_every_perturbation():
    pairs = pd.DataFrame({"pair_id": ["a", "b", "c"]})
    assert apply_limit(pairs, PAIRS, 2)["pair_id"].tolist() == ["a", "b"]
    assert apply_limit(pairs, PAIRS, None) is pairs
    perturbed = pd.DataFrame({"perturbation": ["neg", "neg", "neg", "ant", "ant"], "item_id": [1, 2, 3, 1, 2]})
    got = apply_limit(perturbed, PERTURBATION, 2)
    assert list(zip(got["perturbation"], got["item_id"])) == [("neg", 1), ("neg", 2), ("ant", 1), ("ant", 2)]
