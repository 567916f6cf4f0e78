"""Compressed document vectors shipped for a corpus, so a first search encodes only its query.

A code file (``data/corpus/vectors/<corpus>__<model>.npz``, built by
scripts/build_corpus_codes.py) holds each document's bi-encoder vector quantised to ``bits`` bits
per dimension: per dimension, equal-population bins (edges at the 1/L, 2/L, ... quantiles of the
corpus's values, L = 2**bits) and, for each bin, the mean of the values in it (``centers``). With
1 bit that is the sign around the dimension's median; the default 2 bits take 96 bytes per
384-dimension MiniLM passage.

Search with it is two stages (negviz.evaluation.retrieval.index.CodesRetriever): the exact query vector
against the decoded codes (asymmetric: only the documents are approximated) picks the top C
candidates; those are encoded (the ScoreCache keeps them) and re-scored exactly. The result equals
exact search whenever exact search's top k is among the C candidates (measured in
benchmarks/README.md). A file is used only for the corpus (hash) and the model (embedding
namespace: model, revision, embedding options) it was built from; any other is ignored, with a
log line saying why.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from negviz.core.paths import DATA_DIR

CODES_DIR = DATA_DIR / "corpus" / "vectors"
FORMAT = "negviz-corpus-codes/1"
# 2 bits (96 bytes per 384-dim passage, 4.1 MB for the offline corpus) with 100 candidates gave
# MiniLM's exact top 10 for all 1,000 ExcluIR queries; 1 bit needed 500 (benchmarks/README.md).
DEFAULT_BITS = 2
DEFAULT_CANDIDATES = 100
# The shipped files' (bits, candidates): the narrowest measured to give exact search's top 10 on
# all 1,000 ExcluIR queries. bge-small's vectors need more: 2 bits with 100 gave 980 of 1,000.
SHIPPED = {"all-MiniLM-L6-v2": (2, 100), "bge-small-en-v1.5-int8": (4, 200)}
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CorpusCodes:
    """Quantised document vectors of one (corpus, model): ``packed`` (n, dim*bits/8) uint8,
    ``centers`` (dim, 2**bits) float32, and what they were built from (``meta``)."""

    packed: np.ndarray
    centers: np.ndarray
    meta: dict

    @property
    def bits(self) -> int:
        return int(self.meta["bits"])

    @property
    def candidates(self) -> int:
        return int(self.meta.get("candidates") or DEFAULT_CANDIDATES)

    def levels(self) -> np.ndarray:
        """(n, dim) uint8: each document's bin per dimension."""
        n, dim, bits = self.packed.shape[0], self.centers.shape[0], self.bits
        flat = np.unpackbits(self.packed, axis=1, count=dim * bits).reshape(n, dim, bits)
        weights = (1 << np.arange(bits - 1, -1, -1)).astype(np.uint8)
        return (flat * weights).sum(axis=2, dtype=np.uint8)

    def decode(self) -> np.ndarray:
        """(n, dim) float32: each document's approximate vector (its bins' centres)."""
        levels = self.levels()
        return self.centers[np.arange(self.centers.shape[0]), levels].astype(np.float32)


def quantise(vectors: np.ndarray, bits: int = DEFAULT_BITS) -> tuple[np.ndarray, np.ndarray]:
    """(packed codes, centers) of float vectors: equal-population bins per dimension."""
    if bits not in (1, 2, 4, 8):
        raise ValueError(f"bits must be 1, 2, 4 or 8, not {bits}")
    vectors = np.asarray(vectors, dtype=np.float32)
    n, dim = vectors.shape
    n_levels = 1 << bits
    edges = np.quantile(vectors, np.arange(1, n_levels) / n_levels, axis=0).T  # (dim, L-1)
    levels = np.empty((n, dim), dtype=np.uint8)
    centers = np.zeros((dim, n_levels), dtype=np.float32)
    for j in range(dim):
        levels[:, j] = np.searchsorted(edges[j], vectors[:, j], side="right")
        sums = np.bincount(levels[:, j], weights=vectors[:, j], minlength=n_levels)
        counts = np.bincount(levels[:, j], minlength=n_levels)
        # An empty bin (many equal values) keeps its edge as centre; no document decodes to it.
        fallback = np.concatenate([edges[j], edges[j][-1:]])
        centers[j] = np.where(counts > 0, sums / np.maximum(counts, 1), fallback)
    bit_planes = (levels[:, :, None] >> np.arange(bits - 1, -1, -1).astype(np.uint8)) & 1
    return np.packbits(bit_planes.reshape(n, dim * bits), axis=1), centers


def code_path(corpus_name: str, model_name: str, folder: Path | None = None) -> Path:
    safe = model_name.replace("/", "--")
    return (folder or CODES_DIR) / f"{corpus_name}__{safe}.npz"


def build_codes(vectors: np.ndarray, scorer, corpus, bits: int = DEFAULT_BITS,
                candidates: int = DEFAULT_CANDIDATES) -> CorpusCodes:  # fmt: skip
    """Codes of ``corpus``'s vectors (rows in corpus order, as ``scorer.embed`` gives them)."""
    if len(vectors) != corpus.size:
        raise ValueError(f"{len(vectors)} vectors for a corpus of {corpus.size} documents")
    packed, centers = quantise(vectors, bits)
    meta = {"format": FORMAT, "model": scorer.name, "revision": scorer.revision_id,
            "embedding_namespace": scorer.embedding_namespace, "corpus": corpus.name,
            "corpus_hash": corpus.hash, "corpus_size": corpus.size, "dim": int(vectors.shape[1]),
            "bits": bits, "candidates": int(candidates)}  # fmt: skip
    return CorpusCodes(packed, centers, meta)


def save_codes(codes: CorpusCodes, path: Path) -> Path:
    """Written under a temporary name and renamed, so a reader never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    with open(part, "wb") as fh:  # a file object: numpy would otherwise append .npz to the name
        np.savez_compressed(fh, packed=codes.packed, centers=codes.centers, meta=np.array(json.dumps(codes.meta)))
    os.replace(part, path)
    return path


def read_codes(path: Path) -> CorpusCodes:
    with np.load(path, allow_pickle=False) as z:
        return CorpusCodes(z["packed"], z["centers"], json.loads(str(z["meta"])))


def mismatch(codes: CorpusCodes, scorer, corpus) -> str | None:
    """Why ``codes`` do not describe this model's vectors of this corpus; None when they do."""
    meta = codes.meta
    if meta.get("format") != FORMAT:
        return f"format {meta.get('format')!r}, not {FORMAT!r}"
    if meta.get("corpus_hash") != corpus.hash or meta.get("corpus_size") != corpus.size:
        return f"built for corpus hash {meta.get('corpus_hash')}, this corpus is {corpus.hash}"
    if meta.get("embedding_namespace") != scorer.embedding_namespace:
        return (
            f"built for {meta.get('model')} revision {meta.get('revision')} "
            f"(embedding namespace {meta.get('embedding_namespace')}), this model is {scorer.name} "
            f"revision {scorer.revision_id} ({scorer.embedding_namespace})"
        )
    if codes.packed.shape[0] != corpus.size:
        return f"{codes.packed.shape[0]} rows for {corpus.size} documents"
    return None


def shipped_codes(scorer, corpus, folder: Path | None = None) -> CorpusCodes | None:
    """The code file of this (corpus, model) when there is one and it matches both; else None
    (a file that does not match is ignored with a log line: the corpus is then encoded)."""
    if getattr(scorer, "family", None) != "bi-encoder":
        return None
    path = code_path(corpus.name, scorer.name, folder)
    if not path.is_file():
        return None
    try:
        codes = read_codes(path)
    except (OSError, ValueError, KeyError) as exc:
        log.warning("ignoring %s: unreadable (%s); the corpus will be encoded", path, exc)
        return None
    why = mismatch(codes, scorer, corpus)
    if why is not None:
        log.warning(
            "ignoring %s: %s; the corpus will be encoded (rebuild it: python scripts/build_corpus_codes.py)",
            path,
            why,
        )
        return None
    return codes
