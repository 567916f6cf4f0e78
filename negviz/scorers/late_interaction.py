"""Late interaction: one vector per token and the MaxSim operator, shared by ColBERT and
MaxSim over any encoder.

    S(q, d) = sum over query tokens i (query mask) of max over document tokens j (doc mask) of sim(Q_i, D_j)

with sim the cosine (dot of L2-normalised vectors) or ``l2`` = -||Q_i - D_j||^2
(docs/REFERENCE.md, "MaxSim"). ``token_matrix`` returns the matrix before the max, so the
MaxSim explorer can draw it; its ``score`` is computed by the very functions that
``score()`` uses, so the two agree.
"""

from __future__ import annotations

import string
from abc import abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar, Sequence

import numpy as np

from negviz.core.options import Option
from negviz.scorers.base import Progress, Scorer, no_progress

SIMILARITIES = ("cosine", "l2")
ROLES = ("query", "document")
# Token kinds, for colouring the explorer's axes.
KINDS = ("special", "marker", "mask_aug", "punct", "word", "subword")


@dataclass(eq=False)
class TokenEmbeddings:
    """The tokens of one text as the model sees them, with one vector each."""

    tokens: list[str]  # incl. [CLS]/[SEP], the [Q]/[D] marker and [MASK] augmentation
    vectors: np.ndarray  # [n, dim] float32
    mask: np.ndarray  # [n] bool: positions that take part in MaxSim
    kinds: list[str]  # one of KINDS per token
    truncated: bool = False  # the text was longer than the model's max length

    def __post_init__(self) -> None:
        n = len(self.tokens)
        if self.vectors.ndim != 2 or self.vectors.shape[0] != n or len(self.mask) != n or len(self.kinds) != n:
            raise ValueError(
                f"token bookkeeping out of step: {n} tokens, vectors {self.vectors.shape}, "
                f"{len(self.mask)} mask entries, {len(self.kinds)} kinds"
            )


@dataclass(eq=False)
class TokenMatrix:
    """sim(Q_i, D_j) for all positions, with each query row's MaxSim choice."""

    query: TokenEmbeddings
    doc: TokenEmbeddings
    sim: np.ndarray  # [nq, nd] float64, before the max; masked columns included
    argmax: np.ndarray  # [nq] int: chosen doc column per query row; -1 for rows outside the query mask
    row_max: np.ndarray  # [nq] float64: sim at argmax; 0 for rows outside the query mask
    score: float  # sum of row_max = MaxSim
    similarity: str


# ---------------------------------------------------------------- pure functions
def similarity_matrix(q: np.ndarray, d: np.ndarray, similarity: str) -> np.ndarray:
    """sim(Q_i, D_j) in float64 for token vectors q [nq, dim] and d [nd, dim]."""
    q, d = np.asarray(q, dtype=np.float64), np.asarray(d, dtype=np.float64)
    if similarity == "cosine":
        # Zero vectors (ColBERT's masked doc tokens under masked_doc_tokens=zero) stay zero.
        q = q / np.maximum(np.linalg.norm(q, axis=1, keepdims=True), 1e-12)
        d = d / np.maximum(np.linalg.norm(d, axis=1, keepdims=True), 1e-12)
        return q @ d.T
    if similarity == "l2":
        sq = (q * q).sum(1)[:, None] + (d * d).sum(1)[None, :] - 2.0 * (q @ d.T)
        return -np.maximum(sq, 0.0)  # rounding must not make a distance negative
    raise ValueError(f"unknown similarity {similarity!r}; use one of {', '.join(SIMILARITIES)}")


def maxsim(sim: np.ndarray, q_mask: np.ndarray, d_mask: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """MaxSim of a similarity matrix: (score, argmax per row, row maxima).

    Masked doc columns never win; rows outside ``q_mask`` get argmax -1 and contribute 0.
    The score is exactly ``row_max.sum()``.
    """
    sim = np.asarray(sim, dtype=np.float64)
    q_mask, d_mask = np.asarray(q_mask, dtype=bool), np.asarray(d_mask, dtype=bool)
    if sim.shape != (len(q_mask), len(d_mask)):
        raise ValueError(f"sim has shape {sim.shape} but the masks have {len(q_mask)} and {len(d_mask)} entries")
    if not d_mask.any():
        raise ValueError("no document token takes part in MaxSim (the document mask is empty)")
    masked = np.where(d_mask[None, :], sim, -np.inf)
    argmax = masked.argmax(axis=1)
    row_max = masked[np.arange(len(q_mask)), argmax]
    argmax = np.where(q_mask, argmax, -1)
    row_max = np.where(q_mask, row_max, 0.0)
    return float(row_max.sum()), argmax, row_max


def pair_matrix(query: TokenEmbeddings, doc: TokenEmbeddings, similarity: str) -> TokenMatrix:
    """The TokenMatrix of two encoded texts (the one path that scoring and the explorer share)."""
    sim = similarity_matrix(query.vectors, doc.vectors, similarity)
    score, argmax, row_max = maxsim(sim, query.mask, doc.mask)
    return TokenMatrix(query, doc, sim, argmax, row_max, score, similarity)


def is_punct_token(token: str) -> bool:
    """A token made of punctuation only (BERT "##", BPE "Ġ" and SentencePiece "▁" prefixes ignored)."""
    core = token.removeprefix("##").lstrip("Ġ▁")
    return bool(core) and all(c in string.punctuation for c in core)


def token_kinds(word_ids: Sequence[int | None], punct: Sequence[bool]) -> list[str]:
    """special / punct / word / subword per position; families then mark markers and [MASK]s.

    ``word_ids`` are the fast tokenizer's (None for special tokens): a token that continues
    the previous token's word is a subword.
    """
    kinds, prev = [], None
    for word, is_punct in zip(word_ids, punct):
        if word is None:
            kinds.append("special")
        elif is_punct:
            kinds.append("punct")
        else:
            kinds.append("subword" if word == prev else "word")
        prev = word
    return kinds


def word_ids_of(encoding: Any, row: int, tokens: Sequence[str], special: Sequence[bool]) -> list[int | None]:
    """Word ids from a fast tokenizer, else derived from WordPiece "##" continuations."""
    try:
        return list(encoding.word_ids(row))
    except (ValueError, AttributeError):  # slow tokenizer
        ids, word = [], -1
        for tok, spec in zip(tokens, special):
            if spec:
                ids.append(None)
                continue
            word += 0 if tok.startswith("##") else 1
            ids.append(word)
        return ids


def count_content_tokens(tokenizer: Any, texts: Sequence[str]) -> list[int]:
    """Tokens per text without special tokens and without truncation (for the truncated flag)."""
    return [len(ids) for ids in tokenizer(list(texts), add_special_tokens=False, verbose=False)["input_ids"]]


# ---------------------------------------------------------------- the family base
class LateInteractionScorer(Scorer):
    """A scorer that encodes texts into token vectors and scores pairs with MaxSim.

    Subclasses implement ``_load`` and ``_encode_batch(texts, role)``.
    """

    declared_options: ClassVar[tuple[Option, ...]] = (
        Option("similarity", str, "cosine", "token similarity inside MaxSim", choices=SIMILARITIES),
    )
    heavy: ClassVar[bool] = False  # one encoder pass per text, like a bi-encoder

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._resolve_options()
        if self.options["similarity"] not in SIMILARITIES:
            raise ValueError(
                f"{self.family} similarity must be one of {', '.join(SIMILARITIES)}, not {self.options['similarity']!r}"
            )

    def _resolve_options(self) -> None:
        """Fill options whose default depends on the checkpoint (ColBERT's artifact.metadata)."""

    @property
    def similarity(self) -> str:
        return self.options["similarity"]

    # -- encoding
    def token_embeddings(
        self, texts: Sequence[str], role: str = "document", progress: Progress = no_progress
    ) -> list[TokenEmbeddings]:
        """Token vectors of each text for a role ("query" or "document"), in input order."""
        if role not in ROLES:
            raise ValueError(f"role must be 'query' or 'document', not {role!r}")
        texts = list(texts)
        # Longest first, in batches of similar length: less padding, and OOM shows up early.
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        out: list[TokenEmbeddings | None] = [None] * len(texts)
        for start in range(0, len(order), self.batch_size):
            idx = order[start : start + self.batch_size]
            for i, emb in zip(idx, self._encode_batch([texts[i] for i in idx], role)):
                out[i] = emb
            progress(min(start + self.batch_size, len(order)), len(order), f"encoding {role} tokens")
        return out  # type: ignore[return-value]

    @abstractmethod
    def _encode_batch(self, texts: list[str], role: str) -> list[TokenEmbeddings]:
        """Encode one batch of texts (no padding positions in the results)."""

    # -- the explorer's view
    def token_matrix(self, query: str, doc: str) -> TokenMatrix:
        """sim(Q_i, D_j) before the max, with argmax and row maxima; ``.score`` equals
        ``score([query], [doc])``."""
        (q,) = self.token_embeddings([query], "query")
        (d,) = self.token_embeddings([doc], "document")
        return pair_matrix(q, d, self.similarity)

    # -- scoring
    def _score_pairs(self, queries: list[str], docs: list[str], progress: Progress) -> np.ndarray:
        # Each unique text is encoded once per role; the vectors live only for this call.
        unique_q, unique_d = list(dict.fromkeys(queries)), list(dict.fromkeys(docs))
        total = len(unique_q) + len(unique_d)
        q_emb = dict(zip(unique_q, self.token_embeddings(unique_q, "query", _shifted(progress, 0, total))))
        d_progress = _shifted(progress, len(unique_q), total)
        d_emb = dict(zip(unique_d, self.token_embeddings(unique_d, "document", d_progress)))
        scores = np.empty(len(queries), dtype=np.float64)
        for k, (q, d) in enumerate(zip(queries, docs)):
            scores[k] = pair_matrix(q_emb[q], d_emb[d], self.similarity).score
        return scores


def _shifted(progress: Progress, offset: int, total: int) -> Progress:
    """Report a sub-task's progress as texts done out of all texts of the call."""
    return lambda done, _total, desc: progress(offset + done, total, desc)
