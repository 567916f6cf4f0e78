"""negviz.datasets.base: the option, split and name checks every loader shares, the limit (the
first items in file order; per perturbation for DEMETR-style sets), and one item as its kind's
typed record (Dataset.item)."""

import dataclasses

import pandas as pd
import pytest

from negviz.core.errors import NegvizError
from negviz.core.kinds import CORPUS_KIND, PAIRS_KIND, PERTURBATION_KIND, DatasetKind
from negviz.core.schema import DatasetSpec
from negviz.datasets import Dataset, load
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
    assert apply_limit(pairs, PAIRS_KIND, 2)["pair_id"].tolist() == ["a", "b"]
    assert apply_limit(pairs, PAIRS_KIND, None) is pairs
    perturbed = pd.DataFrame({"perturbation": ["neg", "neg", "neg", "ant", "ant"], "item_id": [1, 2, 3, 1, 2]})
    got = apply_limit(perturbed, PERTURBATION_KIND, 2)
    assert list(zip(got["perturbation"], got["item_id"])) == [("neg", 1), ("neg", 2), ("ant", 1), ("ant", 2)]


@pytest.mark.parametrize("name", ["nevir", "excluir", "demetr", "cannot", "corpus"])
def test_an_item_of_every_shipped_kind_is_its_kinds_typed_record(name):
    if name == "corpus":  # the shipped corpus is read by retrieval: its documents as a Dataset here
        from negviz.evaluation.retrieval.corpus import load_corpus

        docs = load_corpus("offline").frame.head(3)
        ds = Dataset(DatasetSpec.make("offline"), CORPUS_KIND, docs, "offline corpus", "data/corpus", "mixed")
    else:
        ds = load(DatasetSpec.make(name, limit=3))
    ids = ds.kind.item_ids(ds.frame)
    item = ds.item(ids.iloc[1])
    assert type(item) is ds.kind.item_type and item.kind is ds.kind and item.item_id == ids.iloc[1]
    row = ds.frame.iloc[1].to_dict()
    for column in ds.kind.columns:  # the kind's columns are fields, the rest is metadata
        value = getattr(item, column) if column != "item_id" else item.meta["item_id"]  # DEMETR's own id
        assert value == row[column]
    assert item.as_row() == row and set(item.meta) == set(row) - set(ds.kind.columns) | (
        {"item_id"} & set(ds.kind.columns)
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        item.item_id = "other"


def test_an_unknown_item_is_refused_naming_the_dataset_and_a_close_id():
    ds = load("nevir")
    with pytest.raises(
        NegvizError, match=r"dataset 'nevir' has no item '1230-9' \(it has 1,383 pairs\)\. Did you mean '1230-"
    ):
        ds.item("1230-9")


def test_the_item_index_is_built_once_per_frame(monkeypatch):
    ds = load(DatasetSpec.make("nevir", limit=5))
    built = []
    real = DatasetKind.item_ids
    monkeypatch.setattr(DatasetKind, "item_ids", lambda kind, frame: built.append(len(frame)) or real(kind, frame))
    ids = real(ds.kind, ds.frame)
    assert [ds.item(i).item_id for i in ids] == list(ids) and built == [5]  # five items, one index
    ds.frame = ds.frame.head(2)  # a loader that swaps the frame (a limit) gets a new index
    assert ds.item(ids.iloc[1]).item_id == ids.iloc[1] and built == [5, 2]
    with pytest.raises(NegvizError, match="has no item"):
        ds.item(ids.iloc[4])
