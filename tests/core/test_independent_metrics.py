"""negviz's metrics checked against independent libraries, not against themselves.

- The corpus retrieval summaries (R@1, R@5, R@10, MRR@10 of d+ and d−, and their deltas) of every
  shipped ``excluir-corpus-offline`` run are recomputed by ``ir_measures`` (trec_eval through
  pytrec_eval for R@k, MS MARCO's official script for RR@k) from the run's stored ranked lists.
- Nominal Krippendorff's alpha is checked against the ``krippendorff`` package on seeded random
  label matrices with missing values.
"""

from __future__ import annotations

import functools
from pathlib import Path

import ir_measures
import krippendorff
import numpy as np
import pandas as pd
import pytest
from ir_measures import RR, R

from negviz.analyses.agreement import krippendorff_alpha
from negviz.core.paths import DATA_DIR
from negviz.datasets import load as load_dataset
from negviz.evaluation.retrieval.corpus import load_corpus
from negviz.evaluation.retrieval.evaluate import HIT, parse_hit, query_doc_ids
from negviz.store import portable

TOL = 1e-9
CORPUS_RUNS = sorted((DATA_DIR / "runs").glob("excluir-corpus-offline__*.parquet"))
# negviz's summary key -> the ir_measures measure of the same quantity (one relevant document per
# query, so recall at k is "the document is in the top k"; RR@10 is 0 past rank 10).
MEASURES = {"r1": R @ 1, "r5": R @ 5, "r10": R @ 10, "mrr10": RR @ 10}


def test_corpus_runs_are_shipped():
    assert len(CORPUS_RUNS) >= 6, [p.name for p in CORPUS_RUNS]


@functools.cache
def _queries(dataset: str, corpus_name: str, corpus_hash: str) -> tuple[list[str], list[str], list[str]]:
    """query ids, d+ ids and d− ids (corpus doc ids), as run_corpus_eval finds them."""
    corpus = load_corpus(corpus_name)
    assert corpus.hash == corpus_hash, "the shipped run was made on another version of the corpus"
    frame = load_dataset(dataset).frame
    pos_ids, neg_ids = query_doc_ids(frame, corpus)
    return frame["query_id"].astype(str).tolist(), pos_ids, neg_ids


def _ranked_lists(scores: pd.DataFrame) -> dict[str, dict[str, float]]:
    """{query_id: {doc_id: score}} for ir_measures, from the run's hit slots.

    The score given to ir_measures is -rank, the stored rank, not the model's score: negviz breaks
    score ties by corpus position, trec_eval by doc id, so feeding the raw scores could reorder
    tied documents. Scoring by -rank makes each list's order exactly negviz's stored order, which
    isolates the metric computation (what this test checks) from tie-breaking."""
    run: dict[str, dict[str, float]] = {}
    hits = scores[scores["slot"].str.startswith(HIT)]
    for qid, slot in zip(hits["item_id"], hits["slot"]):
        rank, doc_id = parse_hit(slot)
        docs = run.setdefault(str(qid), {})
        assert doc_id not in docs, f"{qid}: {doc_id} retrieved twice"
        docs[doc_id] = -float(rank)
    return run


@pytest.mark.parametrize("path", CORPUS_RUNS, ids=[p.stem.split("__", 1)[1] for p in CORPUS_RUNS])
def test_corpus_run_summary_matches_ir_measures(path: Path):
    record = portable.read_record(path)
    summary = record.summary
    dataset = record.dataset_spec["name"]
    assert record.dataset_spec.get("limit") is None and record.dataset_spec.get("split") == "test"
    query_ids, pos_ids, neg_ids = _queries(dataset, record.options["corpus"], record.options["corpus_hash"])
    scores = portable.read_scores(path)
    assert set(scores["item_id"]) == set(query_ids) and summary["n"] == len(query_ids)

    run = _ranked_lists(scores)
    # Every query counts in negviz's means, also one that retrieved nothing. ir_measures scores a
    # qrels query absent from the run as 0 (test_ir_measures_counts_queries_without_run_rows), so
    # the qrels below, one entry per query, fix the denominator at n.
    run_10 = {q: {d: s for d, s in docs.items() if s >= -10} for q, docs in run.items()}
    got: dict[str, float] = {}
    for role, targets in (("pos", pos_ids), ("neg", neg_ids)):
        qrels = {q: {d: 1} for q, d in zip(query_ids, targets)}  # d+ (or d−) is the relevant document
        values = ir_measures.calc_aggregate(list(MEASURES.values()), qrels, run)
        for name, measure in MEASURES.items():
            got[f"{name}_{role}"] = values[measure]
            assert summary[f"{name}_{role}"] == pytest.approx(values[measure], abs=TOL), f"{name}_{role}"
        # MRR@10 a second way: trec_eval's recip_rank over each list cut to its top 10. (ir_measures'
        # pytrec_eval provider has no RR@k: called directly with RR@10 it silently ignores the
        # cutoff, so calc_aggregate above routes RR@10 to MS MARCO's script; the cut does it here.)
        trec_rr = ir_measures.pytrec_eval.calc_aggregate([RR], qrels, run_10)[RR]
        assert summary[f"mrr10_{role}"] == pytest.approx(trec_rr, abs=TOL)
    assert summary["delta_r1"] == pytest.approx(got["r1_pos"] - got["r1_neg"], abs=TOL)
    assert summary["delta_mrr10"] == pytest.approx(got["mrr10_pos"] - got["mrr10_neg"], abs=TOL)


def test_ir_measures_counts_queries_without_run_rows():
    """What the corpus test relies on: a query with qrels but no run rows scores 0 and counts."""
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}}
    run = {"q1": {"a": -1.0, "x": -2.0}, "q2": {"x": -1.0, "y": -2.0, "b": -3.0}}
    values = ir_measures.calc_aggregate([R @ 1, R @ 5, RR @ 10, RR @ 2], qrels, run)
    assert values[R @ 1] == pytest.approx(1 / 3)
    assert values[R @ 5] == pytest.approx(2 / 3)
    assert values[RR @ 10] == pytest.approx((1 + 1 / 3) / 3)
    assert values[RR @ 2] == pytest.approx(1 / 3)  # the cutoff is honoured (rank 3 scores 0)


# ---------------------------------------------------------------- Krippendorff's alpha
def _labels(seed: int, coders: int, units: int, missing: float, categories: int, agree: float) -> np.ndarray:
    """coders x units of category codes (floats), NaN where missing. Each unit has a true label
    that a coder copies with probability ``agree``, else labels at random (agree 0: pure noise)."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, categories, units)
    noise = rng.integers(0, categories, (coders, units))
    codes = np.where(rng.random((coders, units)) < agree, truth, noise).astype(float)
    codes[rng.random((coders, units)) < missing] = np.nan
    return codes


def _units(codes: np.ndarray) -> pd.DataFrame:
    """negviz's layout: units x coders of string labels, NaN where missing (as units_table)."""
    names = np.array(["sentential", "affixal", "implicit", "lexical", "other"])
    frame = pd.DataFrame(codes.T, columns=[f"coder{i}" for i in range(codes.shape[0])])
    return frame.map(lambda v: v if pd.isna(v) else str(names[int(v)]))


CASES = [  # seed, coders, units, missing share, categories, agreement
    (0, 2, 10, 0.2, 2, 0.0),
    (1, 2, 40, 0.2, 3, 0.6),
    (2, 3, 25, 0.2, 3, 0.0),
    (3, 3, 60, 0.3, 4, 0.7),
    (4, 4, 100, 0.2, 5, 0.5),
    (5, 5, 200, 0.4, 3, 0.8),
    (6, 6, 15, 0.5, 2, 0.3),
    (7, 8, 300, 0.2, 4, 0.9),
    (8, 3, 500, 0.6, 5, 0.4),
    (9, 2, 1000, 0.1, 2, 0.95),
]


@pytest.mark.parametrize(("seed", "coders", "units", "missing", "categories", "agree"), CASES)
def test_alpha_matches_krippendorff_package(seed, coders, units, missing, categories, agree):
    codes = _labels(seed, coders, units, missing, categories, agree)
    assert np.isnan(codes).any()
    expected = krippendorff.alpha(reliability_data=codes, level_of_measurement="nominal")
    assert np.isfinite(expected)
    assert krippendorff_alpha(_units(codes)) == pytest.approx(float(expected), abs=TOL)


def test_alpha_on_the_packages_worked_example():
    """The krippendorff package's documented example (3 coders, 15 units): nominal alpha 0.691358."""
    nan = np.nan
    codes = np.array(
        [
            [nan, nan, nan, nan, nan, 3, 4, 1, 2, 1, 1, 3, 3, nan, 3],
            [1, nan, 2, 1, 3, 3, 4, 3, nan, nan, nan, nan, nan, nan, nan],
            [nan, nan, 2, 1, 3, 4, 4, nan, 2, 1, 1, 3, 3, nan, 4],
        ]
    )
    units = pd.DataFrame(codes.T)  # numeric labels work as well: each value is its own category
    assert krippendorff_alpha(units) == pytest.approx(0.691358, abs=1e-6)
    assert krippendorff_alpha(units) == pytest.approx(
        float(krippendorff.alpha(reliability_data=codes, level_of_measurement="nominal")), abs=TOL
    )
