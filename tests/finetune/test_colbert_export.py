"""negviz.finetune.colbert_export: a MaxSim checkpoint written in the ColBERT layout, on a tiny
random encoder. The colbert family loads it and scores every pair as the maxsim family scores the
original; artifact.metadata records the options and provenance. (After real MiniLM training:
tests/models/test_colbert_export.py.)"""

from __future__ import annotations

import json

import numpy as np
import pytest

from negviz.core.schema import ModelSpec
from negviz.evaluation.catalog import load_scorer
from negviz.finetune.colbert_export import colbert_metadata, save_colbert
from tests.support.tiny.late import build_tiny_encoder

QUERIES = ["who is not the king of the city?", "a good king", "the river"]
DOCS = ["The king, of the old city, was not a good king.", "a river, a war and a game.", "."]


@pytest.fixture(scope="module")
def encoder_dir(tmp_path_factory):
    return build_tiny_encoder(tmp_path_factory.mktemp("encoder") / "ckpt")


def test_the_colbert_layout_scores_as_the_maxsim_model(encoder_dir, tmp_path):
    provenance = {"base_model": "tiny", "run_id": "r1", "epoch": 2}
    out = save_colbert(encoder_dir, tmp_path / "colbert", {"max_length": 64}, provenance)
    maxsim = load_scorer(ModelSpec.make(str(encoder_dir), family="maxsim", max_length=64), device="cpu")
    colbert = load_scorer(ModelSpec.make(str(out), family="colbert"), device="cpu")
    queries = [q for q in QUERIES for _ in DOCS]
    docs = [d for _ in QUERIES for d in DOCS]
    np.testing.assert_allclose(colbert.score(queries, docs), maxsim.score(queries, docs), rtol=1e-5, atol=1e-5)
    meta = json.loads((out / "artifact.metadata").read_text())
    assert meta["doc_maxlen"] == meta["query_maxlen"] == 64 and meta["negviz"]["run_id"] == "r1"
    assert colbert.options["doc_maxlen"] == 64  # the family reads them back


def test_metadata_keeps_the_maxsim_encoding_and_only_cosine_is_exported(encoder_dir, tmp_path):
    options = {"similarity": "cosine", "max_length": 32, "mask_punctuation": True, "skip_special": False}
    meta = colbert_metadata(options, 8, {"base_model": "b", "spec": {"lr": 1}})
    assert meta["dim"] == 8 and meta["checkpoint"] == "b" and meta["query_maxlen"] == 32
    assert not meta["markers"] and not meta["mask_augmentation"] and meta["skip_special"] is False
    assert meta["negviz"]["maxsim_options"] == options and meta["negviz"]["spec"] == {"lr": 1}
    with pytest.raises(ValueError, match="cosine MaxSim"):
        save_colbert(encoder_dir, tmp_path / "l2", {"similarity": "l2"})
