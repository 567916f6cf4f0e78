"""Added datasets: a user's file, validated like any user file and kept in the results store
(negviz.store.datasets), then loaded by name like a shipped dataset.

    from negviz.datasets.added import add_dataset
    record, created = add_dataset(store, "mypairs", data, "pairs.csv", "pairs", columns="pair_id=id,...")
    load("mypairs", store=store)                 # negviz.datasets.load resolves it

``load`` stays pure for shipped data: the store is asked only for a name that is neither a
shipped dataset nor a file path.
"""

from __future__ import annotations

import getpass
import hashlib
import os
import re
from pathlib import Path

import pandas as pd

from negviz.core.errors import NegvizError
from negviz.core.kinds import kind_of
from negviz.core.options import Option
from negviz.core.schema import DatasetSpec
from negviz.datasets.base import Dataset, apply_limit, check_options, check_split
from negviz.datasets.formats import FORMATS
from negviz.datasets.userfile import format_columns, parse_columns, read_mapped

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
SPLITS = ("test",)
# An added dataset's spec records which content a run was made on (provenance); filled on load.
OPTIONS = (Option("sha256", str, None, "sha256 of the added file, filled in on load"),)


def content_hash(spec: DatasetSpec) -> str | None:
    """The sha256 an added dataset's spec carries once loaded (OPTIONS); None for shipped
    datasets and files, which take no such option."""
    return spec.opts.get("sha256")


class DatasetNameError(NegvizError):
    """A name an added dataset cannot take (badly formed, or a shipped or added dataset's)."""


def default_store():
    """The store named by $NEGVIZ_DB_URL, or the per-user SQLite file when it exists; else None
    (looking up an unknown name then never creates a database)."""
    from negviz.store import Store
    from negviz.store.db import URL_ENV, default_sqlite_path

    if os.environ.get(URL_ENV) or default_sqlite_path().is_file():
        return Store()
    return None


def check_name(name: str, shipped) -> None:
    if not NAME_RE.match(name or ""):
        raise DatasetNameError(
            f"{name!r} cannot name a dataset: use 1-64 letters, digits, '_', '-' or '.', starting with a "
            "letter or digit (e.g. mypairs)"
        )
    if Path(name).suffix.lower() in FORMATS:
        raise DatasetNameError(f"{name!r} looks like a file name; name the dataset without {Path(name).suffix!r}")
    if name in shipped:
        raise DatasetNameError(f"{name!r} is a shipped dataset; choose another name (e.g. my-{name})")


def add_dataset(
    store,
    name: str,
    data: bytes,
    file_name: str,
    kind: str,
    columns: str | dict | None = None,
    *,
    format: str | None = None,
    description: str = "",
    licence: str = "",
    added_by: str | None = None,
):
    """Validate a file's bytes (every problem at once: DataValidationError.problems) and store it.
    Returns (AddedDataset, created); nothing is stored when anything is wrong."""
    from negviz.datasets.registered import DATASETS
    from negviz.store import datasets as stored

    check_name(name, DATASETS)
    columns = plain_mapping(columns)
    frame, mapping, _fmt = read_mapped(data, Path(file_name).name, kind, columns, format)
    record = stored.AddedDataset(
        name=name,
        kind=kind,
        n=len(frame),
        columns=format_columns(dict(sorted(mapping.items()))),
        source_file=Path(file_name).name,
        size=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
        added_by=added_by or _user(),
        added_at=None,
        description=description or "",
        licence=licence or "",
    )
    return stored.add(store, record, frame)


def plain_mapping(columns: str | dict | None) -> dict[str, str]:
    """The mapping without NEEDED=NEEDED entries, so a file with the right names is the same
    content whether its mapping was typed out (the page's dropdowns) or left out (the CLI)."""
    return {k: v for k, v in parse_columns(columns).items() if k != v}


def check_upload(data: bytes, file_name: str, kind: str, columns: str | dict | None = None):
    """(frame, problems): the validated items, or None and every problem (row, column, problem)."""
    from negviz.core.errors import DataValidationError
    from negviz.datasets.validate import problem_table

    try:
        frame, _mapping, _fmt = read_mapped(data, Path(file_name).name, kind, plain_mapping(columns))
    except DataValidationError as err:
        return None, problem_table(err)
    return frame, pd.DataFrame(columns=["row", "column", "problem"])


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"


def record(name: str, store):
    """The added dataset's record, or None (no store, or no such name)."""
    if store is None:
        return None
    from negviz.store import datasets as stored

    return stored.get(store, name)


def load_added(spec: DatasetSpec, store) -> Dataset | None:
    """The added dataset ``spec`` names, or None when the store has none of that name."""
    from negviz.store import datasets as stored

    rec = record(spec.name, store)
    if rec is None:
        return None
    check_options(spec, OPTIONS)
    check_split(spec, SPLITS)
    kind = kind_of(rec.kind)  # the stored record names its kind
    frame = apply_limit(stored.items(store, spec.name), kind, spec.limit)
    mapped = f", columns mapped {rec.columns}" if rec.columns else ""
    return Dataset(
        spec=DatasetSpec.make(spec.name, spec.split, spec.limit, sha256=rec.sha256),
        kind=kind,
        frame=frame,
        title=spec.name,  # the checked name, never the free-text description (pages render titles as markdown)
        source=f"{rec.source_file} ({rec.size:,} bytes, sha256 {rec.sha256[:12]}), added by {rec.added_by} "
        f"on {rec.added_at:%Y-%m-%d}",
        licence=rec.licence or "not given",
        notes=f"added dataset{mapped}",
    )
