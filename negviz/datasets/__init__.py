"""Datasets: the shipped benchmarks, user files, and one ``load(spec)`` for both.

    from negviz.datasets import load
    ds = load("nevir")                                    # shipped, 1,383 pairs
    ds = load(DatasetSpec.make("demetr", limit=100, perturbations="critical_id8_negation"))
    ds = load(DatasetSpec.make("my_pairs.csv", columns="pair_id=id,q1=query1"))
    ds = load("mypairs", store=store)                     # added to the results store (datasets.added)

Every loader returns a Dataset whose frame has ``kind.columns`` first (``ds.kind`` is the
kind object, ``ds.item(item_id)`` one item as its kind's typed record). Shipped
datasets are registered below (one line each); their origin and licence are in
data/SOURCES.md.
"""

from __future__ import annotations

import difflib

import pandas as pd

from negviz.core.errors import DataValidationError
from negviz.core.options import Option
from negviz.core.paths import looks_like_path, on_disk
from negviz.core.registry import UnknownNameError
from negviz.core.kinds import kind_of
from negviz.core.schema import KINDS, PAIRS, DatasetSpec
from negviz.datasets import added
from negviz.datasets.base import Dataset, apply_limit, check_options
from negviz.datasets.facts import DatasetFacts, kind_facts
from negviz.datasets.registered import DATASETS
from negviz.datasets.userfile import load_file
from negviz.datasets.validate import validate

__all__ = [
    "DATASETS",
    "Dataset",
    "DatasetFacts",
    "facts",
    "list_datasets",
    "load",
    "load_file",
    "short_title",
    "validate",
]

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
    kind = kind_of(meta["kind"])  # the registry entry names its kind
    return Dataset(spec, kind, frame, meta["title"], meta["source"], meta["licence"], notes)


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
        kind = kind_of(meta["kind"])  # the registry entry names its kind
    elif rec is not None:
        kind = kind_of(rec.kind)  # the stored record names its kind
        meta = {**kind_facts(kind), "title": name}
    else:
        ds = dataset if isinstance(dataset, Dataset) else load(dataset, store=store)
        kind, meta = ds.kind, {**kind_facts(ds.kind), "title": ds.title}
    fields = ("title", "id_column", "metric", "item_metric", "random_baseline")
    return DatasetFacts(name, kind, *(meta[f] for f in fields))


def short_title(name: str) -> str:
    """A shipped dataset's title without its note ("ExcluIR", not "ExcluIR (1,000-query
    sample)"), for a label that names many things; another name as it is."""
    return DATASETS.entry(name).meta["title"].split(" (")[0] if name in DATASETS else name


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
