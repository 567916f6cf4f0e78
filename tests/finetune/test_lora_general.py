"""LoRA fine-tuning shipped as adapters (negviz.finetune.lora, delta kind "lora"), and the
per-epoch retrieval figure without negation (negviz.finetune.general)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from negviz import finetune as ft
from negviz.finetune import general
from negviz.scorers.delta import assemble, read_meta, save_delta
from negviz.store import Store


def test_recall_at_10_by_hand():
    # Two questions, 12 candidates each; relevant candidates marked.
    rel_a = [False] * 12
    rel_a[0] = rel_a[11] = True  # one relevant at the bottom of the pool
    rel_b = [False] * 12
    rel_b[3] = True  # only one of the two supporting passages is in the pool
    scores_a = np.arange(12, 0, -1, dtype=float)  # pool order: relevant at ranks 1 and 12
    scores_b = np.zeros(12)  # all tied: pool order decides, rank 4 is inside the top 10
    got = general.recall_at([scores_a, scores_b], [rel_a, rel_b])
    assert got.tolist() == [0.5, 0.5]
    scores_a[11] = 100.0  # the bottom passage moves to the top: both inside
    assert general.recall_at([scores_a], [rel_a]).tolist() == [1.0]


def test_shipped_pools_are_bm25s_top_30_and_hold_the_gold_passages():
    pool = general.general_pool(5)
    live = general.bm25_pools(pool.questions)
    frame = pd.read_parquet(general.POOL_FILE)
    for qid, ids in zip(pool.question_ids, live):
        shipped = frame[frame["query_id"] == qid].sort_values("rank")["doc_id"].tolist()
        assert shipped == ids and len(ids) == general.POOL_DEPTH
    assert 0 < pool.bm25_recall <= pool.pool_recall <= 1
    assert all(len(c) == general.POOL_DEPTH for c in pool.candidates)


def test_measure_general_with_bm25_reproduces_bm25s_own_recall():
    """Re-ranking the pool with BM25 itself keeps BM25's order, so R@10 equals BM25's."""
    from negviz.catalog import load_scorer
    from negviz.datasets import load
    from negviz.retrieval.corpus import offline_corpus
    from negviz.retrieval.index import BM25Retriever

    pool = general.general_pool(5)
    corpus = offline_corpus()
    retriever = BM25Retriever(load_scorer("bm25"), corpus)
    per_question = [
        retriever.score_all(q)[[corpus.row_of[d] for d in ids]]
        for q, ids in zip(pool.questions, general.bm25_pools(pool.questions))
    ]
    assert general.recall_at(per_question, pool.relevant).mean() == pytest.approx(pool.bm25_recall)
    assert load("excluir").frame["question0"].iloc[0] == pool.questions[0]


def test_a_tiny_model_trained_with_lora_ships_its_adapters_and_comes_back_exactly(tiny_model_dir, tmp_path):
    from safetensors.torch import load_file
    from sentence_transformers import SentenceTransformer

    base = str(tiny_model_dir("bi-encoder"))
    rows = pd.DataFrame(
        {
            "anchor": [f"the cat {i} is here" for i in range(10)],
            "positive": [f"a cat {i} is here" for i in range(10)],
            "negative": [f"the cat {i} is not here" for i in range(10)],
        }
    )
    path = tmp_path / "t.csv"
    rows.to_csv(path, index=False)
    spec = ft.FinetuneSpec(
        base,
        train=str(path),
        train_kind="triplets",
        epochs=1,
        batch_size=4,
        lr=5e-2,
        train_layers=1,
        lora_rank=2,
        heldout_fraction=0.2,
        demetr_sample=3,
        general=3,
    )
    with Store(f"sqlite:///{tmp_path / 'runs.sqlite'}") as store:
        result = ft.run_finetune(spec, store, save_dir=tmp_path / "ckpt")
    ep = result.epochs
    assert result.status == "complete"
    assert ep["general_n"].tolist() == [3, 3] and ep["general_recall10"].between(0, 1).all()

    delta = save_delta(result.checkpoint, base, tmp_path / "delta", {"base_model": base})
    meta = read_meta(delta)
    factors = load_file(str(delta / "delta.safetensors"))
    assert meta["kind"] == "lora" and factors and all(k.endswith((".lora_a", ".lora_b")) for k in factors)
    assert all(".layer.1." in k for k in factors)  # the top layer only
    assert {v.shape[0] for k, v in factors.items() if k.endswith(".lora_a")} == {2}  # rank 2
    rebuilt = assemble(delta, base, tmp_path / "rebuilt")
    trained_w = load_file(f"{result.checkpoint}/model.safetensors")
    rebuilt_w = load_file(str(rebuilt / "model.safetensors"))
    assert all(np.array_equal(trained_w[k].numpy(), rebuilt_w[k].numpy()) for k in trained_w)
    texts = rows["anchor"].tolist() + rows["negative"].tolist()
    trained = SentenceTransformer(result.checkpoint, device="cpu").encode(texts)
    assert np.array_equal(trained, SentenceTransformer(str(rebuilt), device="cpu").encode(texts))
    assert not np.allclose(SentenceTransformer(base, device="cpu").encode(texts), trained)


def test_lora_options_are_checked():
    with pytest.raises(ValueError, match="lora_rank must be 0"):
        ft.FinetuneSpec(lora_rank=-1)
    with pytest.raises(ValueError, match="general must be 0"):
        ft.FinetuneSpec(general=-5)
