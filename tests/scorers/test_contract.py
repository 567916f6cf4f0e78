"""The Scorer contract, written once and run for every registered model family.

Each family runs on its tiny offline checkpoint (tests/conftest.py), loaded through the
same ``negviz.evaluation.catalog.load_scorer`` as real models. A new family in ``FAMILIES`` gets these
tests for free; it only needs a tiny builder in ``TINY_BUILDERS``.
"""

from __future__ import annotations

import numpy as np
import pytest

from negviz.core.schema import ModelSpec
from negviz.evaluation.catalog import load_scorer
from negviz.scorers import runnable_families

QUERIES = [
    "who did not win the war?",
    "who won the war?",
    "which river is not in the city",
    "the king",
    "what music does the old king like, and why?",
    "who won the war?",
]
DOCS = [
    "The king won the war in 1914; his people did not.",
    "No river flows through the old city.",
    "The king won the war in 1914; his people did not.",
    "A new book about the king, the city and the river was first written many years after the war, "
    "when people who had no water and no music could not find the king or his old team again.",
    "Music.",
    "No river flows through the old city.",
]
DESCRIBE_KEYS = {"model", "family", "source", "revision", "options", "device"}


@pytest.fixture(params=list(runnable_families()))  # imported / python hold scores only
def family(request) -> str:
    return request.param


@pytest.fixture
def make(family, tiny_model_dir):
    """make(**kw): a fresh scorer of the family on CPU (kw: cache, batch_size)."""
    path = tiny_model_dir(family)
    spec = ModelSpec.make(str(path), family=family) if path else ModelSpec.make(family, family=family)

    def build(cache=None, batch_size=4):
        return load_scorer(spec, device="cpu", cache=cache, batch_size=batch_size)

    return build


def test_scores_are_one_finite_float64_per_pair(make):
    scores = make().score(QUERIES, DOCS)
    assert isinstance(scores, np.ndarray) and scores.dtype == np.float64 and scores.shape == (len(QUERIES),)
    assert np.isfinite(scores).all()


def test_empty_and_misaligned_inputs(make):
    scorer = make()
    assert make().score([], []).shape == (0,)
    with pytest.raises(ValueError, match="aligned"):
        scorer.score(QUERIES, DOCS[:-1])
    assert not scorer.loaded  # nothing to score: nothing loaded


def test_unknown_option_is_refused(family, make):
    scorer = make()
    with pytest.raises(ValueError, match="known options"):
        type(scorer)(scorer.spec.with_options(no_such_option=1), scorer.source, "cpu")


def test_same_call_twice_gives_the_same_scores(make):
    scorer = make()
    np.testing.assert_array_equal(scorer.score(QUERIES, DOCS), scorer.score(QUERIES, DOCS))


def test_batch_size_does_not_change_scores(make):
    # Padding must be masked out: a pair scored alone equals the pair scored in a batch.
    one = make(batch_size=1).score(QUERIES, DOCS)
    eight = make(batch_size=8).score(QUERIES, DOCS)
    np.testing.assert_allclose(one, eight, rtol=1e-5, atol=1e-5)


def test_permuting_pairs_permutes_scores(make):
    scores = make().score(QUERIES, DOCS)
    order = np.random.default_rng(0).permutation(len(QUERIES))
    permuted = make().score([QUERIES[i] for i in order], [DOCS[i] for i in order])
    np.testing.assert_allclose(permuted, scores[order], rtol=1e-5, atol=1e-5)


def test_duplicate_pairs_get_identical_scores(make):
    scores = make().score(QUERIES, DOCS)
    assert QUERIES[1] == QUERIES[5] and DOCS[1] == DOCS[5]
    assert scores[1] == scores[5]


def test_cached_scores_need_no_model(make, score_cache):
    first = make(cache=score_cache).score(QUERIES, DOCS)
    fresh = make(cache=score_cache)
    np.testing.assert_array_equal(fresh.score(QUERIES, DOCS), first)
    assert not fresh.loaded


class Interrupted(Exception):
    pass


def test_an_interrupted_call_resumes_from_its_checkpoints(make, score_cache):
    """Work reaches the cache chunk by chunk: a call that dies half-way (here a progress
    callback raising, as Ctrl-C would) leaves the finished chunks, and a rerun computes only the rest."""
    full = make()
    reference = full.score(QUERIES, DOCS)
    scorer = make(cache=score_cache, batch_size=2)
    if scorer.checkpoint_every is None:
        pytest.skip(f"{scorer.family} writes its cache once per call (cheap, or needs the whole call)")
    scorer.checkpoint_every = 2  # two items a checkpoint, so this small call has several

    def stop_in_second_chunk(done, total, desc):
        if done >= 4 and desc != "scored":
            raise Interrupted

    with pytest.raises(Interrupted):
        scorer.score(QUERIES, DOCS, stop_in_second_chunk)
    assert scorer.encoded == 2  # the first chunk reached the cache, the second died with the call
    again = make(cache=score_cache, batch_size=2)
    np.testing.assert_allclose(again.score(QUERIES, DOCS), reference, rtol=1e-5, atol=1e-5)
    assert again.encoded == full.encoded - 2 and again.encoded < full.encoded


def test_runs_on_the_requested_device_and_describes_itself(family, make):
    scorer = make()
    scorer.score(QUERIES[:2], DOCS[:2])
    info = scorer.describe()
    assert set(info) >= DESCRIBE_KEYS
    assert info["device"] == "cpu" and scorer.device == "cpu"
    assert info["family"] == family and info["options"] == scorer.options
    assert all(p.device.type == "cpu" for p in _torch_parameters(scorer.model))


def _torch_parameters(model):
    """Parameters of whatever a family keeps as its model (a module, or a tuple holding one)."""
    import sys

    if "torch" not in sys.modules:  # TF-IDF and BM25 never import torch
        return []
    import torch

    parts = model if isinstance(model, (tuple, list)) else getattr(model, "__dict__", {}).values()
    modules = [model] if isinstance(model, torch.nn.Module) else [p for p in parts if isinstance(p, torch.nn.Module)]
    return [p for m in modules for p in m.parameters()]
