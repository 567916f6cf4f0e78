"""negviz.finetune.data: the training data of a fine-tuning run. NevIR's offline passage-disjoint
split, pairs and triplet files, CANNOT triplets and their held-out split, the Hub fallbacks that say
what to do offline, and the seeded batches and triplets a training step sees."""

from __future__ import annotations

import pandas as pd
import pytest

from negviz import finetune as ft
from negviz.core.errors import DataValidationError, NegvizError
from negviz.core.schema import DatasetSpec
from negviz.datasets import load
from negviz.finetune import data as fd

CANNOT_ROWS = pd.DataFrame(
    {
        "pair_id": ["a:1", "a:2", "a:3", "b:1"],
        "sentence1": ["You're not fat.", "You're not fat.", "You're not fat.", "It rains."],
        "sentence2": ["You're fat.", "You're thin.", "You're not thin.", "It does not rain."],
        "label": [1, 0, 1, 1],
        "source": ["sem_anto_neg"] * 3 + ["glue_diagnostic"],
    }
)


def test_offline_split_is_passage_disjoint_seeded_and_stated():
    d = ft.load_training_data(ft.FinetuneSpec(train="nevir-split"))
    assert not set(d.train["passage_id"]) & set(d.heldout["passage_id"])
    assert not (set(d.train["d1"]) | set(d.train["d2"])) & (set(d.heldout["d1"]) | set(d.heldout["d2"]))
    assert len(d.train) + len(d.heldout) + d.provenance["dropped_heldout_pairs"] == 1383
    assert 0.25 < len(d.heldout) / 1383 < 0.35
    assert d.note.startswith("offline split: NevIR test, passage-disjoint 70/30, seed 0, training items ")
    assert f"held-out items {len(d.heldout)}" in d.note
    again = ft.load_training_data(ft.FinetuneSpec(train="nevir-split"))
    assert again.heldout["pair_id"].tolist() == d.heldout["pair_id"].tolist()
    other = ft.load_training_data(ft.FinetuneSpec(train="nevir-split", seed=1))
    assert other.heldout["pair_id"].tolist() != d.heldout["pair_id"].tolist()
    assert d.dataset_name == "finetune:nevir-heldout"  # never "nevir": NevIR pages must not list it


def test_auto_falls_back_to_the_offline_split_and_hub_train_says_why():
    from negviz.core.errors import DatasetUnavailableError

    assert ft.load_training_data(ft.FinetuneSpec()).source == "nevir-split"  # HF_HUB_OFFLINE=1 in the tests
    with pytest.raises(DatasetUnavailableError, match="only the test split is available offline"):
        ft.load_training_data(ft.FinetuneSpec(train="nevir-train"))


def test_a_pairs_file_without_passage_ids_splits_by_pair(tmp_path):
    frame = pd.DataFrame(
        {
            "pair_id": [f"p{i}" for i in range(10)],
            "q1": [f"q1 {i}" for i in range(10)],
            "d1": [f"d1 {i}" for i in range(10)],
            "q2": [f"q2 {i}" for i in range(10)],
            "d2": [f"d2 {i}" for i in range(10)],
        }
    )
    path = tmp_path / "pairs.csv"
    frame.to_csv(path, index=False)
    d = ft.load_training_data(ft.FinetuneSpec(train=str(path)))
    assert (len(d.train), len(d.heldout)) == (7, 3)
    assert "split of pairs.csv, pair-disjoint 70/30, seed 0" in d.note
    assert d.provenance["file_hash"]


def test_batches_use_every_pair_once_seeded():
    pairs = [(f"q1{i}", f"d1{i}" * (i % 7 + 1), f"q2{i}", f"d2{i}") for i in range(37)]
    b = fd.batches(pairs, batch_size=8, seed=3)
    assert sorted(p for batch in b for p in batch) == sorted(pairs)
    assert all(1 <= len(batch) <= 4 for batch in b)
    assert b == fd.batches(pairs, batch_size=8, seed=3) and b != fd.batches(pairs, batch_size=8, seed=4)
    queries, docs, negatives = fd.triplets(pairs[:2])
    assert queries == ["q10", "q11", "q20", "q21"] and negatives == docs[2:] + docs[:2]


def test_hedge_triple_from_the_hub_offline_says_what_to_do(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert fd.HEDGE_TRIPLE == "hf:joey234/hedge_triple"
    with pytest.raises(NegvizError, match=r"joey234/hedge_triple \(train\) needs the Hugging Face Hub.*path instead"):
        fd.load_triplet_file(fd.HEDGE_TRIPLE)


def test_cannot_triplets_pair_each_sentence_with_itself_and_its_negation():
    t = fd.cannot_triplets(CANNOT_ROWS)
    assert t["item_id"].tolist() == ["a:1", "a:3", "b:1"]  # paraphrases (label 0) are not negatives
    assert (t["anchor"] == t["positive"]).all()
    assert t["negative"].tolist() == ["You're fat.", "You're not thin.", "It does not rain."]


def test_cannot_heldout_split_is_seeded_and_sentence_disjoint():
    train, held = (load(DatasetSpec.make("cannot", part)).frame for part in ("train", "heldout"))
    assert len(train) + len(held) == 25948 and 0.08 < len(held) / 25948 < 0.12
    assert not set(train["sentence1"]) & set(held["sentence1"])
    again = load(DatasetSpec.make("cannot", "heldout")).frame
    assert again["pair_id"].tolist() == held["pair_id"].tolist()


def test_cannot_training_data_records_what_the_positive_is():
    data = fd.load_training_data(ft.FinetuneSpec(train="cannot", limit_train=20, limit_heldout=5))
    assert data.kind == fd.TRIPLETS and len(data.train) == 20 and len(data.heldout) == 5
    assert "dropout" in data.provenance["positive"] and "negation" in data.provenance["hard_negative"]
    assert data.heldout_spec.split == "heldout" and "seeded sample 20" in data.note
    assert not set(data.train["anchor"]) & set(load(DatasetSpec.make("cannot", "heldout")).frame["sentence1"])


def _triplets(tmp_path, frame: pd.DataFrame, name="t.csv"):
    path = tmp_path / name
    frame.to_csv(path, index=False)
    return str(path)


def test_triplet_files_map_columns_and_fail_clearly(tmp_path):
    good = pd.DataFrame(
        {
            "premise": ["a b", "c d", "e f"],
            "hyp": ["a b c", "c d e", "e f g"],
            "contra": ["not a b", "not c d", "not e f"],
        }
    )
    path = _triplets(tmp_path, good)
    frame, _ = fd.load_triplet_file(path, "anchor=premise,positive=hyp,negative=contra")
    assert frame[["item_id", "anchor", "negative"]].values.tolist()[0] == ["1", "a b", "not a b"]
    with pytest.raises(DataValidationError, match="'anchor'.*Did you mean"):
        fd.load_triplet_file(
            _triplets(
                tmp_path,
                good.rename(columns={"premise": "anchr"})
                .assign(positive=good["hyp"], negative=good["contra"])
                .drop(columns=["hyp", "contra"]),
                "bad.csv",
            )
        )
    empty = good.assign(contra=["not a b", "", "not e f"])
    with pytest.raises(DataValidationError, match=r"row 2"):
        fd.load_triplet_file(_triplets(tmp_path, empty, "empty.csv"), "anchor=premise,positive=hyp,negative=contra")
    with pytest.raises(DataValidationError, match="a triplet file maps"):
        fd.load_triplet_file(path, "anchor=premise,query=hyp")


def test_group_split_holds_out_whole_passages_seeded():
    frame = pd.DataFrame({"pair_id": [f"p{i}" for i in range(6)], "passage_id": ["a", "a", "b", "c", "c", "d"]})
    train, held = fd.group_split(frame, 0.5, seed=0)
    # 4 passages, half held out: 2 passages, every pair of each on one side only
    assert len(set(held["passage_id"])) == 2 and not set(train["passage_id"]) & set(held["passage_id"])
    assert len(train) + len(held) == 6
    again, _ = fd.group_split(frame, 0.5, seed=0)
    assert again.equals(train)
    _, one = fd.group_split(frame, 0.01, seed=0)
    assert len(set(one["passage_id"])) == 1  # at least one passage held out, at least one trained on
    with pytest.raises(NegvizError, match="fewer than two passages"):
        fd.group_split(frame.assign(passage_id="a"), 0.5, seed=0)


def test_excluir_triplets_and_triplet_batches():
    rows = pd.DataFrame({"query_id": [7, 8], "query": ["q7", "q8"], "pos_doc": ["p7", "p8"], "neg_doc": ["n7", "n8"]})
    t = fd.excluir_triplets(rows)
    assert t.values.tolist() == [["7", "q7", "p7", "n7"], ["8", "q8", "p8", "n8"]]
    items = [(f"a{i}", f"p{i}", f"n{i}") for i in range(5)]
    b = fd.triplet_batches(items, batch_size=2, seed=1)
    assert [len(x) for x in b] == [2, 2, 1] and sorted(i for x in b for i in x) == items
    assert b == fd.triplet_batches(items, 2, seed=1) and b != fd.triplet_batches(items, 2, seed=2)


def test_every_offline_source_trains_on_the_dataset_it_declares_and_the_catalog_says_so(tmp_path):
    """One declaration per source (negviz.datasets.training) drives the loader, the held-out
    measure, `negviz finetune --help` and the catalog's record of what a checkpoint trained on."""
    import json

    from negviz.datasets.training import AUTO, NEVIR_TRAIN, SOURCES
    from negviz.evaluation.catalog import TRAINING_FILE, checkpoint_training
    from negviz.finetune.command import _HELP
    from negviz.finetune.run import _heldout_kind

    for source in SOURCES.values():
        assert source.name in _HELP["train"]
        folder = tmp_path / source.name
        folder.mkdir()
        (folder / TRAINING_FILE).write_text(json.dumps({"run_id": "r", "epoch": 1, "spec": {"train": source.name}}))
        # auto (a choice made when it runs): every dataset its choices draw on, never none
        drawn = [source.dataset] if source.dataset else sorted({SOURCES[c].dataset for c in source.choices})
        assert checkpoint_training(folder)["datasets"] == drawn and drawn
        if source.name in (AUTO, NEVIR_TRAIN):  # the Hub's NevIR train, or a choice made when it runs
            continue
        data = fd.load_training_data(ft.FinetuneSpec(train=source.name, limit_train=4, limit_heldout=4))
        assert data.heldout_spec.name == source.dataset and (data.kind == fd.TRIPLETS) == source.triplets
        assert _heldout_kind(data) == source.heldout_kind and len(data.train) == 4
