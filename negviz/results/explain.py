"""Analyses over a whole dataset that are stored like runs (kind "attribution"), computed once
and shared through the store: the cue's share of token attributions (negviz.analyses.cue_influence)
and per-layer curves (negviz.analyses.layers). The pure computations live in negviz.analyses; this
module resolves the model as an evaluation would, reuses a stored run of the same spec and saves
new ones (as negviz.evaluation.runner does for evaluations).

    result = run_cue_influence("all-MiniLM-L6-v2", "nevir", store=store, method="gradient-x-input")
    result = run_layer_curves("negminilm", "nevir", store=store)
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import pandas as pd

from negviz.core.options import Option
from negviz.core.schema import DatasetSpec
from negviz.scorers.base import Progress, no_progress
from negviz.scorers.introspect import IG_STEPS
from negviz.store.record import ATTRIBUTION as KIND

# Integrated gradients' steps, declared once (the CLI's --steps takes its range from here): each
# step is one forward and backward pass per text, and the midpoint sum converges long before
# 1,024 steps (its error, reported as completeness, is small at the default 32), so a larger
# number only runs for hours.
IG_STEPS_MAX = 1024
STEPS = Option(
    "steps",
    int,
    IG_STEPS,
    "integrated gradients: midpoint steps of the path integral, one forward and backward pass each",
    ge=1,
    le=IG_STEPS_MAX,
)


@dataclass
class InfluenceResult:
    record: Any
    reused: bool
    note: str | None = None


def analysis_inputs(model: str, dataset: DatasetSpec | str, store=None, device: str | None = None):
    """(dataset, scorer) of a stored analysis, the model resolved as an evaluation of the dataset
    resolves it (negviz.evaluation.runner: held-out split, similarity) so the two describe the same scorer."""
    from negviz.core.cache import ScoreCache
    from negviz.datasets import load as load_dataset
    from negviz.evaluation.catalog import load_scorer, resolve_model
    from negviz.evaluation.runner import checked_model, metric_spec

    dataset = DatasetSpec(name=dataset) if isinstance(dataset, str) else dataset
    resolved = checked_model(model, dataset)
    ds = load_dataset(dataset, store=store)
    spec = metric_spec(resolved, ds.kind)
    if spec != resolved.spec:
        resolved = resolve_model(spec)
    return ds, load_scorer(resolved, device=device, cache=ScoreCache())


def stored_result(store, key: str, force: bool) -> InfluenceResult | None:
    """The stored run of ``key`` to reuse (None: compute; a read-only store fails now, before the work)."""
    if store is None:
        return None
    if not force:
        existing = store.find_run(key)
        if existing is not None:
            return InfluenceResult(existing, reused=True)
    store.check_writable()
    return None


def save_result(store, record, scores: pd.DataFrame, force: bool) -> InfluenceResult:
    from negviz.evaluation.runner import store_once

    if store is None:
        return InfluenceResult(record, reused=False)
    stored, note = store_once(store, record, scores, replace=force)
    return InfluenceResult(stored, reused=note is not None, note=note)


def run_cue_influence(
    model: str,
    dataset: DatasetSpec | str,
    *,
    store=None,
    method: str = "occlusion",
    steps: int | None = None,
    device: str | None = None,
    progress: Progress = no_progress,
    force: bool = False,
) -> InfluenceResult:
    """Attribute every item of a dataset and store the run (kind "attribution"); a stored run of
    the same spec is reused unless ``force``."""
    from negviz.analyses.attribution import CUE_RULE
    from negviz.analyses.cue_influence import ANALYSIS, attribute_items, check_method, summarize
    from negviz.analyses.inspector import automatic_types
    from negviz.evaluation.item_scoring import score_dataset
    from negviz.evaluation.runner import run_key, scored_record

    start = time.perf_counter()
    check_method(method)  # before any model is loaded
    if steps is not None:
        steps = STEPS.coerce(steps, "integrated gradients")  # its declared range, before any model is loaded
    steps = (steps or IG_STEPS) if method == "integrated-gradients" else None
    ds, scorer = analysis_inputs(model, dataset, store, device)
    # the cue rule is part of the spec: a run made under another rule is not reused for this one
    options = {"analysis": ANALYSIS, "method": method, **({"steps": steps} if steps else {}), "cue_rule": CUE_RULE}
    key = run_key(scorer.spec, scorer.revision_id, ds.spec, options)
    reused = stored_result(store, key, force)
    if reused is not None:
        return reused
    verdict_scores = score_dataset(ds.kind, ds.frame, scorer)  # the slot scores, from the score cache
    quantities = attribute_items(scorer, ds.kind, ds.frame, method, steps, progress)
    scores = pd.concat([verdict_scores, quantities], ignore_index=True)
    types = automatic_types(ds) if ds.kind.has_verdicts else None
    summary = summarize(ds.kind, scores, method, steps, types)
    record = scored_record(KIND, key, scorer, ds, ds.spec.name, options, summary, start)
    return save_result(store, record, scores, force)


def run_layer_curves(
    model: str,
    dataset,
    *,
    store=None,
    columns: tuple[str, str] | None = None,
    device: str | None = None,
    progress: Progress = no_progress,
    force: bool = False,
):
    """Every item's per-layer curve for one twin of columns (default: the documents), stored as a
    run of kind "attribution" (options: analysis "layer curves", the columns); reused when stored."""
    from negviz.analyses.inspector import automatic_types
    from negviz.analyses.layers import ANALYSIS, curve_scores, dataset_curves, summarize, twins
    from negviz.evaluation.runner import run_key, scored_record

    start = time.perf_counter()
    ds, scorer = analysis_inputs(model, dataset, store, device)
    pairs = twins(ds.kind)
    if not pairs:
        raise ValueError(
            f"{ds.spec.name} ({ds.kind.name}) has no two texts that differ by an edit to compare layer by layer"
        )
    columns = tuple(columns or pairs[0])
    if columns not in pairs:
        raise ValueError(f"columns {columns} are not a twin of {ds.kind.name} items; use one of {pairs}")
    options = {"analysis": ANALYSIS, "columns": list(columns)}
    key = run_key(scorer.spec, scorer.revision_id, ds.spec, options)
    reused = stored_result(store, key, force)
    if reused is not None:
        return reused
    curves = dataset_curves(scorer, ds.kind, ds.frame, ds.kind.item_ids(ds.frame).tolist(), columns, progress=progress)
    summary = summarize(curves, automatic_types(ds), columns)
    record = scored_record(KIND, key, scorer, ds, ds.spec.name, options, summary, start)
    return save_result(store, record, curve_scores(curves), force)
