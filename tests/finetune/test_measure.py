"""negviz.finetune.measure: what each epoch measures. Pair cosines of a bi-encoder's embeddings
and of a MaxSim model's mean token vectors, against a direct computation, and ExcluIR's Right Rank
through the scorer's own exclusion path on two hand-made queries."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from negviz.evaluation.catalog import load_scorer
from negviz.finetune.measure import load_eval_scorer, pair_cosines, right_rank

D1 = ["The city is not old.", "a good king", "the river"]
D2 = ["The city is old.", "a bad king", "the river"]


def test_bi_encoder_pair_cosines_are_the_embeddings_cosines(tiny_model_dir):
    scorer = load_eval_scorer(tiny_model_dir("bi-encoder"), "bi-encoder", {}, "cpu")
    a, b = scorer.embed(D1).astype(np.float64), scorer.embed(D2).astype(np.float64)
    want = (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    got = pair_cosines(scorer, D1, D2)
    np.testing.assert_allclose(got, want, rtol=1e-5)
    assert got[2] <= 1.0 and got[2] == pytest.approx(1.0)  # the same text: 1, never past it


def test_maxsim_pair_cosines_pool_the_tokens_that_take_part(tiny_model_dir):
    scorer = load_eval_scorer(tiny_model_dir("maxsim"), "maxsim", {}, "cpu")
    toks = scorer.token_embeddings(D1 + D2, "document")
    pooled = np.stack([t.vectors[t.mask].mean(axis=0) for t in toks]).astype(np.float64)
    a, b = pooled[:3], pooled[3:]
    want = (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    np.testing.assert_allclose(pair_cosines(scorer, D1, D2), want, rtol=1e-5)


def test_right_rank_of_two_queries_by_hand():
    frame = pd.DataFrame(
        {
            "query_id": ["e1", "e2"],
            "query": ["red river", "blue lake"],
            "pos_doc": ["the red river", "a red river"],  # e1: d+ shares both words (right)
            "neg_doc": ["a blue lake", "the blue lake"],  # e2: d- shares both words (wrong)
        }
    )
    got = right_rank(load_scorer("bm25"), frame)
    assert got["right_rank"] == 0.5 and got["right_rank_n"] == 2
    assert got["right_rank_ci_low"] <= 0.5 <= got["right_rank_ci_high"]
