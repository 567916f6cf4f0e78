"""Store scores computed elsewhere as a run: ``negviz import-scores`` and the Import scores page.

The file is checked whole (negviz.results.external.score_files, .trec) before anything is written, then
the run and its scores are stored in one transaction (Store.save_run), so a refused or killed
import leaves no run. The run's model has the family ``imported`` and its spec the file's sha256:
the same file imported twice under one name is one run (the second import reuses it). What the run
records: the declared model name, the file's name and sha256, its layout, the optional URL or
paper, and, for a partial import, how many of the dataset's items it scores ("n of N").
"""

from __future__ import annotations

import hashlib
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np
import pandas as pd

from negviz.core.errors import DataValidationError, NegvizError
from negviz.core.limits import check_name, shown
from negviz.core.schema import EXCLUSION, DatasetSpec, ModelSpec
from negviz.results.external import score_files, trec
from negviz.scorers.external import IMPORTED

TREC_SUFFIXES = (".trec", ".run", ".txt")


@dataclass
class ImportResult:
    record: Any  # the stored (or reused) RunRecord
    reused: bool
    note: str | None = None


def check_model_name(name: str) -> str:
    """A declared model name: one line of text, not a catalog model's name (pages would take
    the imported scores for that model's)."""
    from negviz.evaluation.catalog import catalog_row

    text = check_name(name)
    if not text:
        raise NegvizError("give the model a name: what produced these scores, e.g. rank1-32b")
    row = catalog_row(text)
    if row is not None:
        raise NegvizError(
            f"{text!r} is a catalog model that negviz runs itself; name the imported scores differently "
            f"(e.g. {text}-external) so the two are never taken for each other"
        )
    return text


def sha256_of(handle: IO[bytes]) -> str:
    """sha256 of the whole file, read from its start; the handle is left at its start."""
    handle.seek(0)
    digest = hashlib.sha256()
    for block in iter(lambda: handle.read(1 << 20), b""):
        digest.update(block)
    handle.seek(0)
    return digest.hexdigest()


def is_trec(file_name: str) -> bool:
    return Path(file_name).suffix.lower() in TREC_SUFFIXES


def import_scores(
    handle: IO[bytes],
    file_name: str,
    dataset: str | DatasetSpec,
    model_name: str,
    *,
    store,
    source_url: str | None = None,
    allow_partial: bool = False,
    corpus: str | None = None,
) -> ImportResult:
    """Check ``handle`` (a binary file, seekable) as a score file for ``dataset`` and store it as
    one run. ``corpus``: the file is a TREC run of ``dataset``'s queries over that corpus."""
    from negviz.datasets import load

    start = time.perf_counter()
    name = check_model_name(model_name)
    url = _check_url(source_url)
    spec = DatasetSpec.make(dataset) if isinstance(dataset, str) else dataset
    ds = load(spec, store=store)
    store.check_writable()  # before the work: a read-only store is said now
    sha = sha256_of(handle)
    trec_file = is_trec(file_name)
    if corpus is None and trec_file:
        if ds.kind.name != EXCLUSION:
            raise DataValidationError(
                f"a TREC run file ranks a corpus for ExcluIR-style queries; {spec.name} holds other items. "
                "Import a CSV/JSONL/Parquet score file for it.",
                file=file_name,
            )
        corpus = "offline"
    if corpus is not None:
        if not trec_file:
            raise DataValidationError(
                "corpus retrieval scores are imported from a TREC run file (.trec, .run or .txt: "
                "'qid Q0 docid rank score tag').",
                file=file_name,
            )
        return _import_trec(handle, file_name, ds, corpus, name, sha, url, allow_partial, store, start)
    checked = score_files.read_scores(handle, file_name, ds, allow_partial=allow_partial)
    return _store_pairs(checked, file_name, ds, name, sha, url, store, start)


def _check_url(url: str | None) -> str | None:
    text = (url or "").strip()
    if not text:
        return None
    if len(text) > 500 or not re.match(r"^(https?://|doi:|arxiv:)\S+$", text, re.I):
        raise NegvizError(
            f"the source must be an http(s) URL, doi:... or arxiv:... of at most 500 characters (got {shown(text)})"
        )
    return text


def _spec(name: str, sha: str) -> ModelSpec:
    return ModelSpec.make(name, IMPORTED, sha[:16], sha256=sha)


def _provenance(file_name: str, sha: str, url: str | None, layout: str, rows: int, n: int, total: int) -> dict:
    out = {"file": Path(file_name).name, "sha256": sha, "layout": layout, "rows": rows, "items": n, "of": total}
    if url:
        out["source"] = url
    return out


def _store_pairs(checked, file_name, ds, name, sha, url, store, start) -> ImportResult:
    from negviz.evaluation.runner import run_key
    from negviz.evaluation.summaries import summarize
    from negviz.store import RunRecord

    kept = set(checked.items)
    frame = ds.frame[ds.kind.item_ids(ds.frame).isin(kept).to_numpy()].reset_index(drop=True)
    summary = summarize(ds.kind, frame, checked.scores)
    total = len(ds.frame)
    summary["imported"] = _provenance(file_name, sha, url, checked.layout, checked.rows, len(frame), total)
    if len(frame) < total:
        summary["items_of"] = total  # a partial import: every place its metric shows says "n of N"
    model = _spec(name, sha)
    options = {"tie_rule": "strict", "checked_only": False}
    record = RunRecord.from_specs(model, ds.spec, spec_key=run_key(model, model.revision, ds.spec, options))
    _fill(record, ds, len(frame), options, summary, start)
    return _save(store, record, checked.scores, ds)


def _fill(record, ds, n: int, options: dict, summary: dict, start: float, kind: str = "eval") -> None:
    from negviz.evaluation.runner import code_version

    record.kind, record.dataset_kind, record.n = kind, ds.kind.name, n  # the store holds the name
    record.options, record.summary = options, summary
    record.device, record.code_version = "imported", code_version()
    record.wall_seconds = time.perf_counter() - start
    summary["model_format"] = "scores imported from a file"


def _save(store, record, scores: pd.DataFrame, ds) -> ImportResult:
    from negviz.datasets.added import content_hash
    from negviz.evaluation.runner import store_once

    existing = store.find_run(record.spec_key)
    if existing is not None:
        return ImportResult(
            existing, True, f"this file was imported before under this name (run {existing.run_id}); it is kept"
        )
    stored, note = store_once(store, record, scores, added_sha256=content_hash(ds.spec))
    return ImportResult(stored, note is not None, note)


def _import_trec(handle, file_name, ds, corpus_name, name, sha, url, allow_partial, store, start) -> ImportResult:
    from negviz.core.schema import corpus_run_dataset
    from negviz.evaluation.retrieval.corpus import load_corpus
    from negviz.evaluation.retrieval.evaluate import hit_slot, query_doc_ids
    from negviz.evaluation.retrieval.rank_metrics import rank_in, retrieval_summary
    from negviz.evaluation.runner import run_key
    from negviz.store import RunRecord
    from negviz.store.record import RETRIEVAL

    corpus = load_corpus(corpus_name)
    query_ids = ds.frame["query_id"].astype(str).tolist()
    run = trec.read_run(handle, file_name, query_ids, corpus.row_of, max_rows=len(query_ids) * trec.MAX_DEPTH + 1000)
    missing = [q for q in query_ids if q not in run.ranked]
    if missing and not allow_partial:
        raise DataValidationError(
            f"{len(missing):,} of {len(query_ids):,} queries of {ds.spec.name} have no line in the file (first: "
            f"{', '.join(map(repr, missing[:3]))}); rank them, or allow a partial file (--allow-partial; the run "
            "then says 'n of N queries'). Nothing was stored.",
            file=file_name,
        )
    keep = ds.frame["query_id"].astype(str).isin(run.ranked).to_numpy()
    frame = ds.frame[keep].reset_index(drop=True)
    pos_ids, neg_ids = query_doc_ids(frame, corpus)
    records: list[tuple[str, str, float]] = []
    pos_rank, neg_rank = [], []
    for qid, pos, neg in zip(frame["query_id"].astype(str), pos_ids, neg_ids):
        ranked = run.ranked[qid]
        docs = [d for d, _ in ranked]
        pos_rank.append(rank_in(docs, pos))
        neg_rank.append(rank_in(docs, neg))
        records.append((qid, "pos_rank", float(pos_rank[-1])))
        records.append((qid, "neg_rank", float(neg_rank[-1])))
        records += [(qid, hit_slot(k, d), s) for k, (d, s) in enumerate(ranked, 1)]
    scores = pd.DataFrame(records, columns=["item_id", "slot", "score"])
    top_k = run.depth
    summary = retrieval_summary(np.array(pos_rank), np.array(neg_rank), top_k)
    summary["imported"] = _provenance(file_name, sha, url, "trec", run.rows, len(frame), len(query_ids))
    summary["imported"]["tie_rule"] = trec.TIE_RULE
    if len(frame) < len(query_ids):
        summary["items_of"] = len(query_ids)
    options = {"protocol": RETRIEVAL, "top_k": int(top_k), **corpus.provenance(), "retrieval": "imported TREC run"}
    model = _spec(name, sha)
    run_spec = DatasetSpec.make(ds.spec.name, ds.spec.split, ds.spec.limit, **ds.spec.opts)
    record = RunRecord.from_specs(model, run_spec, spec_key=run_key(model, model.revision, run_spec, options))
    record.dataset_name = corpus_run_dataset(ds.spec.name, corpus.name)
    _fill(record, ds, len(frame), options, summary, start, kind=RETRIEVAL)
    return _save(store, record, scores, ds)
