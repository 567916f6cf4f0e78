"""What a corpus run encodes, decided before the work starts and said (issue 45).

The rule. Every number a corpus run reports (rank_metrics: R@1/5/10 and MRR@10 of d+ and d−,
Right Rank over the top 10 and over the top k, how many d+/d− are in the top k) and every document
it stores (each query's top k with its score) is a function of each query's exact top k. A rank is
exact only when every corpus document was scored against the query: one unscored document could
outrank d+. Hence, by how a family retrieves (index.METHOD_OF_FAMILY):

- **corpus** (exact dense search: bi-encoders, encoders from a notebook): a vector for every corpus
  text. A query limit cannot skip the corpus without changing a number; it limits the queries.
  What is skipped is what is cached: the unique corpus texts without a vector in the ScoreCache
  (which the Search page, other runs and other processes fill and read too) are encoded once each,
  longest first, in one pass with one bar, then the queries. A second run encodes no corpus text.
- **candidates** (two-stage): where a shipped code file matches the (model, corpus)
  (negviz.evaluation.retrieval.codes), each query's top C documents by the codes are encoded and
  re-scored exactly. That encodes the queries and the union of their candidates, far fewer texts
  than the corpus for a few queries, but ranks are exact among the candidates only (the shipped
  files gave exact search's top 10 for all 1,000 ExcluIR queries; ranks below may differ). Its run
  is stored under its own key (retrieval "codes", candidates C), never in place of an exact run.

Which of the two a bi-encoder takes (``plan``; the CLI's ``--plan``):

- ``auto`` (the default): a run over part of its dataset's queries (a limit: the CLI's ``--limit``,
  the API's ``limit=``) takes the candidates route when a code file matches and it encodes fewer
  uncached texts than the corpus route, so a limit limits the work. A run over all its queries
  stays exact: its numbers are the dataset's reference (the shipped exact runs are reused, and
  the 1,000-query run encodes the corpus and the queries). A cached corpus costs nothing, so the
  exact route is then taken whatever the limit.
- ``exact``: always the corpus route (every rank exact).
- ``cheapest``: the candidates route whenever it encodes fewer texts, a full run included.

Either way no text is encoded twice (counting the candidates encodes the queries, which the run
then reads from the cache), and the choice is said before the work (stderr), on the CLI table's
last line and in the stored summary (``encoding_plan``).
- **first stage** (re-rankers: cross-encoders, late interaction, LLMs): the protocol is itself two
  stages (BM25's top ``depth``, as ExcluIR App. D): the corpus is indexed by BM25, not encoded,
  and only the queries' candidates are scored, so a limit limits the work.
- **index** (BM25, TF-IDF): an index over the corpus text, no model encoding; SPLADE encodes every
  corpus text (route corpus).
"""

from __future__ import annotations

import sys
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from negviz.core.errors import NegvizError
from negviz.evaluation.retrieval.corpus import Corpus
from negviz.evaluation.retrieval.index import CodesRetriever, DenseRetriever, Retriever
from negviz.scorers.base import Progress, no_progress

AUTO, EXACT, CHEAPEST = "auto", "exact", "cheapest"
PLANS = (AUTO, EXACT, CHEAPEST)


@dataclass(frozen=True)
class EncodingPlan:
    """The route a corpus run takes and the texts it will encode (counted before any work)."""

    route: str  # corpus | candidates | first stage | index
    retrieval: str
    queries: int
    encode_corpus: int  # corpus texts this run encodes (not cached)
    encode_queries: int
    candidate_texts: int | None = None  # what the candidates route encodes (None: no code file)
    exact: bool = True
    asked: str = EXACT  # the plan asked for (auto, exact, cheapest)
    dataset_queries: int | None = None  # the queries of the whole dataset (more than ``queries``: a limit)

    @property
    def partial(self) -> bool:
        """Whether the run covers part of its dataset's queries (a limit)."""
        return self.dataset_queries is not None and self.queries < self.dataset_queries

    def describe(self) -> dict[str, Any]:
        return asdict(self)

    def text(self) -> str:
        """One line for the CLI and the notebook: the route and its cost in texts."""
        if self.route == "candidates":
            line = (
                f"plan: two-stage search (shipped codes; candidates re-scored exactly, ranks exact among them only): "
                f"encoding {self.candidate_texts:,} candidate texts and {self.encode_queries:,} of "
                f"{self.queries:,} queries instead of {self.encode_corpus:,} corpus texts"
            )
            if self.asked == AUTO:
                line += f" (part of the queries, {self.queries:,} of {self.dataset_queries:,}; --plan exact for exact ranks)"
            return line
        if self.route == "first stage":
            return f"plan: {self.retrieval}: BM25's candidates of {self.queries:,} queries re-scored (corpus indexed, not encoded)"
        if self.route == "index":
            return f"plan: {self.retrieval} index over the corpus, no model encoding; {self.queries:,} queries"
        line = (
            f"plan: exact {self.retrieval} search: encoding {self.encode_corpus:,} corpus texts not yet cached "
            f"(each once, longest first) and {self.encode_queries:,} of {self.queries:,} queries"
        )
        if self.candidate_texts is not None and self.candidate_texts < self.encode_corpus:
            why = "" if self.asked != AUTO or self.partial else "all the dataset's queries, so exact; "
            line += (
                f"; {why}the shipped codes' two-stage search would encode {self.candidate_texts:,} "
                "(--plan cheapest; ranks exact among its candidates only)"
            )
        return line


def check_plan(plan: str) -> str:
    if plan not in PLANS:
        raise NegvizError(
            f"unknown plan {str(plan)[:40]!r}; use one of {', '.join(PLANS)} (negviz.evaluation.retrieval.plan)"
        )
    return plan


def plan_corpus_run(
    scorer,
    corpus: Corpus,
    queries: list[str],
    retriever: Retriever,
    top_k: int,
    plan: str = AUTO,
    codes=None,
    progress: Progress = no_progress,
    dataset_queries: int | None = None,
) -> tuple[EncodingPlan, Retriever]:
    """(the plan, the retriever that carries it out) for ``queries`` over ``corpus`` (see the
    module doc). ``dataset_queries``: how many queries the whole dataset has (None: ``queries`` are
    all of them). ``codes``: a code file to consider (default: the shipped one of this model and
    corpus). A candidates count encodes the queries first (cached: the run does not redo them)."""
    check_plan(plan)
    n = len(queries)
    said = {"asked": plan, "dataset_queries": dataset_queries if dataset_queries is not None else n}
    if not isinstance(retriever, DenseRetriever) or isinstance(retriever, CodesRetriever):
        route = {"rerank": "first stage", "bm25": "index", "tfidf": "index"}.get(retriever.method, "corpus")
        size = corpus.size if route == "corpus" else 0
        return EncodingPlan(route, retriever.method, n, size, n if route == "corpus" else 0, **said), retriever
    encode_corpus = len(scorer.uncached(corpus.texts, "document"))
    encode_queries = len(scorer.uncached(queries, "query"))
    two_stage = _codes_retriever(scorer, corpus, codes) if encode_corpus else None
    if two_stage is None:
        return EncodingPlan("corpus", retriever.method, n, encode_corpus, encode_queries, **said), retriever
    rows = np.unique(two_stage.candidates(two_stage.query_vectors(queries, progress), top_k))
    texts = corpus.texts
    candidate_texts = len(scorer.uncached([texts[r] for r in rows], "document"))
    exact = EncodingPlan("corpus", retriever.method, n, encode_corpus, encode_queries, candidate_texts, **said)
    wanted = plan == CHEAPEST or (plan == AUTO and exact.partial)
    if wanted and candidate_texts < encode_corpus:
        chosen = EncodingPlan(
            "candidates", two_stage.method, n, encode_corpus, encode_queries, candidate_texts, False, **said
        )
        return chosen, two_stage
    return exact, retriever


def _codes_retriever(scorer, corpus: Corpus, codes) -> CodesRetriever | None:
    from negviz.evaluation.retrieval.codes import shipped_codes

    codes = codes if codes is not None else shipped_codes(scorer, corpus)
    return None if codes is None else CodesRetriever(scorer, corpus, codes=codes)


def tell_plan(plan: EncodingPlan) -> None:
    """Say the plan where the progress goes (stderr), before the work starts."""
    print(f"negviz: {plan.text()}", file=sys.stderr, flush=True)
