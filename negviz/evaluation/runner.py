"""Evaluate a model on a dataset once: reuse a stored run with the same spec, else score,
summarise and store. The CLI and the pages both call ``run_eval``.
"""

from __future__ import annotations

import functools
import socket
import subprocess
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pandas as pd

from negviz import __version__
from negviz.core import cpu_features
from negviz.core.cache import ScoreCache
from negviz.core.device import check_batch_size, requested_device
from negviz.core.errors import NegvizError
from negviz.core.kinds import DatasetKind
from negviz.core.metrics import STRICT
from negviz.core.paths import ROOT, looks_like_path
from negviz.core.schema import DatasetSpec, ModelSpec, spec_hash
from negviz.datasets import load as load_dataset
from negviz.datasets.added import content_hash
from negviz.datasets.training import unseen_split
from negviz.evaluation.catalog import ResolvedModel, checkpoint_training, load_scorer, resolve_model
from negviz.evaluation.item_scoring import score_dataset
from negviz.evaluation.summaries import summarize
from negviz.scorers.base import Progress, no_progress

if TYPE_CHECKING:
    from negviz.store.record import RunRecord


@functools.lru_cache(maxsize=1)
def code_version() -> str:
    """negviz version plus the git commit when run from a checkout."""
    try:
        sha = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, timeout=5
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        sha = ""
    return f"{__version__}+g{sha}" if sha else __version__


# Datasets whose score is a sentence similarity m(reference, candidate) (DEMETR, CANNOT; their
# kind's sentence_similarity): bi-encoders use cosine there, as the NegBLEURT paper does; retrieval
# datasets keep the NevIR dot product. Applied only when neither the user nor the catalog sets a
# similarity, and written into the model spec, so the stored run's provenance and key say which
# similarity was used.
METRIC_SIMILARITY = {"bi-encoder": "cosine"}


def metric_spec(model: ModelSpec | ResolvedModel, kind: DatasetKind) -> ModelSpec:
    """``model`` with ``similarity=cosine`` when it is a bi-encoder scored on a similarity dataset
    and no similarity was chosen; otherwise ``model`` unchanged."""
    spec = model.spec if isinstance(model, ResolvedModel) else model
    if not kind.sentence_similarity or "similarity" in spec.opts:
        return spec
    resolved = model if isinstance(model, ResolvedModel) else resolve_model(model)  # family, catalog options
    similarity = METRIC_SIMILARITY.get(resolved.spec.family or "")
    if similarity is None or "similarity" in resolved.spec.opts:
        return spec
    return spec.with_options(similarity=similarity)


def eval_options(scorer, tie_rule: str, checked_only: bool) -> dict[str, Any]:
    """The options of an evaluation's run key (a whole run's, or each of its shards')."""
    options: dict[str, Any] = {"tie_rule": tie_rule, "checked_only": checked_only}
    if getattr(scorer, "half_precision", False):  # objects a notebook passes may not be Scorers
        options["precision"] = "fp16"  # an fp16 run is stored apart from the fp32 run of its spec
    return options


def run_key(model: ModelSpec, revision: str, dataset: DatasetSpec, options: dict[str, Any]) -> str:
    """What makes two runs the same: resolved model spec and revision, dataset spec, options."""
    return spec_hash({"model": model.to_dict(), "revision": revision, "dataset": dataset.to_dict(), "options": options})


@dataclass
class EvalResult:
    record: Any  # negviz.store.RunRecord
    summary: dict
    scores: pd.DataFrame | None  # None when a stored run was reused (read it from the store)
    reused: bool
    note: str | None = None  # said to the user, e.g. why a stored run was reused after scoring


def run_head(result, dataset: str, between: dict[str, Any]) -> dict[str, Any]:
    """What a run's JSON begins with (`negviz eval --json`, over pairs or a corpus): the model,
    the dataset, ``between`` (n, or the corpus searched), then where it ran and which stored run
    it is. ``result``: an EvalResult or a CorpusEvalResult."""
    r = result.record
    return {
        "model": r.model_name,
        "model_spec": r.model_spec,
        "family": r.family,
        "revision": r.model_revision,
        "dataset": dataset,
        "split": r.split,
        **between,
        "wall_seconds": round(r.wall_seconds or 0.0, 3),
        "device": r.device,
        "run_id": r.run_id,
        "reused_stored_run": result.reused,
        "code_version": r.code_version,
    }


def store_once(
    store, record, scores: pd.DataFrame, *, replace: bool = False, added_sha256: str | None = None
) -> tuple[Any, str | None]:
    """Save a computed run (``replace``: a forced re-run replaces the stored run of its spec).
    A spec is stored once: when another process stored this spec while this one computed, its
    run is returned instead, with a note saying so. Returns (the stored record, note or None)."""
    from negviz.store import DuplicateRunError

    try:
        record.run_id = store.save_run(record, scores, replace=replace, added_sha256=added_sha256)
    except DuplicateRunError as taken:
        won = taken.run
        return won, (
            f"another evaluation stored this spec (run {won.run_id}, on {won.host or 'another host'}) "
            "while this one was computing; that stored run is reused, and this one was not stored"
        )
    return record, None


def check_held_out(model: str, dataset: DatasetSpec) -> None:
    """A model trained on part of a shipped dataset is evaluated there only on the split it never
    saw (catalog.TRAINED_ON; a `negviz finetune` checkpoint: its training source's, from the
    checkpoint's record): any other split would score items it was trained on."""
    from negviz.evaluation.catalog import evaluation_split

    held_out = evaluation_split(model, dataset.name)
    if held_out and dataset.split != held_out:
        raise NegvizError(
            f"{model} was trained on part of {dataset.name}; on {dataset.name} it is evaluated "
            f"on its held-out split only: use --split {held_out} (not {dataset.split})"
        )
    trained = checkpoint_training(model) if looks_like_path(model) else None
    if not trained or dataset.name not in trained["datasets"]:
        return
    unseen = unseen_split(trained["source"])
    if unseen is None:
        raise NegvizError(
            f"{model} was fine-tuned on part of {dataset.name} (--train {trained['source']}); its held-out "
            f"part is measured by the fine-tuning run that made it (the board's {dataset.name} cell), "
            f"and any split of {dataset.name} here would score items it was trained on"
        )
    if dataset.split != unseen:
        raise NegvizError(
            f"{model} was fine-tuned on part of {dataset.name} (--train {trained['source']}); on "
            f"{dataset.name} it is evaluated on its held-out split only: use --split {unseen} (not {dataset.split})"
        )


def checked_model(model: ModelSpec | str, dataset: DatasetSpec) -> ResolvedModel:
    """The model resolved (family, catalog options, typed and range-checked) and allowed on the
    dataset's split: what is cheap to check before any model file is located or loaded."""
    resolved = resolve_model(ModelSpec.parse(model) if isinstance(model, str) else model)
    check_held_out(resolved.spec.name, dataset)
    return resolved


def kept_texts(kind: DatasetKind, frame: pd.DataFrame, scorer) -> pd.DataFrame | None:
    """The text a generative scorer kept per item and slot (its reasoning), None for others."""
    if not hasattr(scorer, "reasoning_for"):
        return None
    from negviz.evaluation.item_scoring import scoring_inputs

    queries, docs, items, slots = scoring_inputs(kind, frame)
    texts = scorer.reasoning_for(queries, docs)
    if texts is None:
        return None
    return pd.DataFrame({"item_id": items, "slot": slots, "name": "reasoning", "text": texts})


def _onnx(scorer) -> bool:
    from negviz.scorers.onnx_backend import is_onnx_folder

    return "ONNX" in (scorer.weight_format or "") or is_onnx_folder(str(scorer.source))


def scored_record(
    kind: str,
    key: str,
    scorer,
    ds,
    dataset_name: str,
    options: dict,
    summary: dict,
    start: float,
    cost_key: str | None = None,
) -> RunRecord:
    """The record of a finished scoring run (an evaluation, or a retrieval over a corpus): the
    scorer's provenance (weights format; a generative family's back end, requests and cache hits)
    joins the summary, not the key, so INT8 ONNX never passes for the fp32 model unnoticed.
    ``cost_key``: what the computing cost is kept under (default ``key``; a shard of a run has its own)."""
    from negviz.store import RunRecord

    if scorer.weight_format:
        summary["model_format"] = scorer.weight_format
    if scorer.loaded and str(scorer.device).startswith("cuda"):
        summary["precision"] = "fp16" if getattr(scorer, "half_precision", False) else "fp32"
    elif scorer.loaded and _onnx(scorer):  # its INT8 arithmetic depends on the CPU's features
        summary[cpu_features.SUMMARY_KEY] = cpu_features.int8_cpu()
    if trained := checkpoint_training(scorer.source):  # a `negviz finetune` checkpoint: what it saw
        summary["trained"] = trained
    if hasattr(scorer, "run_provenance"):
        summary["generation"] = scorer.run_provenance()
    return RunRecord(
        spec_key=key,
        kind=kind,
        model_name=scorer.spec.name,
        model_spec=scorer.spec.to_dict(),
        family=scorer.family,
        model_revision=scorer.revision_id,
        dataset_name=dataset_name,
        dataset_spec=ds.spec.to_dict(),
        dataset_kind=ds.kind.name,  # the store holds the name
        split=ds.spec.split,
        n=len(ds.frame),
        options=options,
        summary=summary,
        code_version=code_version(),
        device=scorer.device if scorer.loaded else "cached",
        wall_seconds=computing_cost(scorer, cost_key or key, time.perf_counter() - start),
        host=socket.gethostname(),
    )


COST_NAMESPACE = "run-cost"  # ScoreCache entries {run key: seconds the run took when it was computed}


def computing_cost(scorer, key: str, elapsed: float) -> float:
    """A run's wall_seconds: what computing it cost. A run whose every score came from the cache
    (the model computed nothing) took ``elapsed`` to read them, not to compute them: it records
    the cost of the run that computed them, kept in the cache beside its scores."""
    cache = getattr(scorer, "cache", None)
    if cache is None:
        return elapsed
    if getattr(scorer, "encoded", 0):
        cache.put_scores(COST_NAMESPACE, {key: elapsed})
        return elapsed
    return cache.get_scores(COST_NAMESPACE, [key]).get(key, elapsed)


def run_eval(
    model: ModelSpec | str,
    dataset: DatasetSpec | str,
    *,
    store=None,
    cache: ScoreCache | None = None,
    device: str | None = None,
    batch_size: int | None = None,
    progress: Progress = no_progress,
    force: bool = False,
    tie_rule: str = STRICT,
    checked_only: bool = False,
    datasets_from=None,
    save: bool = True,
) -> EvalResult:
    """``datasets_from``: the store added datasets are read from (default: ``store``).
    ``save=False``: a stored run of the spec in ``store`` is reused, a computed one is not stored
    (negviz.evaluate: nothing is stored until ``.save()``)."""
    start = time.perf_counter()
    scorer, ds = eval_inputs(
        model,
        dataset,
        cache=cache,
        device=device,
        batch_size=batch_size,
        checked_only=checked_only,
        datasets_from=datasets_from if datasets_from is not None else store,
    )
    return evaluate_scorer(
        scorer,
        ds,
        store=store,
        progress=progress,
        force=force,
        tie_rule=tie_rule,
        checked_only=checked_only,
        start=start,
        save=save,
    )


def eval_inputs(
    model: ModelSpec | str,
    dataset: DatasetSpec | str,
    *,
    cache: ScoreCache | None = None,
    device: str | None = None,
    batch_size: int | None = None,
    checked_only: bool = False,
    datasets_from=None,
):
    """(scorer, dataset) of an evaluation, as ``run_eval`` (and a sharded run) scores them: the model
    resolved and checked, the dataset loaded, the metric's similarity applied. Model files are
    located, weights not loaded."""
    # Everything cheap is checked before any model file is located or loaded.
    dataset = DatasetSpec(name=dataset) if isinstance(dataset, str) else dataset
    device = requested_device(device)
    check_batch_size(batch_size)
    resolved = checked_model(model, dataset)  # once
    ds = load_dataset(dataset, store=datasets_from)
    if checked_only and "checked" not in ds.kind.columns:
        raise NegvizError(
            f"--checked-only applies to perturbation datasets (DEMETR) only, not to {ds.spec.name!r} "
            f"({ds.kind.name}); drop it"
        )
    spec = metric_spec(resolved, ds.kind)
    if spec != resolved.spec:
        resolved = resolve_model(spec)
    scorer = load_scorer(
        resolved, device=device, cache=cache if cache is not None else ScoreCache(), batch_size=batch_size
    )
    return scorer, ds


def evaluate_scorer(
    scorer,
    ds,
    *,
    store=None,
    progress: Progress = no_progress,
    force: bool = False,
    tie_rule: str = STRICT,
    checked_only: bool = False,
    start: float | None = None,
    save: bool = True,
) -> EvalResult:
    """Score a loaded dataset with a ready Scorer, summarise, and store once (with ``store``).
    The one path under ``run_eval`` (catalog specs: the CLI, the Evaluate page) and
    ``negviz.evaluate`` (objects a notebook holds), so one model gets one set of verdicts."""
    start = time.perf_counter() if start is None else start
    options = eval_options(scorer, tie_rule, checked_only)
    key = run_key(scorer.spec, scorer.revision_id, ds.spec, options)
    if store is not None and not force:
        existing = store.find_run(key)
        if existing is not None:
            return EvalResult(existing, existing.summary, None, reused=True)
    if store is not None and save:
        store.check_writable()  # before the work: a read-only store is said now, not after scoring

    scores = score_dataset(ds.kind, ds.frame, scorer, progress)
    summary = summarize(ds.kind, ds.frame, scores, tie_rule=tie_rule, checked_only=checked_only)
    record = scored_record("eval", key, scorer, ds, ds.spec.name, options, summary, start)
    texts = kept_texts(ds.kind, ds.frame, scorer)
    if store is not None and save:  # a forced re-run replaces the stored run of the same spec
        stored, note = store_once(store, record, scores, replace=force, added_sha256=content_hash(ds.spec))
        if note is not None:
            return EvalResult(stored, stored.summary, None, reused=True, note=note)
        store.save_item_texts(record.run_id, texts)  # generative families' reasoning, beside the run
    return EvalResult(record, summary, scores, reused=False)
