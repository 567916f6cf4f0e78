"""Retrieval over a corpus, one class per way of searching, all behind ``Retriever.search``.

``search(queries, k)`` returns (rows, scores): for each query the corpus row positions of its
top k documents, best first, and their scores. Order: descending score, ties to the lower
corpus position (``metrics.top_k_indices``), whatever the family.

- ``DenseRetriever`` (bi-encoders): exact search. The corpus is embedded once through the
  scorer's own ``embed`` (the ScoreCache keeps every vector, so a second run or process encodes
  nothing): only the unique texts without a cached vector, longest first over the whole corpus,
  in one pass of chunks of ``ENCODE_CHUNK`` texts, each under the cache's claim on this (model
  revision, corpus hash), so concurrent builders take turns instead of each encoding it all;
  one bar counts the texts left to encode, per batch (``one_stage``), then the cached rest is read. Vectors go into one float32 matrix, which is a memory-mapped
  file in the cache folder when it would exceed ``$NEGVIZ_INDEX_RAM_MB`` (default 2048). Search is
  chunked matrix products (``QUERY_CHUNK`` queries x ``CORPUS_CHUNK`` documents at a time) with a
  running top k, so memory stays bounded whatever the corpus size. Similarity as the scorer's
  (dot by default, as the NevIR code; cosine normalises both sides).
- ``FaissRetriever`` (bi-encoders, on request: ``method="faiss"``): the same matrix in a FAISS
  flat inner-product index; tests check it returns what exact search returns.
- ``CodesRetriever`` (bi-encoders with a shipped code file, interactive search only:
  ``search_retriever``): the exact query vector against compressed document vectors
  (negviz.evaluation.retrieval.codes) picks the file's C candidates (100), which alone are encoded and re-scored
  exactly, so a first search over the offline corpus encodes no corpus. Evaluations stay exact.
- ``BM25Retriever``: bm25s (Lucene variant, the scorer's k1 and b) indexed once over the
  corpus, with the BM25 scorer's tokens (negation words kept).
- ``TfIdfRetriever``: the NevIR TF-IDF protocol refits a vectorizer per (query, doc) pair and
  cannot rank a corpus; here one ``TfidfVectorizer`` is fitted on the corpus, with the NevIR
  tokens and English stop words, and queries are ranked by cosine.
- ``SpladeRetriever``: SPLADE representations of the corpus as one sparse matrix; score = dot.
- ``RerankRetriever`` (late interaction: maxsim, colbert; cross-encoders; monot5): the first
  stage is BM25 over the same corpus (as ExcluIR App. D does for cross-encoders: BM25 top 100,
  then re-rank); the scorer's pair scores (cached per pair) re-order the first stage's top
  ``depth`` documents (default: the requested k).
"""

from __future__ import annotations

import contextlib
import os
import time
from typing import Any, Sequence

import numpy as np

from negviz.core.heavy import heavy_import
from negviz.core.registry import Registry
from negviz.evaluation.retrieval.corpus import Corpus
from negviz.evaluation.retrieval.rank_metrics import top_k_indices
from negviz.scorers.base import Progress, chunk_progress, no_progress

ENCODE_CHUNK = 1024  # texts per claim and per report when read from the cache
QUERY_CHUNK = 256
CORPUS_CHUNK = 65536

RETRIEVERS = Registry("retrieval method")
RETRIEVERS.register("dense", "negviz.evaluation.retrieval.index:DenseRetriever", title="exact dense search")
RETRIEVERS.register("faiss", "negviz.evaluation.retrieval.index:FaissRetriever", title="FAISS IndexFlatIP (exact)")
RETRIEVERS.register(
    "codes", "negviz.evaluation.retrieval.index:CodesRetriever", title="shipped codes, top candidates re-scored"
)
RETRIEVERS.register("bm25", "negviz.evaluation.retrieval.index:BM25Retriever", title="BM25 index (bm25s)")
RETRIEVERS.register("tfidf", "negviz.evaluation.retrieval.index:TfIdfRetriever", title="TF-IDF index (corpus-fitted)")
RETRIEVERS.register("splade", "negviz.evaluation.retrieval.index:SpladeRetriever", title="SPLADE sparse dot product")
RETRIEVERS.register("rerank", "negviz.evaluation.retrieval.index:RerankRetriever", title="BM25 top-k, re-ranked")


def method_title(method: str | None) -> str:
    """How a stored run searched, in words (its retrieval method's registered title)."""
    return RETRIEVERS.entry(method).meta["title"] if method in RETRIEVERS else str(method or "—")


# Model family -> how it searches a corpus.
METHOD_OF_FAMILY = {
    "bi-encoder": "dense",
    "bm25": "bm25",
    "tfidf": "tfidf",
    "splade": "splade",
    "maxsim": "rerank",
    "colbert": "rerank",
    "cross-encoder": "rerank",
    "monot5": "rerank",
    "llm-pointwise": "rerank",
    "llm-listwise": "rerank",  # RankGPT's sliding window over BM25's top `depth`, in BM25's order
}


def retriever_for(scorer, corpus: Corpus, method: str | None = None, **options: Any) -> "Retriever":
    """The retriever of a scorer's family over ``corpus`` (index built on first search);
    ``method`` overrides the family's (e.g. "faiss" for a bi-encoder)."""
    # A model object from a notebook (family "python") says itself how it retrieves.
    method = method or METHOD_OF_FAMILY.get(scorer.family) or getattr(scorer, "retrieval_method", None)
    if method is None:
        raise ValueError(f"no corpus retrieval for the {scorer.family!r} family")
    return RETRIEVERS.get(method)(scorer, corpus, **options)


def merge_top_k(best_s, best_i, new_s, new_i, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Merge two (m, *) candidate sets into the top k per row (ties to the lower index)."""
    s = np.concatenate([best_s, new_s], axis=1)
    i = np.concatenate([best_i, new_i], axis=1)
    out_s = np.empty((s.shape[0], min(k, s.shape[1])), dtype=s.dtype)
    out_i = np.empty(out_s.shape, dtype=np.int64)
    for r in range(s.shape[0]):
        order = np.lexsort((i[r], -s[r]))[:k]
        out_s[r], out_i[r] = s[r][order], i[r][order]
    return out_s, out_i


def one_stage(progress: Progress, desc: str) -> Progress:
    """``progress`` with every report under ``desc``: the nested calls of one stage (chunks,
    batches) say their own words, which would start a new bar each time (issue 45)."""

    def report(done: int, total: int, _desc: str) -> None:
        progress(done, total, desc)

    return report


def matrix_top_k(q_all: np.ndarray, matrix, k: int, progress: Progress = no_progress):
    """(rows, scores) of the top k rows of ``matrix`` by dot product with each query vector:
    ``QUERY_CHUNK`` queries x ``CORPUS_CHUNK`` rows at a time, with a running top k."""
    rows_out = np.empty((len(q_all), k), dtype=np.int64)
    scores_out = np.empty((len(q_all), k), dtype=np.float64)
    n = matrix.shape[0]
    for qs in range(0, len(q_all), QUERY_CHUNK):
        q = q_all[qs : qs + QUERY_CHUNK]
        best_s = np.empty((len(q), 0), dtype=np.float32)
        best_i = np.empty((len(q), 0), dtype=np.int64)
        for cs in range(0, n, CORPUS_CHUNK):
            sims = q @ np.asarray(matrix[cs : cs + CORPUS_CHUNK]).T
            local = top_k_indices(sims, k)
            new_s = np.take_along_axis(sims, local, axis=1)
            best_s, best_i = merge_top_k(best_s, best_i, new_s, local + cs, k)
        rows_out[qs : qs + len(q)], scores_out[qs : qs + len(q)] = best_i, best_s
        progress(min(qs + QUERY_CHUNK, len(q_all)), len(q_all), "dense search")
    return rows_out, scores_out


class Retriever:
    method = ""

    def __init__(self, scorer, corpus: Corpus, **options: Any):
        self.scorer, self.corpus, self.options = scorer, corpus, options
        self._built = False
        self.build_seconds: float | None = None

    @property
    def built(self) -> bool:
        return self._built

    def build(self, progress: Progress = no_progress) -> "Retriever":
        if not self._built:
            start = time.perf_counter()
            self._build(progress)
            self.build_seconds = time.perf_counter() - start
            self._built = True
        return self

    def _build(self, progress: Progress) -> None:
        raise NotImplementedError

    def search(self, queries: Sequence[str], k: int, progress: Progress = no_progress):
        self.build(progress)
        return self._search(list(queries), max(1, min(int(k), self.corpus.size)), progress)

    def _search(self, queries: list[str], k: int, progress: Progress):
        """Default: a full score row per query, then the exact top k."""
        rows = np.empty((len(queries), k), dtype=np.int64)
        scores = np.empty((len(queries), k), dtype=np.float64)
        for n, q in enumerate(queries):
            full = self.score_all(q)
            rows[n] = top_k_indices(full, k)
            scores[n] = full[rows[n]]
            if (n + 1) % 100 == 0:
                progress(n + 1, len(queries), f"{self.method} search")
        return rows, scores

    def score_all(self, query: str) -> np.ndarray:
        raise NotImplementedError

    def describe(self) -> dict[str, Any]:
        return {"retrieval": self.method, **{k: v for k, v in self.options.items() if v is not None}}


class DenseRetriever(Retriever):
    method = "dense"

    def _build(self, progress: Progress) -> None:
        """One pass over what is missing: the corpus's unique texts without a cached vector,
        longest first (batches of similar length pad little), one bar counting only them; then
        the cached rest is read into the matrix. Each text is encoded once, whatever its rows."""
        texts, scorer = self.corpus.texts, self.scorer
        n = len(texts)
        name = f"dense-{scorer.embedding_namespace}-{scorer.options.get('similarity', 'dot')}-{self.corpus.hash}"
        # Other processes (app sessions, `negviz eval --corpus`) may build the same index now: a
        # chunk is encoded under the claim, so each text is encoded once and the others read it.
        claim = scorer.cache.claim(name) if scorer.cache else contextlib.nullcontext()
        rows_of: dict[str, list[int]] = {}
        for row, text in enumerate(texts):
            rows_of.setdefault(text, []).append(row)
        todo = sorted(scorer.uncached(texts, "document"), key=len, reverse=True)
        filled = np.zeros(n, dtype=bool)
        matrix = done_path = None

        def put(chunk: list[str], part: np.ndarray) -> None:
            nonlocal matrix, done_path
            if matrix is None:
                matrix, done_path = self._matrix(name, n, part.shape[1])
            for text, vector in zip(chunk, part):
                matrix[rows_of[text]] = vector
                filled[rows_of[text]] = True

        bar = one_stage(progress, "encoding corpus")
        for start in range(0, len(todo), ENCODE_CHUNK):
            chunk = todo[start : start + ENCODE_CHUNK]
            with claim:  # embed reads what another builder finished meanwhile
                put(chunk, self.document_vectors(chunk, chunk_progress(bar, start, len(chunk), len(todo))))
            bar(start + len(chunk), len(todo), "")
        rest = list(dict.fromkeys(texts[row] for row in np.flatnonzero(~filled)))  # cached: read, not encoded
        read = one_stage(progress, "reading cached corpus vectors")
        for start in range(0, len(rest), ENCODE_CHUNK):
            chunk = rest[start : start + ENCODE_CHUNK]
            put(chunk, self.document_vectors(chunk))
            read(start + len(chunk), len(rest), "")
        if done_path is not None:  # a complete file under its final name, for the next process
            matrix.flush()
            os.replace(matrix.filename, done_path)
        self.matrix = matrix

    @staticmethod
    def _matrix(name: str, n: int, dim: int):
        """(matrix, final path): in RAM, or a memory-mapped file in the cache folder when larger
        than ``$NEGVIZ_INDEX_RAM_MB`` allows (paged in by the OS), written under a name of this
        process's own and renamed when complete, so concurrent builders never share a file."""
        budget = float(os.environ.get("NEGVIZ_INDEX_RAM_MB", "2048")) * 2**20
        if n * dim * 4 <= budget:
            return np.empty((n, dim), dtype=np.float32), None
        from negviz.core.cache import default_cache_dir

        path = default_cache_dir() / f"{name}.f32"
        mine = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        return np.lib.format.open_memmap(mine, mode="w+", dtype=np.float32, shape=(n, dim)), path

    def document_vectors(self, texts: list[str], progress: Progress = no_progress) -> np.ndarray:
        part = self.scorer.embed(texts, "document", progress)
        if self.scorer.options.get("similarity") == "cosine":
            part = part / np.maximum(np.linalg.norm(part, axis=1, keepdims=True), 1e-12)
        return part

    def query_vectors(self, queries: list[str], progress: Progress = no_progress) -> np.ndarray:
        q = self.scorer.embed(queries, "query", one_stage(progress, "encoding queries"))
        if self.scorer.options.get("similarity") == "cosine":
            q = q / np.maximum(np.linalg.norm(q, axis=1, keepdims=True), 1e-12)
        return q.astype(np.float32)

    def _search(self, queries: list[str], k: int, progress: Progress):
        return matrix_top_k(self.query_vectors(queries, progress), self.matrix, k, progress)

    def score_all(self, query: str) -> np.ndarray:
        self.build()
        return (np.asarray(self.matrix) @ self.query_vectors([query])[0]).astype(np.float64)


class FaissRetriever(DenseRetriever):
    """The same vectors in a FAISS ``IndexFlatIP`` (exact inner product; the route to IVF/HNSW
    indexes for corpora in the tens of millions). Results re-sorted by (−score, position), so
    ties order as in exact search. Needs faiss-cpu (requirements.txt)."""

    method = "faiss"

    def _build(self, progress: Progress) -> None:
        import faiss

        super()._build(progress)
        self.index = faiss.IndexFlatIP(self.matrix.shape[1])
        for start in range(0, self.corpus.size, CORPUS_CHUNK):
            self.index.add(np.ascontiguousarray(self.matrix[start : start + CORPUS_CHUNK]))

    def _search(self, queries: list[str], k: int, progress: Progress):
        q = np.ascontiguousarray(self.query_vectors(queries))
        scores, rows = self.index.search(q, k)
        for n in range(len(rows)):
            order = np.lexsort((rows[n], -scores[n]))
            rows[n], scores[n] = rows[n][order], scores[n][order]
        return rows.astype(np.int64), scores.astype(np.float64)


class CodesRetriever(DenseRetriever):
    """Two-stage search with the corpus's shipped codes (negviz.evaluation.retrieval.codes): the exact query
    vector against the decoded codes picks each query's top ``candidates`` documents, which are
    encoded (through the ScoreCache) and re-scored exactly; their top k is returned, ties to the
    lower corpus position. Equal to exact search whenever exact search's top k is among a query's
    candidates; the rest of the corpus is never encoded."""

    method = "codes"

    def __init__(self, scorer, corpus: Corpus, codes=None, candidates: int | None = None, **options: Any):
        from negviz.evaluation.retrieval.codes import shipped_codes

        codes = codes if codes is not None else shipped_codes(scorer, corpus)
        if codes is None:
            raise ValueError(
                f"no code file matches {scorer.name} over corpus {corpus.name!r} "
                "(build one with python scripts/build_corpus_codes.py)"
            )
        super().__init__(scorer, corpus, candidates=int(candidates or codes.candidates), **options)
        self.codes = codes

    def _build(self, progress: Progress) -> None:
        self.approx = self.codes.decode()
        progress(self.corpus.size, self.corpus.size, "reading the shipped codes")

    def _search(self, queries: list[str], k: int, progress: Progress):
        q = self.query_vectors(queries, progress)
        candidates = self.candidates(q, k)
        union = np.unique(candidates)  # queries sharing a candidate encode it once
        texts = self.corpus.frame["text"].to_numpy()
        vectors = self.document_vectors(texts[union].tolist(), one_stage(progress, "encoding candidates"))
        where = np.searchsorted(union, candidates)
        rows = np.empty((len(queries), k), dtype=np.int64)
        scores = np.empty((len(queries), k), dtype=np.float64)
        for n in range(len(queries)):  # each query among its own candidates: batch-independent
            exact = vectors[where[n]] @ q[n]
            order = np.lexsort((candidates[n], -exact))[:k]
            rows[n], scores[n] = candidates[n][order], exact[order]
        return rows, scores

    def candidates(self, q: np.ndarray, k: int) -> np.ndarray:
        """Each query vector's first-stage candidates (rows), by the decoded codes."""
        self.build()
        depth = min(self.corpus.size, max(k, int(self.options["candidates"])))
        return matrix_top_k(q, self.approx, depth)[0]

    def score_all(self, query: str) -> np.ndarray:
        raise NotImplementedError("a two-stage search scores only its candidates")


def search_retriever(scorer, corpus: Corpus) -> Retriever:
    """The retriever of interactive search (the Search page): a bi-encoder with a matching code
    file searches in two stages (``CodesRetriever``, encoding only the queries and their
    candidates); anything else as ``retriever_for``. Evaluations stay exact (retriever_for)."""
    from negviz.evaluation.retrieval.codes import shipped_codes

    codes = shipped_codes(scorer, corpus)
    if codes is not None:
        return CodesRetriever(scorer, corpus, codes=codes)
    return retriever_for(scorer, corpus)


class BM25Retriever(Retriever):
    method = "bm25"

    def _build(self, progress: Progress) -> None:
        import bm25s

        from negviz.scorers.bm25 import bm25_tokens

        self.stop = self.scorer.model
        self.tokens = bm25_tokens
        opts = self.scorer.options
        self.index = bm25s.BM25(k1=float(opts["k1"]), b=float(opts["b"]), method="lucene", dtype="float64")
        self.index.index([bm25_tokens(t, self.stop) for t in self.corpus.texts], show_progress=False)
        progress(self.corpus.size, self.corpus.size, "bm25 index")

    def score_all(self, query: str) -> np.ndarray:
        self.build()
        ids = self.index.get_tokens_ids(self.tokens(query, self.stop))  # unknown terms drop out
        if not ids:
            return np.zeros(self.corpus.size)
        return np.asarray(self.index.get_scores_from_ids(ids), dtype=np.float64)


class TfIdfRetriever(Retriever):
    method = "tfidf"

    def _build(self, progress: Progress) -> None:
        TfidfVectorizer = heavy_import("sklearn.feature_extraction.text", "TfidfVectorizer")

        from negviz.scorers.tfidf import nevir_tokens

        stop = self.scorer.model

        def tokens(text: str) -> list[str]:
            return [t for t in nevir_tokens(text) if t not in stop]

        self.vectorizer = TfidfVectorizer(tokenizer=tokens, lowercase=False, token_pattern=None)
        self.matrix = self.vectorizer.fit_transform(self.corpus.texts).tocsr()  # rows L2-normalised
        progress(self.corpus.size, self.corpus.size, "tf-idf index")

    def score_all(self, query: str) -> np.ndarray:
        self.build()
        q = self.vectorizer.transform([query])
        return np.asarray((self.matrix @ q.T).todense(), dtype=np.float64).ravel()


class SpladeRetriever(Retriever):
    method = "splade"

    def _build(self, progress: Progress) -> None:
        sp = heavy_import("scipy.sparse")

        reps = self.scorer.encode(self.corpus.texts, progress)
        vocab = self.scorer.model[1].config.vocab_size
        indptr = np.cumsum([0] + [len(r.ids) for r in reps])
        ids = np.concatenate([r.ids for r in reps]) if reps else np.zeros(0, dtype=np.int64)
        weights = np.concatenate([r.weights for r in reps]) if reps else np.zeros(0, dtype=np.float32)
        self.matrix = sp.csr_matrix((weights.astype(np.float64), ids, indptr), shape=(len(reps), vocab))

    def score_all(self, query: str) -> np.ndarray:
        self.build()
        (rep,) = self.scorer.encode([query])
        q = np.zeros(self.matrix.shape[1])
        q[rep.ids] = rep.weights
        return np.asarray(self.matrix @ q, dtype=np.float64)


class RerankRetriever(Retriever):
    """BM25 first stage over the corpus, then the scorer's pair scores over its top ``depth``."""

    method = "rerank"

    def __init__(self, scorer, corpus: Corpus, first_stage=None, depth: int | None = None, **options: Any):
        super().__init__(scorer, corpus, first_stage="bm25", depth=depth, **options)
        if first_stage is None:
            from negviz.evaluation.catalog import load_scorer

            first_stage = BM25Retriever(load_scorer("bm25"), corpus)
        self.first = first_stage

    def _build(self, progress: Progress) -> None:
        self.first.build(progress)

    def _search(self, queries: list[str], k: int, progress: Progress):
        depth = max(k, int(self.options.get("depth") or k))
        first_rows, _ = self.first.search(queries, depth, progress)
        texts = self.corpus.texts
        if hasattr(self.scorer, "score_lists"):  # listwise: a query's candidates are ranked together
            flat = self.scorer.score_lists(queries, [[texts[i] for i in row] for row in first_rows], progress)
        else:
            flat_q = [q for q, row in zip(queries, first_rows) for _ in row]
            flat_d = [texts[i] for row in first_rows for i in row]
            flat = self.scorer.score(flat_q, flat_d, progress).reshape(first_rows.shape)
        rows = np.empty((len(queries), k), dtype=np.int64)
        scores = np.empty((len(queries), k), dtype=np.float64)
        for n in range(len(queries)):
            order = np.lexsort((first_rows[n], -flat[n]))[:k]  # ties: lower corpus position
            rows[n], scores[n] = first_rows[n][order], flat[n][order]
        return rows, scores

    def score_all(self, query: str) -> np.ndarray:
        raise NotImplementedError("a re-ranker scores only its first stage's candidates")
