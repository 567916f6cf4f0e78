"""negviz.scorers.maxsim: MaxSim over an encoder's last hidden states on a tiny random encoder
(masks, similarity by brute force, truncation, the empty-text fallback, where the transformer
files are), and over the bundled all-MiniLM-L6-v2 for real behaviour offline."""

from __future__ import annotations

import json

import numpy as np
import pytest

from negviz.core.errors import ModelUnavailableError
from negviz.core.schema import ModelSpec
from negviz.evaluation.catalog import load_scorer
from negviz.scorers.maxsim import transformer_folder
from tests.scorers.test_late_interaction import DOC, LONG, QUERY, check_bookkeeping
from tests.support.tiny.late import build_tiny_encoder


@pytest.fixture(scope="module")
def encoder_dir(tmp_path_factory):
    return build_tiny_encoder(tmp_path_factory.mktemp("encoder") / "ckpt")


def encoder_maxsim(path, **options):
    return load_scorer(ModelSpec.make(str(path), family="maxsim", **options), device="cpu")


def test_transformer_folder_follows_modules_json_then_the_old_layouts(tmp_path):
    with pytest.raises(ModelUnavailableError, match="no transformer model"):
        transformer_folder(tmp_path)
    (tmp_path / "0_Transformer").mkdir()
    (tmp_path / "0_Transformer" / "config.json").write_text("{}")
    assert transformer_folder(tmp_path) == tmp_path / "0_Transformer"
    (tmp_path / "config.json").write_text("{}")
    assert transformer_folder(tmp_path) == tmp_path  # the root wins over the old subfolder
    (tmp_path / "enc").mkdir()
    (tmp_path / "enc" / "config.json").write_text("{}")
    modules = [{"path": "", "type": "x.Normalize"}, {"path": "enc", "type": "sentence_transformers.models.Transformer"}]
    (tmp_path / "modules.json").write_text(json.dumps(modules))
    assert transformer_folder(tmp_path) == tmp_path / "enc"  # what modules.json names wins


def test_encoder_maxsim_masks(encoder_dir):
    tm = encoder_maxsim(encoder_dir).token_matrix(QUERY, DOC)
    for emb in (tm.query, tm.doc):
        check_bookkeeping(emb)
        assert emb.tokens[0] == "[CLS]" and emb.tokens[-1] == "[SEP]"
        assert emb.kinds[0] == emb.kinds[-1] == "special" and not emb.mask[[0, -1]].any()
    q_punct = [i for i, k in enumerate(tm.query.kinds) if k == "punct"]
    d_punct = np.array([k == "punct" for k in tm.doc.kinds])
    assert q_punct and tm.query.mask[q_punct].all()  # punctuation is masked on the document side only
    assert d_punct.any() and not tm.doc.mask[d_punct].any() and not d_punct[tm.argmax[tm.argmax >= 0]].any()
    assert (tm.argmax[[0, -1]] == -1).all() and tm.row_max.sum() == tm.score

    keep_all = encoder_maxsim(encoder_dir, skip_special=False, mask_punctuation=False).token_matrix(QUERY, DOC)
    assert keep_all.query.mask.all() and keep_all.doc.mask.all()


@pytest.mark.parametrize("similarity", ["cosine", "l2"])
def test_encoder_maxsim_score_and_similarity(encoder_dir, similarity):
    scorer = encoder_maxsim(encoder_dir, similarity=similarity)
    tm = scorer.token_matrix(QUERY, DOC)
    assert tm.row_max.sum() == tm.score
    assert tm.score == pytest.approx(scorer.score([QUERY], [DOC])[0], rel=1e-6)
    q, d = tm.query.vectors.astype(np.float64), tm.doc.vectors.astype(np.float64)
    if similarity == "l2":  # raw hidden states, brute force
        expected = -((q[:, None, :] - d[None, :, :]) ** 2).sum(-1)
    else:
        expected = (q / np.linalg.norm(q, axis=1, keepdims=True)) @ (d / np.linalg.norm(d, axis=1, keepdims=True)).T
    np.testing.assert_allclose(tm.sim, expected, rtol=1e-6, atol=1e-6)


def test_encoder_maxsim_truncation_and_empty_fallback(encoder_dir):
    scorer = encoder_maxsim(encoder_dir, max_length=8)
    long, short = scorer.token_embeddings([LONG, "the city"], "document")
    assert long.truncated and len(long.tokens) == 8 and long.tokens[-1] == "[SEP]"
    assert not short.truncated and short.tokens == ["[CLS]", "the", "city", "[SEP]"]
    # DEMETR's empty candidate "." has no word token: all its tokens take part instead.
    tm = scorer.token_matrix(QUERY, ".")
    assert tm.doc.tokens == ["[CLS]", ".", "[SEP]"] and tm.doc.mask.all() and np.isfinite(tm.score)


def test_encoder_maxsim_reads_the_0_transformer_layout(tmp_path, encoder_dir):
    nested = build_tiny_encoder(tmp_path / "st", layout="0_Transformer")
    assert (nested / "0_Transformer" / "config.json").is_file() and not (nested / "config.json").exists()
    scores = [encoder_maxsim(p).score([QUERY], [DOC])[0] for p in (encoder_dir, nested)]
    assert scores[0] == pytest.approx(scores[1], rel=1e-6)


@pytest.fixture(scope="module")
def minilm():
    return load_scorer("maxsim-all-MiniLM-L6-v2", device="cpu")


def test_minilm_maxsim_prefers_the_related_document(minilm):
    query = "Which river flows through the city of Paris?"
    related = "The Seine is the river that flows through Paris, the capital city of France."
    unrelated = "The violin is a string instrument that is played with a bow."
    related_score, unrelated_score = minilm.score([query, query], [related, unrelated])
    assert related_score > unrelated_score + 1.0
    tm = minilm.token_matrix(query, related)
    chosen = {tm.query.tokens[i]: tm.doc.tokens[j] for i, j in enumerate(tm.argmax) if j >= 0}
    assert chosen["paris"] == "paris" and chosen["river"] == "river"


def test_minilm_token_matrix_is_one_forward_pass_per_text(minilm):
    """The explorer's matrix for a 150-word document is two forward passes of the real model (the
    query's and the document's, every token at once), not one per token or per word. Its time
    against a plain forward of the same texts is benchmarks/bench_maxsim.py's."""
    words = ("The river does not flow north, and the old city was never built on its banks. " * 12).split()[:150]
    doc, query = " ".join(words), "Which rivers flow through the city?"
    _, model = minilm.model
    passes: list[tuple[int, ...]] = []  # the input_ids shape of each forward pass

    def count(_module, _args, kwargs, _output) -> None:
        passes.append(tuple(kwargs["input_ids"].shape))

    hook = model.register_forward_hook(count, with_kwargs=True)
    try:
        tm = minilm.token_matrix(query, doc)
    finally:
        hook.remove()
    assert not tm.doc.truncated and len(tm.doc.tokens) > 150
    assert len(passes) == 2, passes
    query_pass, doc_pass = passes
    assert query_pass[0] == doc_pass[0] == 1  # one text a pass
    assert query_pass[1] >= len(tm.query.tokens) and doc_pass[1] >= len(tm.doc.tokens), passes
