"""Evaluate a model on a dataset once: reuse a stored run with the same spec, else score,
summarise and store. The CLI and the pages both call ``run_eval``.
"""

from __future__ import annotations

import functools
import socket
import subprocess
import time
from dataclasses import dataclass
from typing import Any

import pandas as pd

from negviz import __version__
from negviz.cache import ScoreCache
from negviz.catalog import load_scorer
from negviz.datasets import load as load_dataset
from negviz.scoring import score_dataset
from negviz.metrics import STRICT
from negviz.paths import ROOT
from negviz.schema import PERTURBATION, SENTENCE_PAIRS, DatasetSpec, ModelSpec, spec_hash
from negviz.scorers.base import Progress, no_progress
from negviz.summaries import summarize


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


# Datasets whose score is a sentence similarity m(reference, candidate) (DEMETR, CANNOT): bi-encoders
# use cosine there, as the NegBLEURT paper does; retrieval datasets keep the NevIR dot product.
# Applied only when neither the user nor the catalog sets a similarity, and written into the
# model spec, so the stored run's provenance and key say which similarity was used.
SIMILARITY_KINDS = (PERTURBATION, SENTENCE_PAIRS)
METRIC_SIMILARITY = {"bi-encoder": "cosine"}


def metric_spec(model: ModelSpec, kind: str) -> ModelSpec:
    """``model`` with ``similarity=cosine`` when it is a bi-encoder scored on a similarity dataset
    and no similarity was chosen; otherwise ``model`` unchanged."""
    from negviz.catalog import resolve

    if kind not in SIMILARITY_KINDS or "similarity" in model.opts:
        return model
    resolved = resolve(model).spec  # the family and the catalog's default options
    similarity = METRIC_SIMILARITY.get(resolved.family or "")
    if similarity is None or "similarity" in resolved.opts:
        return model
    return model.with_options(similarity=similarity)


def run_key(model: ModelSpec, revision: str, dataset: DatasetSpec, options: dict[str, Any]) -> str:
    """What makes two runs the same: resolved model spec and revision, dataset spec, options."""
    return spec_hash({"model": model.to_dict(), "revision": revision, "dataset": dataset.to_dict(), "options": options})


@dataclass
class EvalResult:
    record: Any  # negviz.store.RunRecord
    summary: dict
    scores: pd.DataFrame | None  # None when a stored run was reused (read it from the store)
    reused: bool


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
) -> EvalResult:
    from negviz.store import RunRecord

    start = time.perf_counter()
    model = ModelSpec.parse(model) if isinstance(model, str) else model
    dataset = DatasetSpec(name=dataset) if isinstance(dataset, str) else dataset
    ds = load_dataset(dataset)
    model = metric_spec(model, ds.kind)
    scorer = load_scorer(model, device=device, cache=cache if cache is not None else ScoreCache(), batch_size=batch_size)
    options = {"tie_rule": tie_rule, "checked_only": checked_only}
    key = run_key(scorer.spec, scorer.revision_id, ds.spec, options)
    if store is not None and not force:
        existing = store.find_run(key)
        if existing is not None:
            return EvalResult(existing, existing.summary, None, reused=True)
    if store is not None:
        store.check_writable()  # before the work: a read-only store is said now, not after scoring

    scores = score_dataset(ds.kind, ds.frame, scorer, progress)
    summary = summarize(ds.kind, ds.frame, scores, tie_rule=tie_rule, checked_only=checked_only)
    record = RunRecord(
        spec_key=key,
        kind="eval",
        model_name=scorer.spec.name,
        model_spec=scorer.spec.to_dict(),
        family=scorer.family,
        model_revision=scorer.revision_id,
        dataset_name=ds.spec.name,
        dataset_spec=ds.spec.to_dict(),
        dataset_kind=ds.kind,
        split=ds.spec.split,
        n=len(ds.frame),
        options=options,
        summary=summary,
        code_version=code_version(),
        device=scorer.device if scorer.loaded else "cached",
        wall_seconds=time.perf_counter() - start,
        host=socket.gethostname(),
    )
    if store is not None:
        record.run_id = store.save_run(record, scores)
    return EvalResult(record, summary, scores, reused=False)
