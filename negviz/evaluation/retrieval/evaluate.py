"""Evaluate a model by retrieval over a corpus (ExcluIR's main protocol) and store the run.

Queries come from an exclusion dataset (the ExcluIR loader, or a user file of kind exclusion).
Their d+ and d− are found in the corpus by id: columns ``pos_doc_id``/``neg_doc_id`` when the
file has them, else ExcluIR's ``pos_corpus_index``/``neg_corpus_index`` (the paragraph's index in
ExcluIR's corpus.json, which the offline corpus keeps as doc_id), else by exact text.

Stored as a run of kind ``retrieval`` (so pages that read pairwise ``eval`` runs never see it),
dataset name ``<dataset>@<corpus>``, with per query (item_id = query_id) the slots
``pos_rank``/``neg_rank`` (1-based rank in the top k, 0 = not retrieved) and one slot per
retrieved document, ``hit:<rank, 3+ digits>:<doc_id>``, holding its score. The corpus name,
size and hash are in the run's options (its provenance) and part of its key.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pandas as pd

from negviz.core.cache import ScoreCache
from negviz.core.device import check_batch_size, requested_device
from negviz.core.errors import DataValidationError
from negviz.core.schema import EXCLUSION, DatasetSpec, ModelSpec, corpus_run_dataset
from negviz.datasets import load as load_dataset
from negviz.evaluation.catalog import load_scorer
from negviz.evaluation.retrieval.corpus import Corpus, load_corpus
from negviz.evaluation.retrieval.index import retriever_for
from negviz.evaluation.retrieval.plan import AUTO, EncodingPlan, check_plan, plan_corpus_run
from negviz.evaluation.retrieval.rank_metrics import retrieval_summary
from negviz.evaluation.runner import run_key, scored_record, store_once
from negviz.evaluation.summaries import items_of
from negviz.scorers.base import Progress, Scorer, no_progress
from negviz.store.record import RETRIEVAL

DEFAULT_TOP_K = 100
HIT = "hit:"


def hit_slot(rank: int, doc_id: str) -> str:
    return f"{HIT}{rank:03d}:{doc_id}"


def parse_hit(slot: str) -> tuple[int, str]:
    rank, _, doc_id = slot[len(HIT) :].partition(":")
    return int(rank), doc_id


def query_doc_ids(frame: pd.DataFrame, corpus: Corpus) -> tuple[list[str], list[str]]:
    """The corpus ids of each query's d+ and d− (see the module doc for the lookup order)."""
    out = []
    for role in ("pos", "neg"):
        for column in (f"{role}_doc_id", f"{role}_corpus_index"):
            if column in frame.columns:
                ids = [str(int(v)) if isinstance(v, (int, np.integer)) else str(v) for v in frame[column]]
                break
        else:
            by_text = {t: d for d, t in zip(corpus.ids[::-1], corpus.texts[::-1])}  # first occurrence wins
            ids = [by_text.get(t, "") for t in frame[f"{role}_doc"]]
        missing = [i for i, d in enumerate(ids) if d not in corpus.row_of]
        if missing:
            row = missing[0]
            raise DataValidationError(
                f"{len(missing)} queries' {role} document is not in corpus {corpus.name!r} "
                f"(first: query {frame['query_id'].iat[row]!r}, doc id {ids[row]!r}); every d+ and d− must be in "
                f"the corpus (give ids in {role}_doc_id, or the exact text).",
                column=f"{role}_doc_id",
            )
        out.append(ids)
    return out[0], out[1]


def ranks_from_rows(rows: np.ndarray, targets: list[int]) -> np.ndarray:
    """1-based rank of each query's target row within its retrieved rows; 0 when absent."""
    ranks = np.zeros(len(targets), dtype=np.int64)
    for n, (row, target) in enumerate(zip(rows, targets)):
        hit = np.flatnonzero(row == target)
        ranks[n] = hit[0] + 1 if len(hit) else 0
    return ranks


def score_frame(query_ids, corpus: Corpus, rows, scores, pos_rank, neg_rank) -> pd.DataFrame:
    ids = corpus.ids
    records: list[tuple[str, str, float]] = []
    for qid, r, s, pr, nr in zip(query_ids, rows, scores, pos_rank, neg_rank):
        records.append((qid, "pos_rank", float(pr)))
        records.append((qid, "neg_rank", float(nr)))
        records += [(qid, hit_slot(k, ids[i]), float(v)) for k, (i, v) in enumerate(zip(r, s), 1)]
    return pd.DataFrame(records, columns=["item_id", "slot", "score"])


def dataset_queries(ds, spec: DatasetSpec) -> int:
    """How many queries the whole dataset of ``spec`` has: more than ``ds.n`` (``spec`` loaded)
    when its limit cut it (the plan takes a limited run's cheaper route:
    negviz.evaluation.retrieval.plan). The same count as a limited run's "n of N" (items_of)."""
    return items_of(None, spec.to_dict()) or ds.n


@dataclass
class CorpusEvalResult:
    record: Any
    summary: dict
    scores: pd.DataFrame | None
    reused: bool
    timings: dict
    note: str | None = None  # said to the user (negviz.evaluation.runner.store_once)


def run_corpus_eval(
    model: ModelSpec | str | Scorer,
    dataset: DatasetSpec | str,
    corpus: Corpus | str,
    *,
    top_k: int = DEFAULT_TOP_K,
    store=None,
    cache: ScoreCache | None = None,
    device: str | None = None,
    batch_size: int | None = None,
    progress: Progress = no_progress,
    force: bool = False,
    retriever=None,
    save: bool = True,
    plan: str = AUTO,
    codes=None,
    on_plan: Callable[[EncodingPlan], None] | None = None,
) -> CorpusEvalResult:
    """Retrieve each query's top k over ``corpus``, summarise and store (see the module doc).

    plan: "auto" (the default: a run over part of the dataset's queries takes the shipped codes'
    two-stage search where it encodes fewer texts, a run over all of them is exact), "exact" or
    "cheapest"; a two-stage run is stored under its own key: negviz.evaluation.retrieval.plan.
    on_plan: told the plan before the work starts (the CLI prints it). The plan and the texts
    encoded are in the summary (``encoding_plan``, ``encoded_texts``).
    ``save=False``: a stored run of the spec in ``store`` is reused, a computed one is not
    stored (negviz.evaluate)."""
    start = time.perf_counter()
    model = ModelSpec.parse(model) if isinstance(model, str) else model
    dataset = DatasetSpec(name=dataset) if isinstance(dataset, str) else dataset
    device = requested_device(device)  # the same cheap checks as run_eval, before any work
    check_batch_size(batch_size)
    check_plan(plan)
    if store is not None and save:
        store.check_writable()
    corpus = load_corpus(corpus) if isinstance(corpus, str) else corpus
    ds = load_dataset(dataset)
    if ds.kind.name != EXCLUSION:
        raise DataValidationError(f"corpus retrieval needs an exclusion dataset (query, d+, d−), not {ds.kind.name!r}.")
    pos_ids, neg_ids = query_doc_ids(ds.frame, corpus)
    if isinstance(model, Scorer):  # an object a notebook holds (negviz.evaluate)
        scorer = model
    else:
        scorer = load_scorer(
            model, device=device, cache=cache if cache is not None else ScoreCache(), batch_size=batch_size
        )
    retriever = retriever or retriever_for(scorer, corpus)

    def stored(retriever):  # (options, key, the stored run of that key or None)
        options = {"protocol": RETRIEVAL, "top_k": int(top_k), **corpus.provenance(), **retriever.describe()}
        key = run_key(scorer.spec, scorer.revision_id, ds.spec, options)
        return options, key, (store.find_run(key) if store is not None and not force else None)

    options, key, existing = stored(retriever)  # an exact stored run answers before any planning
    if existing is not None:
        return CorpusEvalResult(existing, existing.summary, None, True, {})
    queries = ds.frame["query"].tolist()
    encoded_before = getattr(scorer, "encoded", 0)
    plan_made, chosen = plan_corpus_run(
        scorer, corpus, queries, retriever, top_k, plan, codes, progress, dataset_queries(ds, dataset)
    )
    if chosen is not retriever:
        retriever = chosen
        options, key, existing = stored(retriever)
        if existing is not None:
            return CorpusEvalResult(existing, existing.summary, None, True, {})
    if on_plan is not None:
        on_plan(plan_made)

    t0 = time.perf_counter()
    retriever.build(progress)
    t1 = time.perf_counter()
    rows, scores = retriever.search(queries, top_k, progress)
    t2 = time.perf_counter()
    pos_rank = ranks_from_rows(rows, [corpus.row_of[d] for d in pos_ids])
    neg_rank = ranks_from_rows(rows, [corpus.row_of[d] for d in neg_ids])
    summary = retrieval_summary(pos_rank, neg_rank, top_k)
    timings = {"index_seconds": round(t1 - t0, 3), "search_seconds": round(t2 - t1, 3),
               "ms_per_query": round(1000 * (t2 - t1) / max(1, len(rows)), 3)}  # fmt: skip
    summary["timings"] = timings
    summary["encoding_plan"] = plan_made.describe()
    summary["encoded_texts"] = getattr(scorer, "encoded", 0) - encoded_before  # what the model computed
    frame = score_frame(ds.frame["query_id"].tolist(), corpus, rows, scores, pos_rank, neg_rank)
    record = scored_record(
        RETRIEVAL, key, scorer, ds, corpus_run_dataset(ds.spec.name, corpus.name), options, summary, start
    )
    if store is not None and save:  # a forced re-run replaces the stored run of the same spec
        stored, note = store_once(store, record, frame, replace=force)
        if note is not None:
            return CorpusEvalResult(stored, stored.summary, None, True, {}, note)
    return CorpusEvalResult(record, summary, frame, False, timings)
