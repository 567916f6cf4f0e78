"""Datasets: the shipped benchmarks, user files, and one ``load(spec)`` for both.

    from negviz.datasets import load
    ds = load("nevir")                                    # shipped, 1,383 pairs
    ds = load(DatasetSpec.make("demetr", limit=100, perturbations="critical_id8_negation"))
    ds = load(DatasetSpec.make("my_pairs.csv", columns="pair_id=id,q1=query1"))

Every loader returns a Dataset whose frame has ``schema.COLUMNS[kind]`` first. Shipped
datasets are registered below (one line each); their origin and licence are in
data/SOURCES.md.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from negviz.datasets.base import Dataset, apply_limit, check_options
from negviz.datasets.formats import FORMATS
from negviz.datasets.userfile import load_file
from negviz.datasets.validate import validate
from negviz.errors import DataValidationError
from negviz.registry import Registry
from negviz.schema import EXCLUSION, PAIRS, PERTURBATION, SENTENCE_PAIRS, DatasetSpec

__all__ = ["DATASETS", "Dataset", "list_datasets", "load", "load_file", "validate"]

DATASETS = Registry("dataset")
DATASETS.register(
    "nevir",
    "negviz.datasets.shipped:load_nevir",
    kind=PAIRS,
    title="NevIR",
    description="Contrast pairs (q1, d1, q2, d2) that differ only by negation; a pair counts "
    "only if both queries rank their own document first. Joined with CondaQA for the negation "
    "cue and edit type.",
    splits=("test", "train", "validation"),
    source="orionw/NevIR (test split), joined with AbhilashaRavichander/CondaQA",
    licence="MIT (NevIR); Apache-2.0 (CondaQA cue metadata)",
    n=1383,
    random_baseline=0.25,
)
DATASETS.register(
    "excluir",
    "negviz.datasets.shipped:load_excluir",
    kind=EXCLUSION,
    title="ExcluIR (1,000-query sample)",
    description="Exclusionary queries with a positive document and an excluded one; Right Rank "
    "is the share of queries whose positive is ranked above the excluded document.",
    splits=("test",),
    source="zwh-sdu/ExcluIR manual test set, seed-42 sample from 01tilinfinity/FLIP",
    licence="unclear (no licence file); HotpotQA/Wikipedia text is CC BY-SA 4.0",
    n=1000,
    random_baseline=0.5,
)
DATASETS.register(
    "demetr",
    "negviz.datasets.shipped:load_demetr",
    kind=PERTURBATION,
    title="DEMETR",
    description="35 perturbations of 1,000 machine translations (negation, antonym, ...); a "
    "metric should score the perturbed translation below the correct one.",
    splits=("test",),
    source="marzenakrp/demetr",
    licence="MIT",
    n=35000,
    options=("perturbations", "checked_only"),
)
DATASETS.register(
    "cannot",
    "negviz.datasets.shipped:load_cannot",
    kind=SENTENCE_PAIRS,
    title="CANNOT (per-source files)",
    description="Sentences paired with their negation (label 1) or, for SemAntoNeg, a paraphrase "
    "(label 0); a negation-aware model gives negated pairs low similarity.",
    splits=("test", "train", "heldout"),
    source="dmlls/cannot-dataset (processed per-source files)",
    licence="CC BY-SA 4.0",
    n=25948,
    options=("sources",),
)

_FILE_OPTIONS = ("kind", "columns", "format", "file_hash")


def _looks_like_path(name: str) -> bool:
    return os.sep in name or "/" in name or Path(name).suffix.lower() in FORMATS


def load(spec: DatasetSpec | str) -> Dataset:
    """Load a shipped dataset by name, or a file by path; applies limit and options."""
    spec = DatasetSpec.make(spec) if isinstance(spec, str) else spec
    if spec.name not in DATASETS and (Path(spec.name).is_file() or _looks_like_path(spec.name)):
        return _load_user_file(spec)
    entry = DATASETS.entry(spec.name)  # UnknownNameError with "did you mean"
    frame, notes = entry.load()(spec)
    meta = entry.meta
    return Dataset(spec, meta["kind"], frame, meta["title"], meta["source"], meta["licence"], notes)


def _load_user_file(spec: DatasetSpec) -> Dataset:
    opts = check_options(spec, _FILE_OPTIONS)
    if not Path(spec.name).is_file():
        raise DataValidationError("no such file (and no shipped dataset has this name).", file=spec.name)
    ds = load_file(spec.name, kind=opts.get("kind", PAIRS), columns=opts.get("columns"), format=opts.get("format"))
    ds.frame = apply_limit(ds.frame, ds.kind, spec.limit)
    ds.spec = DatasetSpec.make(spec.name, spec.split, spec.limit, **ds.spec.opts)  # with the current file_hash
    return ds


def list_datasets() -> pd.DataFrame:
    """One row per shipped dataset (for `negviz datasets` and the catalog page)."""
    rows = [
        {
            "name": e.name,
            "kind": e.meta["kind"],
            "title": e.meta["title"],
            "n": e.meta["n"],
            "splits": ",".join(e.meta["splits"]),
            "source": e.meta["source"],
            "licence": e.meta["licence"],
        }
        for e in DATASETS.entries()
    ]
    return pd.DataFrame(rows, columns=["name", "kind", "title", "n", "splits", "source", "licence"])
