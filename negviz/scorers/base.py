"""The one Scorer interface every model family implements.

``score(queries, docs)`` scores aligned lists. The base class scores each unique pair once,
checks the on-disk cache first, and loads the model only when something is not cached
(so a warm re-run never imports torch). Families implement ``_load`` and ``_score_pairs``;
bi-encoders work per text instead (see ``EmbeddingScorer``).

Work reaches the cache as it is done, a checkpoint (about ``checkpoint_every`` texts or pairs,
whole batches) at a time, so a run that is killed or fails half-way resumes from the last
checkpoint instead of from zero. ``encoded`` counts the texts/pairs the model actually computed.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from typing import Any, Callable, ClassVar, Sequence

import numpy as np

from negviz.core.cache import ScoreCache
from negviz.core.heavy import heavy_import
from negviz.core.options import Option, coerce_options, defaults
from negviz.core.schema import ModelSpec, spec_hash, text_hash

# progress(done, total, description): the CLI wraps tqdm, the UI a progress bar.
Progress = Callable[[int, int, str], None]


def no_progress(done: int, total: int, desc: str) -> None:  # noqa: ARG001
    return None


def checkpoints(todo: list, size: int | None) -> list[list]:
    """``todo`` cut into consecutive chunks of ``size`` (all of it at once when size is None)."""
    if not size or size >= len(todo):
        return [todo]
    return [todo[i : i + size] for i in range(0, len(todo), size)]


def chunk_progress(progress: Progress, offset: int, length: int, total: int) -> Progress:
    """A chunk's own progress(done, of, desc) reported as items done out of the whole call."""

    def report(done: int, of: int, desc: str) -> None:
        progress(offset + (round(done / of * length) if of else length), total, desc)

    return report


class Scorer(ABC):
    """Scores (query, document) pairs; higher means more relevant."""

    family: ClassVar[str] = ""
    # Options this family understands (type, default, range, help); anything else is an error.
    declared_options: ClassVar[tuple[Option, ...]] = ()
    # {name: default}, derived from declared_options for each subclass.
    default_options: ClassVar[dict[str, Any]] = {}
    # Options that change scores (and so the cache namespace); default: all of them.
    scoring_options: ClassVar[tuple[str, ...] | None] = None
    # Whether similarity of (reference, candidate) is symmetric (DEMETR use).
    symmetric: ClassVar[bool] = False
    # Texts/pairs per cache write (rounded up to whole batches); None: one write at the end, for
    # families whose scoring is cheap or needs the whole call at once (TF-IDF, BM25).
    checkpoint_every: ClassVar[int | None] = 1024
    # Whether a pair's score depends on every document of the score() call (BM25's collection):
    # such a run is never cut into shards (negviz.evaluation.fill), which would change its numbers.
    whole_call: ClassVar[bool] = False
    # Inference precision on CUDA unless $NEGVIZ_PRECISION says otherwise (negviz.core.device).
    cuda_precision: ClassVar[str] = "fp32"
    # A family that runs no tensors (TF-IDF, BM25) is on the CPU whatever the machine has: its
    # device is "cpu" without asking CUDA, so evaluating it never imports torch (2-4 s).
    cpu_only: ClassVar[bool] = False

    def __init__(
        self,
        spec: ModelSpec,
        source: str | None = None,
        device: str | None = None,
        cache: ScoreCache | None = None,
        batch_size: int | None = None,
        revision_id: str | None = None,
        weight_format: str = "",
    ):
        from negviz.core.device import check_batch_size, requested_device

        typed = self.check_options(spec.opts)
        self.spec = ModelSpec.make(spec.name, spec.family, spec.revision, **typed)
        self.options = {**self.default_options, **typed}
        check_batch_size(batch_size)
        self.source = source or spec.name  # local path or hub id handed to the loader
        self._device = requested_device(device) if device else None  # a bad request fails here
        self.cache = cache
        self._batch_size = batch_size
        # The resolved revision (a commit hash when known) keys the cache with the model id.
        self.revision_id = revision_id or spec.revision or "unversioned"
        self.weight_format = weight_format  # "INT8 ONNX ...", "fp32 safetensors", when the source says
        self._model: Any = None
        self.encoded = 0  # texts (bi-encoders) or pairs computed by the model, not read from the cache

    def __init_subclass__(cls, **kwargs: Any):
        super().__init_subclass__(**kwargs)
        cls.default_options = defaults(cls.declared_options)

    @classmethod
    def needs_files(cls, options: dict[str, Any]) -> bool:
        """Whether this spec loads model files (False: a remote endpoint does the work)."""
        return True

    @classmethod
    def check_options(cls, options: dict[str, Any]) -> dict[str, Any]:
        """``options`` typed and range-checked against ``declared_options`` (OptionError if not)."""
        return coerce_options(cls.family, cls.declared_options, options)

    # -- identity
    @property
    def name(self) -> str:
        return self.spec.name

    def _namespace(self, *option_names: str) -> str:
        opts = {k: self.options[k] for k in option_names if k in self.options}
        if self.half_precision:
            opts["precision"] = "fp16"  # fp16 vectors and scores never stand in for fp32 ones
        return spec_hash({"family": self.family, "model": self.spec.name, "revision": self.revision_id, **opts})

    @property
    def half_precision(self) -> bool:
        """Whether this scorer's model runs in fp16 on CUDA (device.half_precision, with the
        family's ``cuda_precision`` as the default)."""
        if self.cuda_precision == "fp32" and not os.environ.get("NEGVIZ_PRECISION"):
            return False  # fp32 unless asked: no device lookup (nor torch import) needed
        from negviz.core.device import half_precision

        return half_precision(self.device, self.cuda_precision)

    @property
    def score_namespace(self) -> str:
        names = self.scoring_options if self.scoring_options is not None else tuple(self.options)
        return self._namespace(*names)

    # -- device and model
    @property
    def device(self) -> str:
        if self._device is None:
            from negviz.core.device import pick_device

            self._device = "cpu" if self.cpu_only else pick_device()
        return self._device

    @property
    def batch_size(self) -> int:
        if self._batch_size is None:
            from negviz.core.device import default_batch_size

            self._batch_size = default_batch_size(self.device, heavy=getattr(self, "heavy", False))
        return self._batch_size

    @property
    def model(self) -> Any:
        if self._model is None:
            self._model = self._load()
        return self._model

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def _checkpoint_size(self) -> int | None:
        """Items per cache write: ``checkpoint_every`` rounded up to whole batches."""
        if not self.cache or not self.checkpoint_every:
            return None
        batch = max(1, int(self.batch_size))
        return max(1, -(-int(self.checkpoint_every) // batch)) * batch

    @abstractmethod
    def _load(self) -> Any:
        """Load the model from ``self.source`` onto ``self.device``."""

    def close(self) -> None:
        """Drop the model and free GPU memory."""
        self._model = None
        if str(self._device or "").startswith("cuda"):
            torch = heavy_import("torch")

            torch.cuda.empty_cache()

    # -- scoring
    def score(self, queries: Sequence[str], docs: Sequence[str], progress: Progress = no_progress) -> np.ndarray:
        """Scores of aligned (query, doc) pairs as float64; each unique pair is scored once."""
        if len(queries) != len(docs):
            raise ValueError(f"{len(queries)} queries but {len(docs)} documents; the lists must be aligned")
        if not len(queries):
            return np.zeros(0)
        keys = [text_hash(q) + text_hash(d) for q, d in zip(queries, docs)]
        unique: dict[str, tuple[str, str]] = {}
        for key, q, d in zip(keys, queries, docs):
            unique.setdefault(key, (q, d))
        known = self.cache.get_scores(self.score_namespace, unique) if self.cache else {}
        todo = [k for k in unique if k not in known]
        if todo:
            # Longest first: batches of similar length pad less, and OOM shows up early.
            todo.sort(key=lambda k: -(len(unique[k][0]) + len(unique[k][1])))
            known = dict(known)
            offset = 0
            for chunk in checkpoints(todo, self._checkpoint_size()):
                report = chunk_progress(progress, offset, len(chunk), len(todo))
                fresh = self._score_pairs([unique[k][0] for k in chunk], [unique[k][1] for k in chunk], report)
                new = dict(zip(chunk, map(float, fresh)))
                if self.cache:  # now, not at the end: a killed run keeps what it finished
                    self.cache.put_scores(self.score_namespace, new)
                self.encoded += len(chunk)
                known.update(new)
                offset += len(chunk)
        progress(len(unique), len(unique), "scored")
        return np.array([known[k] for k in keys], dtype=np.float64)

    @abstractmethod
    def _score_pairs(self, queries: list[str], docs: list[str], progress: Progress) -> np.ndarray:
        """Score unique pairs (already sorted by length); report progress in pairs."""

    def encoder_parts(self) -> Any:
        """The PyTorch encoder behind the scores (negviz.scorers.introspect.EncoderParts), for
        gradients and per-layer states; None for a family that has none to offer."""
        return None

    def describe(self) -> dict[str, Any]:
        """Provenance for stored runs."""
        return {
            "model": self.spec.name,
            "family": self.family,
            "source": self.source,
            "revision": self.revision_id,
            "format": self.weight_format or None,
            "options": self.options,
            "device": self._device or "unloaded",
        }


class EmbeddingScorer(Scorer):
    """A scorer that embeds queries and documents separately (bi-encoders).

    Each unique text is embedded once per role and cached as a vector; pair scores are then
    a dot product or cosine. Subclasses implement ``_embed(texts, role)``.
    """

    default_options: ClassVar[dict[str, Any]] = {"similarity": "dot"}
    # Options that change embeddings (not the similarity applied afterwards).
    embedding_options: ClassVar[tuple[str, ...]] = ()

    @property
    def embedding_namespace(self) -> str:
        return self._namespace(*self.embedding_options)

    def role_prefix(self, role: str) -> str:
        """Text prepended for a role ("query"/"document"), e.g. E5's "query: "."""
        return ""

    def uncached(self, texts: Sequence[str], role: str = "document") -> list[str]:
        """The texts ``embed(texts, role)`` would encode now: each unique text whose vector the
        cache does not hold, in first-seen order (all of them without a cache)."""
        prefix = self.role_prefix(role)
        unique: dict[str, str] = {}
        for t in texts:
            unique.setdefault(text_hash(prefix + t), t)
        held = self.cache.held_vectors(self.embedding_namespace, unique) if self.cache else set()
        return [t for k, t in unique.items() if k not in held]

    def embed(self, texts: Sequence[str], role: str = "document", progress: Progress = no_progress) -> np.ndarray:
        """Embeddings (float32, one row per text), each unique text computed once and cached."""
        prefix = self.role_prefix(role)
        keys = [text_hash(prefix + t) for t in texts]
        unique: dict[str, str] = {}
        for key, t in zip(keys, texts):
            unique.setdefault(key, prefix + t)
        known = self.cache.get_vectors(self.embedding_namespace, unique) if self.cache else {}
        todo = [k for k in unique if k not in known]
        if todo:
            todo.sort(key=lambda k: -len(unique[k]))
            known = dict(known)
            offset = 0
            for chunk in checkpoints(todo, self._checkpoint_size()):
                report = chunk_progress(progress, offset, len(chunk), len(todo))
                fresh = np.asarray(self._embed([unique[k] for k in chunk], report), dtype=np.float32)
                new = dict(zip(chunk, fresh))
                if self.cache:  # now, not at the end: a killed run keeps what it finished
                    self.cache.put_vectors(self.embedding_namespace, new)
                self.encoded += len(chunk)
                known.update(new)
                offset += len(chunk)
        return np.stack([known[k] for k in keys]) if keys else np.zeros((0, 0), dtype=np.float32)

    @abstractmethod
    def _embed(self, texts: list[str], progress: Progress) -> np.ndarray:
        """Embed texts (role prefixes already applied, sorted longest first)."""

    def score(self, queries: Sequence[str], docs: Sequence[str], progress: Progress = no_progress) -> np.ndarray:
        if len(queries) != len(docs):
            raise ValueError(f"{len(queries)} queries but {len(docs)} documents; the lists must be aligned")
        if not len(queries):
            return np.zeros(0)
        same_role = self.role_prefix("query") == self.role_prefix("document")
        if same_role:  # one pass over all texts, so a text that is both query and doc is embedded once
            vecs = self.embed(list(queries) + list(docs), "document", progress)
            q, d = vecs[: len(queries)], vecs[len(queries) :]
        else:
            q, d = self.embed(queries, "query", progress), self.embed(docs, "document", progress)
        return pair_similarity(q, d, self.options["similarity"])

    def _score_pairs(self, queries: list[str], docs: list[str], progress: Progress) -> np.ndarray:
        return self.score(queries, docs, progress)


def pair_similarity(q: np.ndarray, d: np.ndarray, similarity: str) -> np.ndarray:
    """Row-wise similarity of aligned embedding matrices, in float64."""
    q, d = q.astype(np.float64), d.astype(np.float64)
    if similarity == "dot":
        return np.einsum("ij,ij->i", q, d)
    if similarity == "cosine":
        qn = q / np.maximum(np.linalg.norm(q, axis=1, keepdims=True), 1e-12)
        dn = d / np.maximum(np.linalg.norm(d, axis=1, keepdims=True), 1e-12)
        return np.einsum("ij,ij->i", qn, dn)
    raise ValueError(f"unknown similarity {similarity!r}; use 'dot' or 'cosine'")
