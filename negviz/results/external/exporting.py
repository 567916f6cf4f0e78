"""A stored run written in a standard layout: ``negviz export-run RUN_ID PATH --format ...``.

- ``parquet`` (default): negviz's portable run file (Store.export_run), which `negviz import-runs`
  loads back with its whole provenance.
- ``csv``: a pairs-style run's scores as ``item_id, query_slot, doc_slot, score``, the layout
  `negviz import-scores` reads, so a run round-trips (negviz.results.external.score_files).
- ``trec``: a corpus run as a TREC run file (``qid Q0 docid rank score tag``, best first per
  query); ``qrels`` also writes the matching qrels (d+ relevant, d− judged not relevant) and
  ``qrels_excluded`` the qrels with d− as the relevant document (ExcluIR's R@k of d−, so ΔR@1
  and ΔMRR@10 can be computed by trec_eval or ir_measures too).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

import pandas as pd

from negviz.core.errors import NegvizError
from negviz.core.kinds import DatasetKind, as_kind
from negviz.core.output_files import write_files
from negviz.results.external import trec
from negviz.results.external.score_files import slot_names
from negviz.store.record import EVAL, RETRIEVAL

FORMATS = ("parquet", "csv", "trec")


def export_run(
    store,
    run_id: str,
    path: str | os.PathLike,
    fmt: str = "parquet",
    *,
    qrels=None,
    qrels_excluded=None,
    dataset: str | None = None,
) -> list[Path]:
    """Write run ``run_id`` (a run id, a unique prefix of 8+ characters, or a model name with
    ``dataset``) to ``path`` in ``fmt``; returns the files written. Through write_files: never
    over a store or a device, and the run with its qrels all together or not at all."""
    from negviz.evaluation.run_choice import resolve_run

    if fmt not in FORMATS:
        raise NegvizError(f"unknown export format {fmt!r}; use one of {', '.join(FORMATS)}")
    if fmt != "trec" and (qrels or qrels_excluded):
        raise NegvizError("--qrels goes with --format trec")
    run_id = resolve_run(store.runs(status=None), run_id, dataset)
    if fmt == "parquet":
        return [store.export_run(run_id, path)]
    record = store.get_run(run_id)
    scores = store.scores(run_id)
    if fmt == "csv":
        if record.kind != EVAL:
            raise NegvizError(
                f"run {run_id} is {_a(record.kind)} run; --format csv writes a pairs-style evaluation's scores "
                "(a corpus run: --format trec)"
            )
        return write_files({path: _text(score_csv(record.dataset_kind, scores))}, "the run file")
    if record.kind != RETRIEVAL:
        raise NegvizError(
            f"run {run_id} is {_a(record.kind)} run; --format trec writes a corpus retrieval run "
            "(a pairs-style evaluation: --format csv)"
        )
    files = {path: _text(*trec.run_lines(hit_frame(scores), record.model_name))}
    if qrels or qrels_excluded:
        pos, neg = judged_docs(record)
        if qrels:
            files[qrels] = _text(*trec.qrels_lines(_judgements(pos, neg)))
        if qrels_excluded:
            files[qrels_excluded] = _text(*trec.qrels_lines((q, d, 1) for q, d in neg))
    if len({Path(p).expanduser().resolve() for p in files}) < len(files):
        raise NegvizError("the run and its qrels need different file names")
    return write_files(files, "the run file" if len(files) == 1 else "the run and qrels files")


def _a(word: str) -> str:
    return f"an {word}" if word[:1] in "aeiou" else f"a {word}"


def score_csv(kind: DatasetKind | str, scores: pd.DataFrame) -> str:
    """The scores in import-scores' by-id layout (CSV text)."""
    by_slot = {slot: pair for pair, slot in slot_names(as_kind(kind)).items()}  # a stored run's kind name, or the kind
    out = pd.DataFrame(
        {
            "item_id": scores["item_id"].astype(str),
            "query_slot": scores["slot"].map(lambda s: by_slot[s][0]),
            "doc_slot": scores["slot"].map(lambda s: by_slot[s][1]),
            "score": scores["score"].map(repr),  # every digit: a round trip keeps each score exactly
        }
    )
    return out.to_csv(index=False)


def hit_frame(scores: pd.DataFrame) -> pd.DataFrame:
    """A corpus run's retrieved documents: query_id, rank, doc_id, score, best first per query."""
    from negviz.evaluation.retrieval.evaluate import HIT, parse_hit

    hits = scores[scores["slot"].str.startswith(HIT)]
    parsed = [parse_hit(s) for s in hits["slot"]]
    out = pd.DataFrame(
        {
            "query_id": hits["item_id"].astype(str).to_numpy(),
            "rank": [r for r, _ in parsed],
            "doc_id": [d for _, d in parsed],
            "score": hits["score"].to_numpy(),
        }
    )
    return out.sort_values(["query_id", "rank"], kind="stable").reset_index(drop=True)


def judged_docs(record) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(query id, d+ id) and (query id, d− id) of a corpus run's queries."""
    from negviz.datasets import load
    from negviz.evaluation.retrieval.corpus import load_corpus
    from negviz.evaluation.retrieval.evaluate import query_doc_ids

    ds = load(record.dataset)
    corpus = load_corpus(str(record.options.get("corpus") or "offline"))
    if record.options.get("corpus_hash") and corpus.hash != record.options["corpus_hash"]:
        raise NegvizError(
            f"the corpus {corpus.name!r} here is not the one this run retrieved from (hash {corpus.hash}, the run's "
            f"{record.options['corpus_hash']}); the qrels cannot be written"
        )
    pos, neg = query_doc_ids(ds.frame, corpus)
    qids = ds.frame["query_id"].astype(str).tolist()
    return list(zip(qids, pos)), list(zip(qids, neg))


def _judgements(pos, neg) -> Iterable[tuple[str, str, int]]:
    for (q, d), (_, e) in zip(pos, neg):
        yield q, d, 1
        yield q, e, 0


def _text(*parts: str):
    """A writer of ``parts`` as one UTF-8 text file (for write_files)."""

    def write(tmp: Path) -> None:
        with open(tmp, "w", encoding="utf-8", newline="") as fh:
            fh.writelines(parts)

    return write
