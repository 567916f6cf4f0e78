"""Datasets: the shipped benchmarks, user files, and one ``load(spec)`` for both.

    from negviz.datasets import load
    ds = load("nevir")                                    # shipped, 1,383 pairs
    ds = load(DatasetSpec.make("demetr", limit=100, perturbations="critical_id8_negation"))
    ds = load(DatasetSpec.make("my_pairs.csv", columns="pair_id=id,q1=query1"))
    ds = load("mypairs", store=store)                     # added to the results store (datasets.added)

Every loader returns a Dataset whose frame has ``schema.COLUMNS[kind]`` first. Shipped
datasets are registered below (one line each); their origin and licence are in
data/SOURCES.md.
"""

from __future__ import annotations

import difflib

import pandas as pd

from negviz.datasets import added
from negviz.datasets.base import Dataset, apply_limit, check_options
from negviz.datasets.facts import DatasetFacts, kind_facts
from negviz.datasets.userfile import load_file
from negviz.datasets.validate import validate
from negviz.errors import DataValidationError
from negviz.registry import Registry, UnknownNameError
from negviz.options import Option
from negviz.paths import looks_like_path, on_disk
from negviz.schema import EXCLUSION, KINDS, PAIRS, PERTURBATION, SENTENCE_PAIRS, DatasetSpec

__all__ = ["DATASETS", "Dataset", "DatasetFacts", "facts", "list_datasets", "load", "load_file", "validate"]

DATASETS = Registry("dataset")
DATASETS.register(
    "nevir",
    "negviz.datasets.shipped:load_nevir",
    **kind_facts(PAIRS),
    title="NevIR",
    description="Contrast pairs (q1, d1, q2, d2) that differ only by negation; a pair counts "
    "only if both queries rank their own document first. Joined with CondaQA for the negation "
    "cue and edit type.",
    splits=("test", "train", "validation"),
    source="orionw/NevIR (test split), joined with AbhilashaRavichander/CondaQA",
    licence="MIT (NevIR); Apache-2.0 (CondaQA cue metadata)",
    n=1383,
)
DATASETS.register(
    "excluir",
    "negviz.datasets.shipped:load_excluir",
    **kind_facts(EXCLUSION),
    title="ExcluIR (1,000-query sample)",
    description="Exclusionary queries with a positive document and an excluded one; Right Rank "
    "is the share of queries whose positive is ranked above the excluded document.",
    splits=("test",),
    source="zwh-sdu/ExcluIR manual test set, seed-42 sample from 01tilinfinity/FLIP",
    licence="unclear (no licence file); HotpotQA/Wikipedia text is CC BY-SA 4.0",
    n=1000,
)
DATASETS.register(
    "demetr",
    "negviz.datasets.shipped:load_demetr",
    **kind_facts(PERTURBATION),
    title="DEMETR",
    description="35 perturbations of 1,000 machine translations (negation, antonym, ...); a "
    "metric should score the perturbed translation below the correct one.",
    splits=("test",),
    source="marzenakrp/demetr",
    licence="MIT",
    n=35000,
    options=(
        Option("perturbations", None, None, "comma list of DEMETR perturbation names (default: all 35)"),
        Option("checked_only", bool, False, "keep only items whose perturbation was checked (pert_check)"),
    ),
)
DATASETS.register(
    "cannot",
    "negviz.datasets.shipped:load_cannot",
    **kind_facts(SENTENCE_PAIRS),
    title="CANNOT (per-source files)",
    description="Sentences paired with their negation (label 1) or, for SemAntoNeg, a paraphrase "
    "(label 0); a negation-aware model gives negated pairs low similarity.",
    splits=("test", "train", "heldout"),
    source="dmlls/cannot-dataset (processed per-source files)",
    licence="CC BY-SA 4.0",
    n=25948,
    options=(Option("sources", None, None, "comma list of CANNOT sources (default: all)"),),
)

_FILE_OPTIONS = (
    Option("kind", str, None, "what the file holds", choices=KINDS),
    Option("columns", str, None, "column mapping, e.g. pair_id=id,q1=query1"),
    Option("format", str, None, "file format (default: from the suffix)"),
    Option("file_hash", str, None, "content hash, filled in on load"),
)


def load(spec: DatasetSpec | str, store=None) -> Dataset:
    """Load a shipped dataset by name, a file by path, or a dataset added to the results store
    (``store``, else $NEGVIZ_DB_URL's; asked only for a name that is neither); applies limit
    and options."""
    spec = DatasetSpec.make(spec) if isinstance(spec, str) else spec
    if spec.name not in DATASETS and (on_disk(spec.name, "file") or looks_like_path(spec.name)):
        return _load_user_file(spec)
    if spec.name not in DATASETS:
        store = store if store is not None else added.default_store()
        ds = added.load_added(spec, store) if store is not None else None
        if ds is not None:
            return ds
        raise UnknownNameError(_unknown_message(spec.name, store))
    entry = DATASETS.entry(spec.name)
    frame, notes = entry.load()(spec)
    meta = entry.meta
    return Dataset(spec, meta["kind"], frame, meta["title"], meta["source"], meta["licence"], notes)


def _load_user_file(spec: DatasetSpec) -> Dataset:
    opts = check_options(spec, _FILE_OPTIONS)
    if not on_disk(spec.name, "file"):
        raise DataValidationError("no such file (and no shipped dataset has this name).", file=spec.name)
    ds = load_file(spec.name, kind=opts.get("kind", PAIRS), columns=opts.get("columns"), format=opts.get("format"))
    ds.frame = apply_limit(ds.frame, ds.kind, spec.limit)
    ds.spec = DatasetSpec.make(spec.name, spec.split, spec.limit, **ds.spec.opts)  # with the current file_hash
    return ds


def facts(dataset: DatasetSpec | str | Dataset, store=None) -> DatasetFacts:
    """Kind, id column, metric and random baseline of a dataset: from its registry entry when
    shipped, from its stored record when added, else (a user file) from its kind, which needs
    the file loaded."""
    name = dataset.spec.name if isinstance(dataset, Dataset) else getattr(dataset, "name", dataset)
    rec = None
    if name not in DATASETS and not isinstance(dataset, Dataset) and not looks_like_path(name):
        rec = added.record(name, store if store is not None else added.default_store())
    if name in DATASETS:
        meta = DATASETS.entry(name).meta
    elif rec is not None:
        meta = {**kind_facts(rec.kind), "title": name}
    else:
        ds = dataset if isinstance(dataset, Dataset) else load(dataset, store=store)
        meta = {**kind_facts(ds.kind), "title": ds.title}
    fields = ("kind", "title", "id_column", "metric", "item_metric", "random_baseline")
    return DatasetFacts(name, *(meta[f] for f in fields))


LIST_COLUMNS = ["name", "origin", "kind", "title", "n", "splits", "source", "licence", "sha256"]


def _unknown_message(name: str, store) -> str:
    """ "unknown dataset" with a "did you mean" over the shipped and the added names."""
    names = list(DATASETS)
    if store is not None:
        from negviz.store import datasets as stored

        names += stored.listing(store)["name"].tolist()
    close = difflib.get_close_matches(name, names, n=3, cutoff=0.5)
    hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
    where = "" if store is not None else " (no results store to look for added datasets in)"
    return (
        f"unknown dataset {name!r}{where}.{hint} Known: {', '.join(sorted(names))}; "
        "add your own with `negviz datasets add NAME FILE --kind KIND`."
    )


def list_datasets(store=None) -> pd.DataFrame:
    """One row per shipped dataset, then one per dataset added to ``store`` (for `negviz
    datasets`, the catalog page and the sidebar picker); ``sha256`` tells added contents apart."""
    rows = [
        {
            "name": e.name,
            "origin": "shipped",
            "kind": e.meta["kind"],
            "title": e.meta["title"],
            "n": e.meta["n"],
            "splits": ",".join(e.meta["splits"]),
            "source": e.meta["source"],
            "licence": e.meta["licence"],
            "sha256": "",
        }
        for e in DATASETS.entries()
    ]
    if store is not None:
        from negviz.store import datasets as stored

        for r in stored.listing(store).to_dict("records"):
            rows.append(
                {
                    "name": r["name"],
                    "origin": "added",
                    "kind": r["kind"],
                    "title": r["name"],
                    "n": r["n"],
                    "splits": ",".join(added.SPLITS),
                    "licence": r["licence"] or "not given",
                    "source": f"{r['source_file']}, added by {r['added_by']} on {r['added_at']:%Y-%m-%d}",
                    "sha256": r["sha256"],
                }
            )
    return pd.DataFrame(rows, columns=LIST_COLUMNS)
