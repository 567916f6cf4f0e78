"""Sentence/negation and triplet fine-tuning (CANNOT, triplet files) and the NegMiniLM delta:
the CANNOT training layout, triplet-file errors, and a tiny model trained 2 steps, shipped as a
delta over its base and put back together with exactly the trained weights."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from negviz import finetune as ft
from negviz.datasets import load
from negviz.errors import DataValidationError
from negviz.finetune import data as fd
from negviz.scorers.delta import assemble, read_meta, save_delta
from negviz.schema import DatasetSpec
from negviz.store import Store

CANNOT_ROWS = pd.DataFrame(
    {
        "pair_id": ["a:1", "a:2", "a:3", "b:1"],
        "sentence1": ["You're not fat.", "You're not fat.", "You're not fat.", "It rains."],
        "sentence2": ["You're fat.", "You're thin.", "You're not thin.", "It does not rain."],
        "label": [1, 0, 1, 1],
        "source": ["sem_anto_neg"] * 3 + ["glue_diagnostic"],
    }
)


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


def test_a_tiny_model_trained_two_steps_comes_back_from_its_delta(tiny_model_dir, tmp_path):
    from sentence_transformers import SentenceTransformer

    base = str(tiny_model_dir("bi-encoder"))
    rows = pd.DataFrame(
        {
            "anchor": [f"the cat {i} is here" for i in range(10)],
            "positive": [f"a cat {i} is here" for i in range(10)],
            "negative": [f"the cat {i} is not here" for i in range(10)],
        }
    )
    spec = ft.FinetuneSpec(
        base,
        train=_triplets(tmp_path, rows),
        train_kind="triplets",
        epochs=1,
        batch_size=4,
        lr=1e-3,
        train_layers=1,
        heldout_fraction=0.2,
        demetr_sample=3,
    )
    with Store(f"sqlite:///{tmp_path / 'runs.sqlite'}") as store:
        result = ft.run_finetune(spec, store, save_dir=tmp_path / "ckpt")
    ep = result.epochs
    assert result.status == "complete" and ep.loc[1, "steps"] == 2  # 8 training triplets, 4 per batch
    assert {"cos_mean", "triplet_accuracy", "demetr_ratio"} <= set(ep.columns) and ep["paired_accuracy"].isna().all()

    delta = save_delta(result.checkpoint, base, tmp_path / "delta", {"base_model": base})
    tensors = read_meta(delta)["tensors"]
    assert tensors and all(".layer.1." in name for name in tensors)  # only the top layer moved
    rebuilt = assemble(delta, base, tmp_path / "rebuilt")
    texts = rows["anchor"].tolist() + rows["negative"].tolist()
    trained = SentenceTransformer(result.checkpoint, device="cpu").encode(texts)
    again = SentenceTransformer(str(rebuilt), device="cpu").encode(texts)
    assert np.array_equal(trained, again)
    assert not np.allclose(SentenceTransformer(base, device="cpu").encode(texts), trained)
    assert json.loads((rebuilt / "delta.json").read_text())["tensors"] == tensors


def test_shipped_negminilm_loads_offline_and_fixes_the_playground_pair():
    """The shipped delta over the packaged MiniLM: available offline, its recipe recorded, and on
    NevIR pair 1283-3 (the playground's default) it ranks both queries right where MiniLM fails q2."""
    from negviz.analyses import playground as pg
    from negviz.catalog import load_scorer
    from negviz.scorers.delta import read_meta
    from negviz.paths import DATA_DIR
    from negviz.scorers.loading import is_available_offline

    assert is_available_offline("negviz/negminilm")
    meta = read_meta(DATA_DIR / "models" / "negminilm")
    assert meta["spec"]["train"] == "cannot" and "dropout" in meta["data"]["positive"]
    assert (DATA_DIR / "models" / "negminilm" / "delta.safetensors").stat().st_size < 20 * 2**20
    row = load("nevir").frame.set_index("pair_id").loc["1283-3"]
    queries, docs = [row["q1"], row["q2"]], [row["d1"], row["d2"]]
    verdicts = {
        m: pg.grid_verdicts(pg.score_grid(load_scorer(m, device="cpu"), queries, docs))["correct"].tolist()
        for m in ("all-MiniLM-L6-v2", "negminilm")
    }
    assert verdicts == {"all-MiniLM-L6-v2": [True, False], "negminilm": [True, True]}
