"""negviz.scorers.colbert: ColBERT's encoding protocol on tiny random checkpoints ([Q]/[D]
markers, [MASK] query augmentation, masked document punctuation, truncation), options read from
artifact.metadata, the colbertv2.0 and v1 .dnn layouts, and an independent forward pass."""

from __future__ import annotations

import json

import numpy as np
import pytest

from negviz.core.errors import ModelUnavailableError
from negviz.core.schema import ModelSpec
from negviz.evaluation.catalog import load_scorer
from negviz.scorers.colbert import locate_checkpoint, read_metadata
from tests.scorers.test_late_interaction import DOC, LONG, OTHER_DOC, QUERY, check_bookkeeping
from tests.support.tiny.late import build_tiny_colbert, build_tiny_colbert_v1


@pytest.fixture(scope="module")
def colbert_dir(tmp_path_factory):
    return build_tiny_colbert(tmp_path_factory.mktemp("colbert") / "ckpt")


def colbert(path, **options):
    return load_scorer(ModelSpec.make(str(path), **options), device="cpu")


def test_read_metadata_flat_nested_or_absent(tmp_path):
    assert read_metadata(tmp_path) == {}
    (tmp_path / "artifact.metadata").write_text(json.dumps({"config": {"doc_maxlen": 64}, "other": 1}))
    assert read_metadata(tmp_path) == {"doc_maxlen": 64}  # ColBERT's own layout keeps it under "config"
    (tmp_path / "artifact.metadata").write_text(json.dumps({"similarity": "l2"}))
    assert read_metadata(tmp_path) == {"similarity": "l2"}


def test_locate_checkpoint_says_what_the_folder_lacks(tmp_path):
    with pytest.raises(ModelUnavailableError, match="no config.json and no .dnn file"):
        locate_checkpoint(tmp_path)
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(ModelUnavailableError, match=r"found: config\.json"):
        locate_checkpoint(tmp_path)  # a config but no weights


def test_colbert_options_come_from_artifact_metadata(tmp_path, colbert_dir):
    assert colbert(colbert_dir).options == {
        "similarity": "cosine",
        "query_maxlen": 32,
        "doc_maxlen": 180,
        "mask_punctuation": True,
        "attend_to_mask_tokens": False,
        "masked_doc_tokens": "exclude",
    }
    l2_dir = build_tiny_colbert(tmp_path / "l2", similarity="l2", doc_maxlen=64)
    assert colbert(l2_dir).options["similarity"] == "l2" and colbert(l2_dir).options["doc_maxlen"] == 64
    assert colbert(l2_dir, similarity="cosine").options["similarity"] == "cosine"  # the spec wins
    with pytest.raises(ValueError, match="similarity"):
        colbert(colbert_dir, similarity="dot")


def test_colbert_query_is_padded_with_mask_tokens_that_take_part(colbert_dir):
    scorer = colbert(colbert_dir)
    (q,) = scorer.token_embeddings([QUERY], "query")
    check_bookkeeping(q)
    n_words = len(scorer.model.tokenizer.tokenize(QUERY))
    assert len(q.tokens) == 32 and not q.truncated
    assert q.tokens[:2] == ["[CLS]", "[Q]"] and q.kinds[:2] == ["special", "marker"]
    assert q.tokens[n_words + 2] == "[SEP]"
    aug = [i for i, k in enumerate(q.kinds) if k == "mask_aug"]
    assert aug == list(range(n_words + 3, 32)) and {q.tokens[i] for i in aug} == {"[MASK]"}
    assert q.mask.all()  # [MASK]s, [CLS], [Q], [SEP] and query punctuation all take part
    np.testing.assert_allclose(np.linalg.norm(q.vectors, axis=1), 1.0, atol=1e-5)


def test_colbert_document_punctuation_is_masked_and_never_chosen(colbert_dir):
    scorer = colbert(colbert_dir)
    tm = scorer.token_matrix(QUERY + " , ; .", DOC)
    check_bookkeeping(tm.doc)
    assert tm.doc.tokens[:2] == ["[CLS]", "[D]"] and tm.doc.tokens[-1] == "[SEP]"
    punct = np.array([k == "punct" for k in tm.doc.kinds])
    assert punct.sum() == 4 and not tm.doc.mask[punct].any() and tm.doc.mask[~punct].all()
    assert not punct[tm.argmax].any()
    # The mask matters here: some row's unmasked maximum sits on a punctuation column.
    assert punct[tm.sim.argmax(axis=1)].any()
    np.testing.assert_array_equal(tm.row_max, tm.sim[:, ~punct].max(axis=1))


@pytest.mark.parametrize("masked", ["exclude", "zero"])
@pytest.mark.parametrize("similarity", ["cosine", "l2"])
def test_colbert_row_maxima_add_up_to_score(colbert_dir, similarity, masked):
    scorer = colbert(colbert_dir, similarity=similarity, masked_doc_tokens=masked)
    tm = scorer.token_matrix(QUERY, DOC)
    assert tm.sim.shape == (32, len(tm.doc.tokens)) and tm.similarity == similarity
    assert tm.row_max.sum() == tm.score
    assert tm.score == pytest.approx(scorer.score([QUERY], [DOC])[0], rel=1e-6)


def test_colbert_zero_mode_keeps_masked_tokens_as_zero_vectors(colbert_dir):
    """The ColBERT v0.2 code NevIR ran: D * mask, then a max over every column."""
    for similarity, floor in (("cosine", 0.0), ("l2", -1.0)):
        tm = colbert(colbert_dir, similarity=similarity, masked_doc_tokens="zero").token_matrix(QUERY, DOC)
        punct = np.array([k == "punct" for k in tm.doc.kinds])
        assert tm.doc.mask.all() and not tm.doc.vectors[punct].any()
        np.testing.assert_allclose(tm.sim[:, punct], floor, atol=1e-6)
        assert (tm.row_max >= floor - 1e-6).all()


def test_colbert_l2_is_affine_in_cosine_for_unit_vectors(colbert_dir):
    cos = colbert(colbert_dir, similarity="cosine").token_matrix(QUERY, DOC)
    l2 = colbert(colbert_dir, similarity="l2").token_matrix(QUERY, DOC)
    np.testing.assert_allclose(l2.sim, 2 * cos.sim - 2, atol=1e-5)
    np.testing.assert_array_equal(l2.argmax, cos.argmax)  # -||q-d||^2 = 2 cos - 2 is monotone


def test_colbert_truncation(colbert_dir):
    scorer = colbert(colbert_dir, doc_maxlen=12)
    (q,) = scorer.token_embeddings([LONG], "query")
    assert q.truncated and len(q.tokens) == 32 and "mask_aug" not in q.kinds and q.tokens[-1] == "[SEP]"
    long_doc, short_doc = scorer.token_embeddings([LONG, "the king"], "document")
    assert long_doc.truncated and len(long_doc.tokens) == 12 and long_doc.tokens[-1] == "[SEP]"
    assert not short_doc.truncated and short_doc.tokens == ["[CLS]", "[D]", "the", "king", "[SEP]"]
    exact = "the " * 9  # 9 words + [CLS] [D] [SEP] = 12 tokens: fits exactly
    assert not scorer.token_embeddings([exact.strip()], "document")[0].truncated


def test_colbert_vectors_match_an_independent_forward(tmp_path, colbert_dir):
    """Our tokenisation + loading against transformers' own loader and a hand-built input."""
    import torch
    from safetensors.torch import load_file
    from transformers import AutoModel, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(colbert_dir)
    bert = AutoModel.from_pretrained(colbert_dir).eval()  # strips the "bert." prefix itself
    linear = load_file(str(colbert_dir / "model.safetensors"))["linear.weight"]
    words = tok.convert_tokens_to_ids(tok.tokenize(QUERY))
    ids = [tok.cls_token_id, tok.convert_tokens_to_ids("[unused0]"), *words, tok.sep_token_id]
    attention = [1] * len(ids) + [0] * (32 - len(ids))
    ids += [tok.mask_token_id] * (32 - len(ids))
    with torch.no_grad():
        hidden = bert(input_ids=torch.tensor([ids]), attention_mask=torch.tensor([attention])).last_hidden_state
        expected = torch.nn.functional.normalize(hidden[0] @ linear.T, dim=-1).numpy()
    (q,) = colbert(colbert_dir).token_embeddings([QUERY], "query")
    np.testing.assert_allclose(q.vectors, expected, atol=1e-5)
    # The same checkpoint saved as pytorch_model.bin loads to the same vectors.
    bin_dir = build_tiny_colbert(tmp_path / "bin", weights="bin")
    (q_bin,) = colbert(bin_dir).token_embeddings([QUERY], "query")
    np.testing.assert_allclose(q_bin.vectors, expected, atol=1e-5)


def test_colbert_v1_dnn_checkpoint_loads(tmp_path, colbert_dir):
    """ColBERTv1 as NevIR used it: one v0.2 .dnn file; config and tokenizer from its base BERT."""
    v1_dir = build_tiny_colbert_v1(tmp_path / "v1")  # the same seed, so the same weights
    v1 = colbert(v1_dir, family="colbert", similarity="l2")
    assert v1.options["query_maxlen"] == 32 and v1.options["similarity"] == "l2"
    expected = colbert(colbert_dir, similarity="l2").token_matrix(QUERY, DOC)
    got = v1.token_matrix(QUERY, DOC)
    assert got.doc.tokens == expected.doc.tokens
    np.testing.assert_allclose(got.sim, expected.sim, atol=1e-6)
    (v1_dir / "colbert-2.dnn").write_bytes(b"")
    with pytest.raises(ModelUnavailableError, match="2 .dnn files"):
        colbert(v1_dir, family="colbert").score([QUERY], [DOC])


def test_colbert_scores_each_text_once_and_in_any_batch(colbert_dir, score_cache):
    # A cache of its own: texts other tests encoded must not count as encoded here.
    scorer = load_scorer(ModelSpec.make(str(colbert_dir), similarity="l2"), device="cpu", cache=score_cache)
    queries, docs = [QUERY, QUERY, "the city"], [DOC, OTHER_DOC, DOC]
    calls, encoded = [], []
    encode = scorer.token_embeddings  # record what the real encoder is asked for

    def recording(texts, role="document", progress=None):
        encoded.extend((role, t) for t in texts)
        return encode(texts, role, progress) if progress else encode(texts, role)

    scorer.token_embeddings = recording
    together = scorer.score(queries, docs, progress=lambda done, total, desc: calls.append((done, total)))
    assert sorted(encoded) == sorted(
        [("query", QUERY), ("query", "the city"), ("document", DOC), ("document", OTHER_DOC)]
    )  # each unique text once per role
    assert calls[-1] == (3, 3)  # progress in unique pairs
    scorer.token_embeddings = encode
    alone = [scorer.score([q], [d])[0] for q, d in zip(queries, docs)]
    np.testing.assert_allclose(together, alone, rtol=1e-5)
    for text, role in ((DOC, "document"), ("", "query"), ("", "document")):
        check_bookkeeping(scorer.token_embeddings([text], role)[0])
