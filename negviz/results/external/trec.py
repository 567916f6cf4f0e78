"""TREC run files in and out, as trec_eval, ir_measures, ranx and BEIR read them.

A run line is ``qid Q0 docid rank score tag`` (whitespace separated). Reading, negviz recomputes
each query's order from the scores as trec_eval does: score descending, and among equal scores
the doc id in *descending* string order (trec_eval's tie rule; the file's rank column is ignored,
as trec_eval ignores it). The query ids are the ExcluIR dataset's ``query_id`` and the doc ids the
corpus's ``doc_id`` (the offline corpus: the paragraph's index in ExcluIR's corpus.json).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import IO, Iterable

import pandas as pd

from negviz.core.errors import DataValidationError
from negviz.core.limits import MAX_TREC_LINE_BYTES, shown
from negviz.results.external.bounded import bounded_lines
from negviz.results.external.score_files import Problems

MAX_DEPTH = 1000  # trec_eval's default depth: documents per query
TIE_RULE = "trec_eval: score descending, then doc id descending"


@dataclass
class TrecRun:
    """A checked run: per query, its documents best first (ids) and their scores."""

    ranked: dict[str, list[tuple[str, float]]]
    rows: int
    depth: int  # the most documents any query has


def read_run(
    handle: IO[bytes], name: str, query_ids: Iterable[str], doc_ids: set[str] | dict, *, max_rows: int
) -> TrecRun:
    """Read and check a TREC run against the queries and the corpus; raises DataValidationError
    listing every problem (with counts and first examples). Reads line by line: a file over
    ``max_rows`` lines, or a line over MAX_TREC_LINE_BYTES, is refused there, without being read
    further."""
    queries = set(query_ids)
    per_query: dict[str, dict[str, float]] = {}
    problems = Problems()
    rows = 0
    lines = bounded_lines(handle, name, MAX_TREC_LINE_BYTES, quoted=False, what="line")
    for number, raw in enumerate(lines, 1):
        try:
            line = raw.decode("utf-8").strip()
        except UnicodeDecodeError:
            raise DataValidationError(f"line {number} is not UTF-8 text; is this a TREC run file?", file=name) from None
        if not line:
            continue
        rows += 1
        if rows > max_rows:
            raise DataValidationError(
                f"the file has more than {max_rows:,} lines: over {MAX_DEPTH:,} documents for each of the "
                f"{len(queries):,} queries. Cut each query's list to its top {MAX_DEPTH:,}.",
                file=name,
            )
        fields = line.split()
        if len(fields) != 6:
            problems.add("format", [f"line {number}: {shown(line)}"], 1)
            continue
        qid, _, docid, _, score_text, _ = fields
        try:
            score = float(score_text)
        except ValueError:
            score = math.nan
        if not math.isfinite(score):
            problems.add("score", [f"line {number}: {shown(score_text)}"], 1)
            continue
        if qid not in queries:
            problems.add("query", [qid], 1)
            continue
        if docid not in doc_ids:
            problems.add("doc", [docid], 1)
            continue
        docs = per_query.setdefault(qid, {})
        if docid in docs:
            problems.add("duplicate", [f"{qid} {docid}"], 1)
            continue
        docs[docid] = score
    if not rows:
        raise DataValidationError("the file is empty: a TREC run has lines 'qid Q0 docid rank score tag'.", file=name)
    deep = [q for q, d in per_query.items() if len(d) > MAX_DEPTH]
    problems.add("depth", deep, len(deep))
    _raise(problems, name)
    ranked = {q: trec_order(d.items()) for q, d in per_query.items()}
    return TrecRun(ranked, rows, max((len(v) for v in ranked.values()), default=0))


def trec_order(docs: Iterable[tuple[str, float]]) -> list[tuple[str, float]]:
    """(doc id, score) pairs in trec_eval's order (form_res_rels.c, comp_sim_docno): score
    descending, equal scores by doc id descending (strcmp; UTF-8 sorts as code points do)."""
    return sorted(docs, key=lambda kv: (-kv[1], _desc(kv[0])))


class _desc(str):
    """A string that sorts in descending order (trec_eval breaks score ties by doc id, descending)."""

    def __lt__(self, other: str) -> bool:  # type: ignore[override]
        return str.__gt__(self, other)


MESSAGES = {
    "format": "{lines} not have the six fields 'qid Q0 docid rank score tag' (first: {first})",
    "score": "{lines} a score that is not a finite number (first: {first})",
    "query": "{lines} queries that are not in the dataset (first: {first}); query ids are the dataset's query_id",
    "doc": "{lines} documents that are not in the corpus (first: {first}); doc ids are the corpus's doc_id",
    "duplicate": "{n:,} (query, document) pairs appear more than once (first: {first}); keep one line each",
    "depth": "{n:,} queries list more than " + f"{MAX_DEPTH:,}" + " documents (first: {first}); cut each list",
}
VERBS = {"format": ("does", "do"), "score": ("has", "have"), "query": ("names", "name"), "doc": ("names", "name")}


def _raise(problems: Problems, name: str) -> None:
    if problems.counts:
        raise DataValidationError.of(
            [
                DataValidationError(
                    MESSAGES[kind].format(n=count, first=problems.first(kind), lines=_lines(kind, count))
                    + ". Nothing was stored.",
                    file=name,
                )
                for kind, count in problems.counts.items()
            ]
        )


def _lines(kind: str, count: int) -> str:
    one, many = VERBS.get(kind, ("is", "are"))
    return f"{count:,} line {one}" if count == 1 else f"{count:,} lines {many}"


# ---------------------------------------------------------------- writing
def run_lines(hits: pd.DataFrame, tag: str) -> Iterable[str]:
    """``hits``: query_id, doc_id, score -> TREC run lines, each query's documents in trec_eval's
    order and ranked 1, 2, ... in it (a stored rank that broke a tie otherwise is not kept: a tool
    that reads the rank column must agree with trec_eval)."""
    safe = "".join(c if c.isalnum() or c in "-_.+" else "_" for c in tag) or "negviz"
    per_query: dict[str, list[tuple[str, float]]] = {}
    for qid, docid, score in zip(hits["query_id"], hits["doc_id"], hits["score"]):
        per_query.setdefault(str(qid), []).append((str(docid), float(score)))
    for qid, docs in per_query.items():
        for rank, (docid, score) in enumerate(trec_order(docs), 1):
            yield f"{qid} Q0 {docid} {rank} {score!r} {safe}\n"


def qrels_lines(judgements: Iterable[tuple[str, str, int]]) -> Iterable[str]:
    """(query id, doc id, relevance) -> TREC qrels lines ``qid 0 docid rel``."""
    for qid, docid, rel in judgements:
        yield f"{qid} 0 {docid} {int(rel)}\n"
