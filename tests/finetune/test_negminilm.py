"""The NegMiniLM delta, across training and shipping: a tiny model trained 2 steps on a triplet
file, shipped as a delta over its base (negviz.scorers.delta) and put back together with exactly
the trained weights, and the shipped NegMiniLM loading offline. (CANNOT and triplet-file data:
test_data.py.)"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from negviz import finetune as ft
from negviz.datasets import load
from negviz.scorers.delta import assemble, read_meta, save_delta
from negviz.store import Store
from tests.finetune.test_data import _triplets


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
        general=2,  # the general-retrieval check on 2 questions: its numbers are not this test's
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
    from negviz.core.paths import DATA_DIR
    from negviz.evaluation.catalog import load_scorer
    from negviz.scorers.delta import read_meta
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
